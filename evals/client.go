package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/tools"
)

// Conn is an MCP session with a memory server, seen through the tools an
// agent uses.
type Conn struct {
	c *client.Client
	// Instructions are what the server tells a model about its tools.
	Instructions string
}

// Dialer opens a connection to a memory server whose clock reads now, for
// worker number worker (of the run's parallel workers).
type Dialer interface {
	Dial(ctx context.Context, now time.Time, worker int) (*Conn, error)
	// Describe names the server for reports.
	Describe() string
}

// connect starts and initialises c.
func connect(ctx context.Context, c *client.Client) (*Conn, error) {
	if err := c.Start(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("starting the MCP client: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "agentmem-eval", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("initialising the MCP session: %w", err)
	}
	return &Conn{c: c, Instructions: res.Instructions}, nil
}

// Close ends the session (and a spawned server with it).
func (c *Conn) Close() error { return c.c.Close() }

// Call calls a tool and returns its text and structured content. A tool
// error is returned as an error carrying the tool's text.
func (c *Conn) Call(ctx context.Context, tool string, args map[string]any) (string, json.RawMessage, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", tool, err)
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", nil, fmt.Errorf("%s: %s", tool, text.String())
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		if structured, err = json.Marshal(res.StructuredContent); err != nil {
			return "", nil, fmt.Errorf("%s: structured content: %w", tool, err)
		}
	}
	return text.String(), structured, nil
}

// Tools lists the server's tools.
func (c *Conn) Tools(ctx context.Context) ([]mcp.Tool, error) {
	res, err := c.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	return res.Tools, nil
}

// Remember sends one call's messages into namespace ns.
func (c *Conn) Remember(ctx context.Context, ns string, call Call) error {
	_, _, err := c.Call(ctx, "remember", map[string]any{
		"messages":     call.Messages,
		"session_id":   call.SessionID,
		"session_date": call.Date.Format(time.RFC3339),
		"namespace":    ns,
	})
	return err
}

// Recall runs the recall tool with args and returns the memories and the
// text rendering.
func (c *Conn) Recall(ctx context.Context, args map[string]any) ([]tools.Recalled, string, error) {
	text, structured, err := c.Call(ctx, "recall", args)
	if err != nil {
		return nil, "", err
	}
	if structured == nil {
		return nil, "", errors.New("recall: the server returned no structured content; the harness needs memory ids to score")
	}
	var res tools.RecallResult
	if err := json.Unmarshal(structured, &res); err != nil {
		return nil, "", fmt.Errorf("recall: %w", err)
	}
	return res.Memories, text, nil
}

// Today runs the today tool.
func (c *Conn) Today(ctx context.Context) (memory.Today, string, error) {
	text, structured, err := c.Call(ctx, "today", map[string]any{})
	if err != nil {
		return memory.Today{}, "", err
	}
	var d memory.Today
	if structured != nil {
		if err := json.Unmarshal(structured, &d); err != nil {
			return memory.Today{}, "", fmt.Errorf("today: %w", err)
		}
	}
	return d, text, nil
}

// Forget deletes namespace ns.
func (c *Conn) Forget(ctx context.Context, ns string) error {
	_, _, err := c.Call(ctx, "forget", map[string]any{"namespace": ns, "all": true, "confirm": true})
	return err
}

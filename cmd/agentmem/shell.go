package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/server"
)

// The shell commands call the tools through an in-process MCP client, so a
// person trying the memory from a shell runs exactly what an agent runs.

type output struct {
	JSON bool `name:"json" help:"Print the structured result as JSON instead of text."`
}

func call(e *env, out output, tool string, args map[string]any) error {
	c, closeAll, err := connect(e)
	if err != nil {
		return err
	}
	defer closeAll()
	if err := c.Start(e.ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "agentmem-cli", Version: version}
	if _, err := c.Initialize(e.ctx, init); err != nil {
		return err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(e.ctx, req)
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return errors.New(text.String())
	}
	if out.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.StructuredContent)
	}
	fmt.Println(text.String())
	return nil
}

// connect connects to the server that holds the data dir, through its
// socket, or, when none runs, opens the memory in-process (holding the data
// dir meanwhile, so that a server started now waits for this command).
func connect(e *env) (*client.Client, func(), error) {
	dir, err := e.cfg.Dir()
	if err != nil {
		return nil, nil, err
	}
	sock := server.SocketPath(dir)
	conn, h, err := server.Attach(e.ctx, sock, hold(e, dir, sock, false), server.AttachWait, e.log)
	if err != nil {
		return nil, nil, err
	}
	if conn != nil {
		in := &eofReader{r: conn, eof: make(chan struct{})}
		c := client.NewClient(transport.NewIO(in, conn, io.NopCloser(strings.NewReader(""))))
		return c, func() {
			// half-close and let the server end the session, so the
			// client's reader sees a clean EOF rather than a closed socket
			conn.(*net.UnixConn).CloseWrite()
			select {
			case <-in.eof:
			case <-time.After(time.Second):
			}
			c.Close()
			conn.Close()
		}, nil
	}
	hd := h.(*holder)
	c, err := client.NewInProcessClient(server.New(hd.eng.Service, server.Options{Version: version, Logger: e.log}))
	if err != nil {
		hd.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); hd.Close() }, nil
}

type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.once.Do(func() { close(r.eof) })
	}
	return n, err
}

type rememberCmd struct {
	output
	Text        []string `arg:"" optional:"" help:"Turns to store, one per argument, all with --role. Or give --file."`
	File        string   `name:"file" short:"f" placeholder:"PATH" help:"Read the remember tool's JSON arguments ({\"messages\": [...], ...}) or a bare messages array from PATH (- for stdin)."`
	Role        string   `name:"role" default:"user" help:"Role of the turns given as arguments."`
	Speaker     string   `name:"speaker" help:"Speaker of the turns given as arguments."`
	SessionID   string   `name:"session-id" help:"Session id (generated from the content when absent)."`
	SessionDate string   `name:"session-date" help:"Session date (ISO 8601 or e.g. '1:56 pm on 8 May, 2023'; default now)."`
	NS          string   `name:"ns" help:"Namespace of this call (default --namespace)."`
}

func (c rememberCmd) Run(e *env) error {
	args := map[string]any{}
	switch {
	case c.File != "" && len(c.Text) > 0:
		return errors.New("give turns as arguments or --file, not both")
	case c.File != "":
		var r io.Reader = os.Stdin
		if c.File != "-" {
			f, err := os.Open(c.File)
			if err != nil {
				return err
			}
			defer f.Close()
			r = f
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "[") {
			var msgs []any
			if err := json.Unmarshal(raw, &msgs); err != nil {
				return fmt.Errorf("%s: %w", c.File, err)
			}
			args["messages"] = msgs
		} else if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
	case len(c.Text) > 0:
		var msgs []any
		for _, t := range c.Text {
			m := map[string]any{"role": c.Role, "content": t}
			if c.Speaker != "" {
				m["speaker"] = c.Speaker
			}
			msgs = append(msgs, m)
		}
		args["messages"] = msgs
	default:
		return errors.New("nothing to remember: give turns as arguments or --file")
	}
	setIf(args, "session_id", c.SessionID)
	setIf(args, "session_date", c.SessionDate)
	setIf(args, "namespace", c.NS)
	return call(e, c.output, "remember", args)
}

type recallCmd struct {
	output
	Query     string `arg:"" help:"What to recall."`
	K         int    `name:"k" short:"k" default:"10" help:"How many memories."`
	NS        string `name:"ns" help:"Namespace of this call (default --namespace)."`
	SessionID string `name:"session-id" help:"Only this session."`
	After     string `name:"after" help:"Only sessions on or after this date."`
	Before    string `name:"before" help:"Only sessions on or before this date."`
	Order     string `name:"order" enum:"relevance,chronological,recency" default:"relevance" help:"Order of the results."`
}

func (c recallCmd) Run(e *env) error {
	args := map[string]any{"query": c.Query, "k": c.K, "order": c.Order}
	setIf(args, "namespace", c.NS)
	setIf(args, "session_id", c.SessionID)
	setIf(args, "after", c.After)
	setIf(args, "before", c.Before)
	return call(e, c.output, "recall", args)
}

type todayCmd struct{ output }

func (c todayCmd) Run(e *env) error { return call(e, c.output, "today", map[string]any{}) }

type forgetCmd struct {
	output
	IDs       []string `arg:"" name:"ids" optional:"" help:"Memory ids to delete."`
	SessionID string   `name:"session-id" help:"Delete this session."`
	All       bool     `name:"all" help:"Delete the whole namespace (needs --confirm)."`
	Confirm   bool     `name:"confirm" help:"Confirm --all."`
	NS        string   `name:"ns" help:"Namespace of this call (default --namespace)."`
}

func (c forgetCmd) Run(e *env) error {
	args := map[string]any{"all": c.All, "confirm": c.Confirm}
	if len(c.IDs) > 0 {
		args["ids"] = c.IDs
	}
	setIf(args, "session_id", c.SessionID)
	setIf(args, "namespace", c.NS)
	return call(e, c.output, "forget", args)
}

func setIf(args map[string]any, k, v string) {
	if v != "" {
		args[k] = v
	}
}

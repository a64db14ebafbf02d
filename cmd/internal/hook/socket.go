package hook

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"agentmem/server/socket"
	"agentmem/tools/spec"
)

// DialSocket is a Connect for a running server: a minimal MCP client over
// the socket it serves other local processes on (server.Attach), that
// does the handshake and tools/call, nothing else. It is not
// tools/client because mcp-go's client packages link its server and its
// JSON Schema validator, whose start-up alone costs a hook process more
// than the rest of it (EVALS.md, "The hooks' latency"). When no server
// answers it returns ErrNoServer.
func DialSocket(dataDir string) func(ctx context.Context) (Memory, func(), error) {
	return func(ctx context.Context) (Memory, func(), error) {
		d := net.Dialer{Timeout: time.Second}
		conn, err := d.DialContext(ctx, "unix", socket.Path(dataDir))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNoServer, err)
		}
		if t, ok := ctx.Deadline(); ok {
			conn.SetDeadline(t)
		}
		// the context's end ends a call in flight
		stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
		done := func() { stop(); conn.Close() }
		s := &session{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
		if err := s.handshake(); err != nil {
			done()
			return nil, nil, fmt.Errorf("the agentmem server's socket: %w", err)
		}
		return s, done, nil
	}
}

// ErrNoServer says that no server answers on the data dir's socket.
var ErrNoServer = errors.New("no agentmem server answers on the data directory's socket")

// session is an MCP session over a connection: newline-delimited JSON-RPC,
// as the stdio transport has it.
type session struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// protocolVersion is the MCP version the hook speaks: any the server
// supports, since the hook uses nothing but tools/call.
const protocolVersion = "2025-06-18"

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Result json.RawMessage  `json:"result"`
	Error  *rpcError        `json:"error"`
}

func (s *session) handshake() error {
	_, err := s.request("initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "agentmem-hook", "version": "1"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (s *session) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.conn.Write(append(b, '\n'))
	return err
}

// request sends a request and reads up to its response; the server's
// notifications on the way are passed over, its requests answered (ping)
// or declined.
func (s *session) request(method string, params any) (json.RawMessage, error) {
	s.id++
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	want := fmt.Sprint(s.id)
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the server's answer: %w", err)
		}
		var r response
		if json.Unmarshal(line, &r) != nil || r.ID == nil {
			continue // a notification
		}
		if r.Method != "" { // the server's own request
			reply := map[string]any{"jsonrpc": "2.0", "id": r.ID, "result": map[string]any{}}
			if r.Method != "ping" {
				reply = map[string]any{"jsonrpc": "2.0", "id": r.ID, "error": rpcError{-32601, "the hook serves no requests"}}
			}
			if err := s.send(reply); err != nil {
				return nil, err
			}
			continue
		}
		if strings.Trim(string(*r.ID), `"`) != want {
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s (JSON-RPC error %d)", r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	}
}

// call calls a tool and returns its text and, when out is not nil, its
// structured content decoded into out.
func (s *session) call(tool string, args, out any) (string, error) {
	raw, err := s.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("%s: the server's result: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if res.IsError {
		return "", &spec.ToolError{Tool: tool, Text: text.String()}
	}
	if out != nil {
		if len(res.Structured) == 0 || string(res.Structured) == "null" {
			return "", fmt.Errorf("%s: the server returned no structured content", tool)
		}
		if err := json.Unmarshal(res.Structured, out); err != nil {
			return "", fmt.Errorf("%s: structured content: %w", tool, err)
		}
	}
	return text.String(), nil
}

func (s *session) Remember(_ context.Context, args spec.RememberArgs) (spec.RememberResult, string, error) {
	var out spec.RememberResult
	text, err := s.call("remember", args, &out)
	return out, text, err
}

func (s *session) Recall(_ context.Context, args spec.RecallArgs) (spec.RecallResult, string, error) {
	args.Format = cmp.Or(args.Format, "json")
	var out spec.RecallResult
	text, err := s.call("recall", args, &out)
	return out, text, err
}

package evals

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"agentmem/memory"
	"agentmem/server"
)

// InProcess serves the memory in this process: one store and embedder,
// opened once, and a fresh memory.Service and MCP server per dial with the
// dial's clock. It is the fast default.
type InProcess struct {
	Store    memory.Store
	Embedder memory.Embedder // nil for lexical only
	Location *time.Location  // nil means UTC
	Fusion   memory.Fusion   // the server's default fusion; "" means rrf
}

// Dial returns a connection to a server whose clock reads now.
func (p InProcess) Dial(ctx context.Context, now time.Time, _ int) (*Conn, error) {
	loc := p.Location
	if loc == nil {
		loc = time.UTC
	}
	svc, err := memory.New(memory.Options{
		Store: p.Store, Embedder: p.Embedder, Location: loc, Fusion: p.Fusion,
		Now: func() time.Time { return now },
	})
	if err != nil {
		return nil, err
	}
	c, err := client.NewInProcessClient(server.New(svc, server.Options{Version: "eval"}))
	if err != nil {
		return nil, err
	}
	return connect(ctx, c)
}

// Describe names the server.
func (p InProcess) Describe() string {
	e := "none"
	if p.Embedder != nil {
		e = p.Embedder.ID()
	}
	f := p.Fusion
	if f == "" {
		f = memory.RRF
	}
	return fmt.Sprintf("in-process agentmem (embedder %s, default fusion %s)", e, f)
}

// Stdio spawns a stdio MCP server per dial by running Command with sh.
// In Command, {now} is replaced by the dial's clock (RFC 3339) and {worker}
// by the worker's number, so that servers which lock their data directory
// can be given one per worker:
//
//	agentmem --data-dir /tmp/eval-{worker} --now {now} serve
//
// A server that cannot set its clock is still driven; its today tool then
// says what it says.
type Stdio struct {
	Command string
}

// Dial spawns the server.
func (s Stdio) Dial(ctx context.Context, now time.Time, worker int) (*Conn, error) {
	cmd := strings.ReplaceAll(s.Command, "{now}", now.Format(time.RFC3339))
	cmd = strings.ReplaceAll(cmd, "{worker}", strconv.Itoa(worker))
	c, err := client.NewStdioMCPClient("sh", os.Environ(), "-c", "exec "+cmd)
	if err != nil {
		return nil, fmt.Errorf("spawning %q: %w", cmd, err)
	}
	return connect(ctx, c)
}

// Describe names the server.
func (s Stdio) Describe() string { return "stdio: " + s.Command }

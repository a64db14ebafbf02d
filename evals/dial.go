package evals

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// Dialer opens a connection to a memory server whose clock reads now, for
// worker number worker (of the run's parallel workers).
type Dialer interface {
	Dial(ctx context.Context, now time.Time, worker int) (*client.Client, error)
	// Describe names the server for reports.
	Describe() string
}

// InProcess serves the memory in this process: NewServer returns an MCP
// server whose clock reads now (the command line builds it over one store
// and embedder, opened once). It is the fast default, and the harness still
// reaches the memory only through MCP.
type InProcess struct {
	NewServer func(now time.Time) (*mcpserver.MCPServer, error)
	// Description names the server for reports.
	Description string
}

// Dial returns a connection to a server whose clock reads now.
func (p InProcess) Dial(ctx context.Context, now time.Time, _ int) (*client.Client, error) {
	s, err := p.NewServer(now)
	if err != nil {
		return nil, err
	}
	return client.InProcess(ctx, s)
}

// Describe names the server.
func (p InProcess) Describe() string { return p.Description }

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
func (s Stdio) Dial(ctx context.Context, now time.Time, worker int) (*client.Client, error) {
	cmd := strings.ReplaceAll(s.Command, "{now}", now.Format(time.RFC3339))
	cmd = strings.ReplaceAll(cmd, "{worker}", strconv.Itoa(worker))
	c, err := client.Stdio(ctx, os.Environ(), "sh", "-c", "exec "+cmd)
	if err != nil {
		return nil, fmt.Errorf("spawning %q: %w", cmd, err)
	}
	return c, nil
}

// Describe names the server.
func (s Stdio) Describe() string { return "stdio: " + s.Command }

// remember sends one call's messages into namespace ns and returns the
// memory id of each message, as the server gave them.
func remember(ctx context.Context, c *client.Client, ns string, call Call) ([]string, error) {
	res, _, err := c.Remember(ctx, spec.RememberArgs{
		Messages:    call.Messages,
		SessionID:   call.SessionID,
		SessionDate: call.Date.Format(time.RFC3339),
		Namespace:   ns,
	})
	if err != nil {
		return nil, err
	}
	if len(res.IDs) != len(call.Messages) {
		return nil, fmt.Errorf("remember returned %d ids for %d messages; the harness needs the id of every message to score", len(res.IDs), len(call.Messages))
	}
	return res.IDs, nil
}

// forget deletes namespace ns.
func forget(ctx context.Context, c *client.Client, ns string) error {
	_, _, err := c.Forget(ctx, spec.ForgetArgs{Namespace: ns, All: true, Confirm: true})
	return err
}

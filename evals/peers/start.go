package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Command is the program, arguments, working directory and environment
// that start a peer's server over stdio.
type Command struct {
	Path string
	Args []string
	Dir  string
	// Env is the whole environment of the process.
	Env []string
}

// Command returns how to start the installed peer p with its state in
// dataDir (which must exist and belong to this process alone). HOME and the
// working directory point into dataDir too, so a peer that writes beside
// them never touches the user's files or another run's.
func (inst Installation) Command(p Peer, dataDir string) Command {
	s := p.Spec(dataDir)
	env := append(os.Environ(), "HOME="+dataDir, "USERPROFILE="+dataDir, "NO_COLOR=1")
	env = append(env, s.Env...)
	return Command{Path: inst.Node, Args: []string{inst.Entry}, Dir: dataDir, Env: env}
}

// Argv is the command as one slice, for messages.
func (c Command) Argv() []string { return append([]string{c.Path}, c.Args...) }

// Start spawns cmd and initialises an MCP session with it. The caller
// closes the client, which ends the process.
func Start(ctx context.Context, cmd Command) (*client.Client, error) {
	c, err := client.NewStdioMCPClientWithOptions(cmd.Path, nil, cmd.Args,
		transport.WithCommandFunc(func(ctx context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			// Not bound to ctx: the process lives until the client closes.
			x := exec.Command(command, args...)
			x.Dir = cmd.Dir
			x.Env = cmd.Env
			return x, nil
		}))
	if err != nil {
		return nil, fmt.Errorf("peers: starting %s: %w", strings.Join(cmd.Argv(), " "), err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "agentmem-eval", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		msg := stderrOf(c, err)
		c.Close()
		return nil, fmt.Errorf("peers: initialising %s: %w%s", strings.Join(cmd.Argv(), " "), err, msg)
	}
	return c, nil
}

// stderrOf returns the tail of the server's stderr when err is a crash, for
// error messages, and "" otherwise. It reads until the stream ends, so it
// reads only once the server has exited (a crash): on a live server it
// would block.
func stderrOf(c *client.Client, err error) string {
	r, ok := client.GetStderr(c)
	if !ok || Kind(err) != Crash {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(r, 1<<20))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	return "\nserver stderr:\n" + Tail(s, 2000)
}

// call calls a tool and returns its text content. A tool error is an
// error carrying the tool's text.
func call(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s: %w%s", tool, err, stderrOf(c, err))
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", &ToolError{Tool: tool, Text: text.String()}
	}
	return text.String(), nil
}

// ToolError is a result the server marked as an error.
type ToolError struct {
	Tool, Text string
}

func (e *ToolError) Error() string { return e.Tool + ": " + Tail(e.Text, 2000) }

// callJSON calls a tool whose text content is JSON and decodes it into v.
func callJSON(ctx context.Context, c *client.Client, tool string, args map[string]any, v any) error {
	text, err := call(ctx, c, tool, args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return malformed("%s: malformed result (%v): %s", tool, err, Tail(text, 300))
	}
	return nil
}

// Open starts the installed peer p with its state in dataDir.
func Open(ctx context.Context, inst Installation, p Peer, dataDir string) (*client.Client, error) {
	return Start(ctx, inst.Command(p, dataDir))
}

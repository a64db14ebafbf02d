// Package client is the typed MCP client of agentmem's tools: Remember,
// Recall, Today and Forget take and return the structs of package spec,
// over any transport (in process, a spawned stdio server, a unix socket
// connection, streamable HTTP). The command line, the eval harness and the
// tests all talk to the server through it, exactly as an agent does. It
// imports nothing of the memory.
package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/tools/spec"
)

// Client is an initialised MCP session with a memory server.
type Client struct {
	c *mcpclient.Client
	// Instructions are what the server tells a model about its tools.
	Instructions string
	// Server names the server and its version, from the handshake.
	Server mcp.Implementation
	// Stderr is a spawned server's standard error (Command only).
	Stderr io.Reader
	closer func() error
}

// DefaultName is how a client introduces itself in the handshake unless
// WithName says otherwise. It is a constant: each client's name is its own
// option, so clients made at once in one process never race on it.
const DefaultName = "agentmem-client"

// Option changes how a client connects.
type Option func(*options)

type options struct {
	name, protocol string
	http           []transport.StreamableHTTPCOption
	initWithin     time.Duration
}

// WithInitWithin bounds how long the server may take to answer the
// handshake: a server that is stopped (SIGSTOP) or hung accepts the
// connection and never answers, and a caller that waited without bound
// would hang with it.
func WithInitWithin(d time.Duration) Option { return func(o *options) { o.initWithin = d } }

// WithName sets the name the client gives in the handshake.
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithProtocol asks for an MCP protocol version other than the newest
// (mcp.LATEST_PROTOCOL_VERSION), e.g. one with HTTP sessions.
func WithProtocol(v string) Option { return func(o *options) { o.protocol = v } }

// WithHTTP passes options to the streamable HTTP transport.
func WithHTTP(opts ...transport.StreamableHTTPCOption) Option {
	return func(o *options) { o.http = append(o.http, opts...) }
}

func collect(opts []Option) options {
	o := options{name: DefaultName, protocol: mcp.LATEST_PROTOCOL_VERSION}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// InProcess connects to s in this process, with no transport in between.
func InProcess(ctx context.Context, s *mcpserver.MCPServer, opts ...Option) (*Client, error) {
	c, err := mcpclient.NewInProcessClient(s)
	if err != nil {
		return nil, err
	}
	return start(ctx, c, nil, collect(opts))
}

// Stdio spawns command with args (env added to the process's environment,
// as KEY=VALUE) and speaks MCP on its stdin and stdout. Close ends the
// process.
func Stdio(ctx context.Context, env []string, command string, args ...string) (*Client, error) {
	c, err := mcpclient.NewStdioMCPClient(command, env, args...)
	if err != nil {
		return nil, fmt.Errorf("spawning %s: %w", command, err)
	}
	return start(ctx, c, nil, collect(nil))
}

// Command starts cmd (not yet started) and speaks MCP on its stdin and
// stdout; the caller keeps cmd, to signal or kill the process. Close ends
// the process.
func Command(ctx context.Context, cmd *exec.Cmd, opts ...Option) (*Client, error) {
	tr := transport.NewStdioWithOptions(cmd.Path, nil, cmd.Args[1:],
		transport.WithCommandFunc(func(context.Context, string, []string, []string) (*exec.Cmd, error) {
			return cmd, nil
		}))
	c, err := start(ctx, mcpclient.NewClient(tr), nil, collect(opts))
	if err != nil {
		return nil, err
	}
	c.Stderr = tr.Stderr()
	return c, nil
}

// HTTP connects to a streamable HTTP server at url (e.g.
// http://127.0.0.1:8080/mcp), sending headers with every request.
func HTTP(ctx context.Context, url string, headers map[string]string, opts ...Option) (*Client, error) {
	o := collect(opts)
	c, err := mcpclient.NewStreamableHttpClient(url, append([]transport.StreamableHTTPCOption{transport.WithHTTPHeaders(headers)}, o.http...)...)
	if err != nil {
		return nil, err
	}
	return start(ctx, c, nil, o)
}

// Unix connects to a server that serves stdio-style MCP sessions on the
// unix socket at path (as `agentmem serve` does for other local processes).
func Unix(ctx context.Context, path string, opts ...Option) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	return Conn(ctx, conn, opts...)
}

// Conn speaks stdio-style MCP over an open connection (a unix socket to a
// server); Close half-closes it, lets the server end the session, and
// closes it.
func Conn(ctx context.Context, conn net.Conn, opts ...Option) (*Client, error) {
	in := &eofReader{r: conn, eof: make(chan struct{})}
	c := mcpclient.NewClient(transport.NewIO(in, conn, io.NopCloser(strings.NewReader(""))))
	return start(ctx, c, func() error {
		// half-close and let the server end the session, so the reader
		// sees a clean end of file rather than a closed socket
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		select {
		case <-in.eof:
		case <-time.After(time.Second):
		}
		return conn.Close()
	}, collect(opts))
}

// IO speaks stdio-style MCP over in (the server's output) and out (its
// input), e.g. pipes to a server in this process.
func IO(ctx context.Context, in io.Reader, out io.WriteCloser, opts ...Option) (*Client, error) {
	c := mcpclient.NewClient(transport.NewIO(in, out, io.NopCloser(strings.NewReader(""))))
	return start(ctx, c, out.Close, collect(opts))
}

// eofReader says when its reader has ended.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.once.Do(func() { close(r.eof) })
		if errors.Is(err, net.ErrClosed) {
			// the connection was closed on our side (Close): the end of
			// the server's output, not a read error to log
			err = io.EOF
		}
	}
	return n, err
}

func start(ctx context.Context, c *mcpclient.Client, closer func() error, o options) (*Client, error) {
	fail := func(what string, err error) (*Client, error) {
		c.Close()
		if closer != nil {
			closer()
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := c.Start(ctx); err != nil {
		return fail("starting the MCP client", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = o.protocol
	init.Params.ClientInfo = mcp.Implementation{Name: o.name, Version: "1"}
	ictx := ctx
	if o.initWithin > 0 {
		var cancel context.CancelFunc
		ictx, cancel = context.WithTimeout(ctx, o.initWithin)
		defer cancel()
	}
	res, err := c.Initialize(ictx, init)
	if err != nil {
		if ctx.Err() == nil && ictx.Err() != nil {
			err = fmt.Errorf("the server did not answer within %s (it may be stopped, or too busy)", o.initWithin)
		}
		return fail("initialising the MCP session", err)
	}
	return &Client{c: c, Instructions: res.Instructions, Server: res.ServerInfo, closer: closer}, nil
}

// Close ends the session (and a spawned server with it).
func (c *Client) Close() error {
	if c.closer != nil {
		defer c.closer()
	}
	return c.c.Close()
}

// ToolError is a tool's own error result (see spec.ToolError).
type ToolError = spec.ToolError

// Call calls a tool with args (any JSON-encodable value, typically a spec
// struct or a map) and returns its text and its structured content. A tool
// error is a *ToolError.
func (c *Client) Call(ctx context.Context, tool string, args any) (string, json.RawMessage, error) {
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
		return "", nil, &ToolError{Tool: tool, Text: text.String()}
	}
	structured := res.RawStructuredContent // as received: not marshalled again
	if structured == nil && res.StructuredContent != nil {
		if structured, err = json.Marshal(res.StructuredContent); err != nil {
			return "", nil, fmt.Errorf("%s: structured content: %w", tool, err)
		}
	}
	return text.String(), structured, nil
}

// call is Call with the structured content decoded into out.
func call[Out any](ctx context.Context, c *Client, tool string, args any) (Out, string, error) {
	var out Out
	text, structured, err := c.Call(ctx, tool, args)
	if err != nil {
		return out, "", err
	}
	if structured == nil {
		return out, text, fmt.Errorf("%s: the server returned no structured content", tool)
	}
	if err := json.Unmarshal(structured, &out); err != nil {
		return out, text, fmt.Errorf("%s: structured content: %w", tool, err)
	}
	return out, text, nil
}

// Remember stores turns.
func (c *Client) Remember(ctx context.Context, args spec.RememberArgs) (spec.RememberResult, string, error) {
	return call[spec.RememberResult](ctx, c, "remember", args)
}

// Recall finds memories; the text is what the server renders for a model.
// It asks for the structured result (format json) unless args name
// another format; RecallText asks for the text alone, as a model does.
func (c *Client) Recall(ctx context.Context, args spec.RecallArgs) (spec.RecallResult, string, error) {
	args.Format = cmp.Or(args.Format, "json")
	return call[spec.RecallResult](ctx, c, "recall", args)
}

// RecallText is recall as a model calls it: the text alone.
func (c *Client) RecallText(ctx context.Context, args spec.RecallArgs) (string, error) {
	text, _, err := c.Call(ctx, "recall", args)
	return text, err
}

// Today asks the server's date.
func (c *Client) Today(ctx context.Context) (spec.Today, string, error) {
	return call[spec.Today](ctx, c, "today", spec.TodayArgs{})
}

// Forget deletes memories.
func (c *Client) Forget(ctx context.Context, args spec.ForgetArgs) (spec.ForgetResult, string, error) {
	return call[spec.ForgetResult](ctx, c, "forget", args)
}

// Takes says whether the server's tool takes the argument arg: a server
// built before the argument was added refuses it.
func (c *Client) Takes(ctx context.Context, tool, arg string) (bool, error) {
	ts, err := c.Tools(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range ts {
		if t.Name == tool {
			_, ok := t.InputSchema.Properties[arg]
			return ok, nil
		}
	}
	return false, nil
}

// NoReranker is the recall argument that keeps the fused order, for a
// recall that only counts (pending vectors, a warm-up): nil for a server
// that does not take it.
func (c *Client) NoReranker(ctx context.Context) *bool {
	if ok, err := c.Takes(ctx, "recall", "reranker"); err != nil || !ok {
		return nil
	}
	return new(false)
}

// Tools lists the server's tools.
func (c *Client) Tools(ctx context.Context) ([]mcp.Tool, error) {
	res, err := c.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	return res.Tools, nil
}

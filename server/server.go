// Package server wires the agentmem tools into an MCP server and serves it
// over stdio or streamable HTTP. It knows nothing of storage engines.
package server

import (
	"cmp"
	"log/slog"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
	"agentmem/tools"
)

// Name is the server's name in the MCP handshake.
const Name = "agentmem"

// Options configure New.
type Options struct {
	Version string
	Logger  *slog.Logger
}

// New returns an MCP server exposing the memory tools over svc, its
// sessions as resources (with completions of their arguments), and the
// logging capability: a client that sets a level with logging/setLevel
// receives the server's log records of its own requests. A panic in a tool
// handler is recovered and reported to the client as an error.
func New(svc *memory.Service, opts Options) *mcpserver.MCPServer {
	return NewLoading(tools.Loaded(svc), opts)
}

// NewLoading is New over a memory that may still be loading: the server
// answers initialize, ping and the lists of tools, resource templates and
// prompts at once; tool calls, resource reads, resources/list and
// completions wait for the memory (see tools.Loading), and get the error
// that stopped it if loading failed.
func NewLoading(mem *tools.Loading, opts Options) *mcpserver.MCPServer {
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	opts.Version = cmp.Or(opts.Version, "dev")
	logs, bind := newClientLog(opts.Logger.Handler())
	log := slog.New(logs)
	s := mcpserver.NewMCPServer(Name, opts.Version, append([]mcpserver.ServerOption{
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithLogging(),
		mcpserver.WithResourceRecovery(),
		// a structured result that breaks its tool's output schema is never
		// sent: the client gets a tool error instead
		mcpserver.WithOutputSchemaValidation(),
		resourceErrors(),
		mcpserver.WithInstructions(tools.Instructions),
		mcpserver.WithToolHandlerMiddleware(tools.Middleware(log)),
	}, tools.ServerOptions(mem, log)...)...)
	bind(s)
	tools.Register(s, mem)
	tools.RegisterResources(s, mem, notifier(s))
	return s
}

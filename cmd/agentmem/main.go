// Command agentmem is a long-term memory server for LLM agents, over MCP.
//
//	agentmem serve                      # stdio, for Claude Code / Desktop
//	agentmem serve --http 127.0.0.1:8080 # streamable HTTP at /mcp
//	agentmem remember / recall / today / forget / reindex / check
//	agentmem namespaces / sessions / show / export / import
package main

import (
	"context"
	"fmt"
	"log/slog"

	"agentmem/cmd/internal/backend"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// cli is the command line: the global flags and the commands.
type cli struct {
	backend.Globals

	Serve    serveCmd    `cmd:"" help:"Run the MCP server (stdio by default)."`
	Remember rememberCmd `cmd:"" help:"Store conversation turns, as the remember tool does."`
	Recall   recallCmd   `cmd:"" help:"Search memories, as the recall tool does."`
	Today    todayCmd    `cmd:"" help:"Print today's date, as the today tool does."`
	Forget   forgetCmd   `cmd:"" help:"Delete memories, as the forget tool does."`

	Namespaces namespacesCmd `cmd:"" help:"List the namespaces, with their numbers of memories and sessions."`
	Sessions   sessionsCmd   `cmd:"" help:"List a namespace's sessions, newest first: date, id, turns, first words."`
	Show       showCmd       `cmd:"" help:"Print a session in turn order, with dates and speakers."`
	Export     exportCmd     `cmd:"" help:"Write memories to a JSON Lines file (stdout by default)."`
	Import     importCmd     `cmd:"" help:"Store the memories of an export file (idempotent; every line is checked before anything is stored)."`

	Reindex   reindexCmd   `cmd:"" help:"Re-embed every stored memory with the configured embedder, and rebuild the text index."`
	Check     checkCmd     `cmd:"" help:"Verify the embedded store's files (records, text index, vectors) without changing them; exits 1 on a problem."`
	Couchbase couchbaseCmd `cmd:"" help:"Couchbase backend administration."`
	Setup     setupCmd     `cmd:"" help:"Add agentmem to an agent host: its MCP server and its hooks (claude-code)."`
	Hook      hookCmd      `cmd:"" help:"Run as an agent host's hook (agentmem setup registers it)."`
	Token     tokenCmd     `cmd:"" help:"Manage the per-user tokens of a shared HTTP server (serve --http-tokens FILE)."`
	Version   versionCmd   `cmd:"" help:"Print the version."`
	Eval      evalCmd      `cmd:"" hidden:"" help:"Moved to agentmem-eval."`
}

// env is what every command gets.
type env struct {
	ctx context.Context
	cfg backend.Config
	log *slog.Logger
}

func main() {
	backend.Main("agentmem", "Long-term memory for LLM agents, over MCP: raw conversation turns with their session dates, recalled by hybrid search.", &cli{}, func(ctx context.Context, cfg backend.Config, log *slog.Logger) *env {
		return &env{ctx: ctx, cfg: cfg, log: log}
	})
}

// Quiet is true for the one-shot commands, which log warnings and errors
// only unless --log-level is given (backend.Main): a server, a reindex and
// Couchbase's administration keep their informational lines.
func (cli) Quiet(command string) bool {
	return command != "serve" && command != "reindex" && command != "couchbase"
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Println("agentmem", version)
	return nil
}

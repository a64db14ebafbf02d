// Command agentmem-eval is agentmem's measurement lab, kept out of the
// server binary an agent starts: it runs LoCoMo and LongMemEval through
// agentmem's MCP tools (package evals; an in-process server built as
// agentmem serve builds it, or any stdio server with --server-cmd), compares
// other MCP memory servers on the same questions, and benchmarks the
// embedded store at scale.
//
//	agentmem-eval locomo locomo10.json --out out/lo
//	agentmem-eval longmemeval longmemeval_s_cleaned.json --out out/lme
//	agentmem-eval bench --sizes 10000,100000
//
// The memory flags (--data-dir, --embedder, --store, --fusion, ...) are
// agentmem's own, and configure the in-process server.
package main

import (
	"context"
	"fmt"
	"log/slog"

	"agentmem/cmd/internal/backend"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// cli is the command line: one command a benchmark, each a kong struct
// whose Run is the whole command (see eval.go for the flags the benchmarks
// share and how a run is assembled).
type cli struct {
	backend.Globals

	Locomo      evalLoCoMo      `cmd:"" name:"locomo" help:"Measure the memory on LoCoMo (locomo10.json format) through the MCP tools."`
	Longmemeval evalLongMemEval `cmd:"" name:"longmemeval" help:"Measure the memory on LongMemEval (longmemeval_s_cleaned.json or longmemeval_oracle.json format, plain or gzipped) through the MCP tools."`
	Bench       benchCmd        `cmd:"" help:"Measure the embedded store at scale: ingest, recall latency per fusion mode against a plain vector scan, vector recall@10, RSS, open time."`
	Chatgpt     chatgptCmd      `cmd:"" name:"chatgpt-export" help:"Write a benchmark's sessions out as a ChatGPT data export (conversations.json), to measure import --from chatgpt on real text."`
	Version     versionCmd      `cmd:"" help:"Print the version."`
}

// env is what every command gets.
type env struct {
	ctx context.Context
	cfg backend.Config
	log *slog.Logger
}

func main() {
	backend.Main("agentmem-eval", "agentmem's evaluation lab: LoCoMo and LongMemEval through the MCP tools, peer servers on the same questions, and the embedded store's benchmark.", &cli{}, func(ctx context.Context, cfg backend.Config, log *slog.Logger) *env {
		return &env{ctx: ctx, cfg: cfg, log: log}
	})
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Println("agentmem-eval", version)
	return nil
}

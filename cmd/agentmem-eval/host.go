package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/cmd/internal/backend"
	"agentmem/evals"
	"agentmem/evals/host"
	"agentmem/server"
)

// hostFlags ask the questions through a real agent host too.
type hostFlags struct {
	Host     string `name:"host" enum:",claude-code" default:"" help:"Also ask each question through an agent host, side by side with the in-process run: claude-code (real Claude Code from npm, a claude -p session per question, whose scripted model calls recall once with the question). Scores what the host handed the model, tokens as received, latency end to end."`
	Claude   string `name:"claude" placeholder:"PATH" help:"The claude binary of --host claude-code (default: installed from npm into --peer-cache)."`
	Agentmem string `name:"agentmem" placeholder:"PATH" help:"The agentmem binary Claude Code starts (default: agentmem beside this binary, else on PATH)."`
	HostN    int    `name:"host-questions" default:"200" placeholder:"N" help:"Questions asked through --host, spread evenly over the run's (0: all); the side-by-side table compares both runs on these."`
}

// hostQuestions picks n questions of d spread evenly (nil: all).
func hostQuestions(d *evals.Dataset, n int) map[string]bool {
	var ids []string
	for _, u := range d.Units {
		for _, q := range u.Questions {
			ids = append(ids, q.ID)
		}
	}
	if n <= 0 || n >= len(ids) {
		return nil
	}
	out := map[string]bool{}
	for _, id := range spread(ids, n) {
		out[id] = true
	}
	return out
}

// printHostTable prints the in-process run and the host run side by side,
// on the questions the host was asked.
func printHostTable(w io.Writer, d *evals.Dataset, configs []evals.Config, out evals.Outcome, meta evals.Meta, hostName string) {
	asked := map[string]bool{}
	for _, r := range out.Results {
		if r.Agent == hostName {
			asked[r.Question] = true
		}
	}
	var rs []evals.Result
	for _, r := range out.Results {
		if asked[r.Question] && r.Config == configs[0].Name && (r.Agent == "scripted" || r.Agent == hostName) {
			rs = append(rs, r)
		}
	}
	s := evals.Summarize(d, configs[:1], evals.Outcome{Results: rs, Ingest: out.Ingest}, meta)
	fmt.Fprintf(w, "\nIn process and through %s, on the same %d questions (latency: recall in process; the whole claude -p session through the host):\n", hostName, len(asked))
	printHeadline(w, s)
	printHostSame(w, rs)
}

// startHost serves the memory on the data dir's socket with the clock of
// the question being asked (Claude Code's agentmem relays to it), and
// returns the host agent.
func (c evalFlags) startHost(e *env, b *backend.Backend, cfg backend.Config) (evals.Host, func(), error) {
	am, err := c.agentmemBinary()
	if err != nil {
		return nil, nil, err
	}
	claude := c.Claude
	if claude == "" {
		if claude, err = host.InstallClaudeCode(e.ctx, c.PeerCache, func(f string, a ...any) { e.log.Info(fmt.Sprintf(f, a...)) }); err != nil {
			return nil, nil, err
		}
	}
	var clock atomic.Pointer[time.Time]
	clock.Store(&time.Time{})
	serveAt := b.ServerAt(cfg)
	newServer := func() *mcpserver.MCPServer {
		s, err := serveAt(*clock.Load())
		if err != nil {
			e.log.Error("host eval: building the server", "err", err)
		}
		return s
	}
	ln, err := server.ListenSocket(server.SocketPath(cfg.DataDir))
	if err != nil {
		return nil, nil, fmt.Errorf("--host: serving the data dir's socket: %w", err)
	}
	ctx, stop := context.WithCancel(e.ctx)
	go server.ServeSocketEach(ctx, ln, newServer, e.log)
	work, err := os.MkdirTemp("", "agentmem-eval-host")
	if err != nil {
		stop()
		return nil, nil, err
	}
	a, err := host.NewAgent(claude, am, cfg.DataDir, work, func(t time.Time) { clock.Store(&t) })
	if err != nil {
		stop()
		os.RemoveAll(work)
		return nil, nil, err
	}
	return a, func() { a.Close(); stop(); os.RemoveAll(work) }, nil
}

func (c evalFlags) agentmemBinary() (string, error) {
	if c.Agentmem != "" {
		return filepath.Abs(c.Agentmem)
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "agentmem")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath("agentmem")
	if err != nil {
		return "", fmt.Errorf("--host needs the agentmem binary (go install ./cmd/agentmem, or --agentmem PATH): %w", err)
	}
	return filepath.Abs(p)
}

// printHostSame says how often the host showed its model exactly the text
// the in-process recall returned.
func printHostSame(w io.Writer, rs []evals.Result) {
	same, n := 0, 0
	for _, r := range rs {
		if r.HostSame != nil {
			n++
			if *r.HostSame {
				same++
			}
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "  the host showed its model recall's text unchanged in %d of %d questions\n", same, n)
	}
}

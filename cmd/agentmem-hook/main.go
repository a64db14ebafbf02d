// Command agentmem-hook is agentmem's hooks for agent hosts, lean: it
// takes exactly the command line of `agentmem hook` (agentmem-hook
// [flags] hook claude-code|codex [options]) and does what it does, in a
// binary that links no store, no model and no MCP library, so that a
// host pays a few milliseconds per event instead of agentmem's start-up.
// It reaches the memory through a running server's socket; when none
// answers (or the command line has a flag it does not know), it runs
// agentmem itself (next to it, else on the PATH) with the same command
// line and stdin, which holds the store for the call.
//
// agentmem setup claude-code|codex registers it when it sits next to
// agentmem (go install ./cmd/agentmem ./cmd/agentmem-hook installs both).
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/alecthomas/kong"

	"agentmem/cmd/internal/config"
	"agentmem/cmd/internal/hook"
)

// cli is the part of agentmem's command line a hook uses. The store's
// and the embedder's flags setup may carry are accepted and left to the
// server (or to agentmem, when it runs the hook).
type cli struct {
	config.Base
	LogLevel string `name:"log-level" env:"AGENTMEM_LOG_LEVEL" default:"info" help:"Passed to agentmem when it runs the hook."`
	Embedder string `name:"embedder" env:"AGENTMEM_EMBEDDER" help:"Passed to agentmem when it runs the hook (a running server has its own)."`
	Store    string `name:"store" env:"AGENTMEM_STORE" help:"Passed to agentmem when it runs the hook (a running server has its own)."`
	// the embedder's and the reranker's flags setup carries, passed on
	// likewise
	OpenAIBaseURL      string `name:"openai-base-url" hidden:""`
	OpenAIModel        string `name:"openai-model" hidden:""`
	OpenAIDims         string `name:"openai-dims" hidden:""`
	RerankerURL        string `name:"reranker-url" hidden:""`
	RerankerModel      string `name:"reranker-model" hidden:""`
	RerankerAPI        string `name:"reranker-api" hidden:""`
	RerankerTimeout    string `name:"reranker-timeout" hidden:""`
	RerankerCandidates string `name:"reranker-candidates" hidden:""`

	Hook struct {
		ClaudeCode hook.Options `cmd:"" name:"claude-code" help:"Claude Code's hooks (see agentmem hook claude-code --help)."`
		Codex      hook.Options `cmd:"" name:"codex" help:"Codex CLI's hooks (see agentmem hook codex --help)."`
	} `cmd:"" help:"Run as an agent host's hook."`
}

// maxInput bounds what is read of stdin (the hook refuses more).
const maxInput = hook.MaxInput + 1

func main() {
	args := os.Args[1:]
	var c cli
	parser, err := kong.New(&c, kong.Name("agentmem-hook"), kong.Description("agentmem's hooks for agent hosts, without agentmem's start-up (see agentmem hook --help)."), kong.ExplicitGroups([]kong.Group{config.GlobalGroup}))
	if err != nil {
		panic(err) // the struct above is wrong
	}
	kc, err := parser.Parse(args)
	if err != nil { // a flag of agentmem's that this binary does not know
		fallback(args, os.Stdin)
		return
	}
	h := hook.Hook{Host: "claude-code", Options: c.Hook.ClaudeCode, Config: c.Base, Out: os.Stdout, Errs: os.Stderr}
	if kc.Command() == "hook codex" {
		h.Host, h.Options = "codex", c.Hook.Codex
	}
	raw, err := io.ReadAll(io.LimitReader(os.Stdin, maxInput))
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentmem hook %s: reading the hook's JSON on stdin: %v\n", h.Host, err)
		return
	}
	h.In = bytes.NewReader(raw)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if h.NeedsMemory(raw) {
		dir, err := c.Dir()
		if err != nil {
			fmt.Fprintf(os.Stderr, "agentmem hook %s: %v\n", h.Host, err)
			return
		}
		dctx, cancel := context.WithTimeout(ctx, h.Timeout)
		m, done, err := hook.DialSocket(dir)(dctx)
		if err != nil { // no server: agentmem holds the store for the call
			cancel()
			fallback(args, bytes.NewReader(raw))
			return
		}
		defer func() { done(); cancel() }()
		h.Connect = func(context.Context) (hook.Memory, func(), error) { return m, func() {}, nil }
	} else {
		h.Connect = func(context.Context) (hook.Memory, func(), error) {
			return nil, nil, fmt.Errorf("no memory for this event (a bug of agentmem-hook)")
		}
	}
	h.Run(ctx)
}

// fallback runs agentmem with the hook's command line and stdin, and its
// stdout and stderr; whatever happens, the hook exits 0.
func fallback(args []string, stdin io.Reader) {
	am, err := agentmem()
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentmem-hook: no agentmem server is running and %v: nothing done\n", err)
		return
	}
	cmd := exec.Command(am, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt, syscall.SIGTERM) // agentmem gets them too, and ends itself
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "agentmem-hook: %s: %v\n", am, err)
	}
}

// agentmem is the agentmem binary beside this one, or else on the PATH.
func agentmem() (string, error) {
	name := "agentmem"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no agentmem binary beside %s or on the PATH", os.Args[0])
	}
	return p, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"agentmem/memory/history/claudecode"
	"agentmem/memory/history/codex"
)

// agentmem hook codex: the hooks of Codex CLI (agentmem setup codex
// registers it in ~/.codex/hooks.json). Codex sends the same JSON as
// Claude Code (session_id, transcript_path, cwd, hook_event_name, prompt)
// and takes the same additionalContext output, so SessionStart and
// UserPromptSubmit are Claude Code's; capture reads Codex's rollout
// (memory/history/codex) with a cursor of its own. Like every hook, it
// never breaks its host: whatever fails, it says why on stderr and exits 0.

type codexHookCmd struct {
	hookOptions
	in  io.Reader
	out io.Writer
}

func (c codexHookCmd) Run(e *env) error {
	if c.in == nil {
		c.in, c.out = os.Stdin, os.Stdout
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "agentmem hook codex: internal error (%v); the host goes on\n%s", p, debug.Stack())
		}
	}()
	ctx, cancel := context.WithTimeout(e.ctx, c.Timeout)
	defer cancel()
	if err := c.run(ctx, e); err != nil {
		fmt.Fprintf(os.Stderr, "agentmem hook codex: %v\n", err)
	}
	return nil // never fail the host
}

func (c codexHookCmd) run(ctx context.Context, e *env) error {
	in, err := readHookInput(c.in)
	if err != nil {
		return err
	}
	// the session's project is the cwd of its first capture (the model
	// may have gone to a subdirectory since): its namespace with
	// --per-project
	in.CWD = sessionCWD(e, "codex", in.SessionID, in.CWD)
	shared := claudeHookCmd{hookOptions: c.hookOptions, in: c.in, out: c.out, errs: os.Stderr}
	switch in.Event {
	case "SessionStart":
		return shared.sessionStart(ctx, e, in)
	case "UserPromptSubmit":
		if !c.AutoRecall {
			return nil
		}
		return shared.promptSubmit(ctx, e, in)
	case "Stop", "PreCompact", "SessionEnd":
		return c.capture(ctx, e, in)
	case "":
		return errors.New("the hook's JSON has no hook_event_name")
	}
	return nil // an event this hook does not use
}

// capture stores the rollout's turns not stored yet.
func (c codexHookCmd) capture(ctx context.Context, e *env, in hookInput) error {
	if in.TranscriptPath == "" {
		return errors.New("the hook's JSON has no transcript_path (Codex runs without a rollout with --ephemeral: nothing to capture)")
	}
	return captureNew(ctx, e, c.hookOptions, in, "codex", func(data []byte, before int) ([]claudecode.Turn, int) {
		res := codex.Parse(data, false)
		reportBadRollout(in.TranscriptPath, before, res)
		return res.Turns, res.Consumed
	})
}

// reportBadRollout says on stderr which lines were not JSON; a file in
// which no line is one is not a rollout.
func reportBadRollout(path string, before int, res codex.Result) {
	n := len(res.Bad)
	if n == 0 {
		return
	}
	if n == res.Lines {
		fmt.Fprintf(os.Stderr, "agentmem hook codex: %s is not a Codex rollout (no line is JSON); nothing stored\n", path)
		return
	}
	lines := make([]string, 0, min(n, 5))
	for _, b := range res.Bad[:min(n, 5)] {
		lines = append(lines, fmt.Sprint(before+b))
	}
	what := "line(s) " + strings.Join(lines, ", ")
	if n > 5 {
		what += fmt.Sprintf(" and %d more", n-5)
	}
	fmt.Fprintf(os.Stderr, "agentmem hook codex: %s: %s not JSON, left out; the other turns are stored\n", path, what)
}

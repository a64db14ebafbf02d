package main

import (
	"cmp"
	"context"
	"io"
	"os"

	"agentmem/cmd/internal/hook"
)

// The hooks of agent hosts: `agentmem hook claude-code`, which Claude Code
// runs on its SessionStart, UserPromptSubmit, Stop, PreCompact and
// SessionEnd events, and `agentmem hook codex` (agentmem setup registers
// them). What they do is package cmd/internal/hook's; here they reach the
// memory through a running server's socket, or hold the store themselves
// when no server runs. The lean binary agentmem-hook runs the same code
// with the same command line. A hook must never break its host: whatever
// fails, it says why on stderr and exits 0.

type hookCmd struct {
	ClaudeCode claudeHookCmd `cmd:"" name:"claude-code" help:"Claude Code's hooks: capture the session's turns (Stop, PreCompact, SessionEnd), give the model the date (SessionStart) and, with --auto-recall, the memories relevant to each prompt (UserPromptSubmit). Reads the hook's JSON on stdin; always exits 0."`
	Codex      codexHookCmd  `cmd:"" name:"codex" help:"Codex CLI's hooks: capture the session's turns from its rollout (Stop, PreCompact, SessionEnd), give the model the date (SessionStart) and, with --auto-recall, the memories relevant to each prompt (UserPromptSubmit). Reads the hook's JSON on stdin; always exits 0."`
}

// hookOptions are the choices a hook is registered with.
type hookOptions = hook.Options

type claudeHookCmd struct {
	hookOptions
	// in, out and errs are the hook's stdin, stdout and stderr (tests set
	// them).
	in        io.Reader
	out, errs io.Writer
}

func (c claudeHookCmd) Run(e *env) error {
	newHook(e, "claude-code", c.hookOptions, c.in, c.out, c.errs).Run(e.ctx)
	return nil // never fail the host
}

// agentmem hook codex: Codex sends the same JSON as Claude Code
// (session_id, transcript_path, cwd, hook_event_name, prompt) and takes
// the same additionalContext output; capture reads its rollout
// (memory/history/codex) with a cursor of its own.
type codexHookCmd struct {
	hookOptions
	in  io.Reader
	out io.Writer
}

func (c codexHookCmd) Run(e *env) error {
	newHook(e, "codex", c.hookOptions, c.in, c.out, nil).Run(e.ctx)
	return nil // never fail the host
}

// newHook is a host's hook over e's memory: the running server's, or the
// store itself when none runs.
func newHook(e *env, host string, o hookOptions, in io.Reader, out, errs io.Writer) hook.Hook {
	return hook.Hook{
		Host: host, Options: o, Config: e.cfg.Base,
		In: cmp.Or[io.Reader](in, os.Stdin), Out: cmp.Or[io.Writer](out, os.Stdout), Errs: cmp.Or[io.Writer](errs, os.Stderr),
		Connect: func(ctx context.Context) (hook.Memory, func(), error) {
			// everything the hook does, the wait for the memory included,
			// ends with --timeout
			cl, done, err := connect(&env{ctx: ctx, cfg: e.cfg, log: e.log}, false)
			if err != nil {
				return nil, nil, err
			}
			return cl, done, nil
		},
	}
}

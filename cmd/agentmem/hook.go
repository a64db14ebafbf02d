package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// The hooks of agent hosts: `agentmem hook claude-code`, which Claude Code
// runs on its SessionStart, UserPromptSubmit, Stop, PreCompact and
// SessionEnd events (agentmem setup claude-code registers it). A hook must
// never break its host: whatever fails, it says why on stderr and exits 0.

type hookCmd struct {
	ClaudeCode claudeHookCmd `cmd:"" name:"claude-code" help:"Claude Code's hooks: capture the session's turns (Stop, PreCompact, SessionEnd), give the model the date (SessionStart) and, with --auto-recall, the memories relevant to each prompt (UserPromptSubmit). Reads the hook's JSON on stdin; always exits 0."`
	Codex      codexHookCmd  `cmd:"" name:"codex" help:"Codex CLI's hooks: capture the session's turns from its rollout (Stop, PreCompact, SessionEnd), give the model the date (SessionStart) and, with --auto-recall, the memories relevant to each prompt (UserPromptSubmit). Reads the hook's JSON on stdin; always exits 0."`
}

// hookOptions are the choices a hook is registered with.
type hookOptions struct {
	PerProject   bool          `name:"per-project" help:"One namespace per project (Claude Code's cwd), instead of --namespace."`
	AutoRecall   bool          `name:"auto-recall" help:"On UserPromptSubmit, recall with the prompt and give the model the memories above the relevance floor, within --recall-tokens."`
	RecallTokens int           `name:"recall-tokens" default:"800" help:"Token budget of what --auto-recall adds to a prompt."`
	StartTokens  int           `name:"start-tokens" default:"0" help:"On SessionStart, also give the model the project's most relevant memories within this many tokens (0: the date only)."`
	Timeout      time.Duration `name:"timeout" default:"30s" help:"Give up (and say why on stderr) after this long."`
}

type claudeHookCmd struct {
	hookOptions
	// in, out and errs are the hook's stdin, stdout and stderr (tests set
	// them).
	in        io.Reader
	out, errs io.Writer
}

// hookInput is the JSON Claude Code sends every hook on stdin.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
	Source         string `json:"source"`
}

// maxHookInput bounds the hook's stdin (a prompt is at most a few MB).
const maxHookInput = 16 << 20

func (c claudeHookCmd) Run(e *env) error {
	c.in, c.out, c.errs = cmp.Or[io.Reader](c.in, os.Stdin), cmp.Or[io.Writer](c.out, os.Stdout), cmp.Or[io.Writer](c.errs, os.Stderr)
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(c.errs, "agentmem hook: internal error (%v); the host goes on\n%s", p, debug.Stack())
		}
	}()
	ctx, cancel := context.WithTimeout(e.ctx, c.Timeout)
	defer cancel()
	// everything the hook does, the wait for the memory included, ends
	// with --timeout
	he := &env{ctx: ctx, cfg: e.cfg, log: e.log}
	if err := c.run(ctx, he); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("gave up after --timeout %s: %w", c.Timeout, err)
		}
		fmt.Fprintf(c.errs, "agentmem hook claude-code: %v\n", err)
	}
	return nil // never fail the host
}

func (c claudeHookCmd) run(ctx context.Context, e *env) error {
	in, err := readHookInput(c.in)
	if err != nil {
		return err
	}
	switch in.Event {
	case "SessionStart":
		return c.sessionStart(ctx, e, in)
	case "UserPromptSubmit":
		if !c.AutoRecall {
			return nil
		}
		return c.promptSubmit(ctx, e, in)
	case "Stop", "PreCompact", "SessionEnd", "SubagentStop":
		return c.capture(ctx, e, in)
	case "":
		return errors.New("the hook's JSON has no hook_event_name")
	}
	return nil // an event this hook does not use
}

func readHookInput(r io.Reader) (hookInput, error) {
	var in hookInput
	raw, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook's JSON on stdin: %w", err)
	}
	if len(raw) > maxHookInput {
		return in, fmt.Errorf("the hook's JSON on stdin is over %d MiB", maxHookInput>>20)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("the hook's stdin is not JSON (%v): %.80q", err, raw)
	}
	return in, nil
}

// namespace is where the hook stores and recalls: --namespace, or with
// --per-project one namespace per project directory.
func (o hookOptions) namespace(e *env, cwd string) string {
	if !o.PerProject || cwd == "" {
		return e.cfg.Namespace
	}
	return projectNamespace(cwd)
}

// capturedNote tells the model that its conversation reaches the memory
// without it: the server's instructions ask a model to call remember at
// the end of each exchange, which here would store every turn twice (once
// more under a session of the model's own, in its own words).
const capturedNote = "agentmem's hooks store this conversation verbatim as it goes: do not call agentmem's remember tool for it. Call recall before answering anything that may depend on earlier sessions."

// sessionStart gives the model the date and, with --start-tokens, the
// project's most relevant memories.
func (c claudeHookCmd) sessionStart(ctx context.Context, e *env, in hookInput) error {
	loc, now, err := e.cfg.Clock()
	if err != nil {
		return err
	}
	text := memory.TodayAt(now().In(loc)).Text() + ".\n\n" + capturedNote
	if c.PerProject && in.CWD != "" {
		ns := c.namespace(e, sessionCWD(e, "claude-code", in.SessionID, in.CWD))
		text += fmt.Sprintf(" This project's memories are in namespace %q: pass \"namespace\": %q to every agentmem tool call.", ns, ns)
	}
	if c.StartTokens > 0 && in.CWD != "" {
		if mem, err := c.recallFor(ctx, e, in, projectName(in.CWD), c.StartTokens); err != nil {
			fmt.Fprintf(cmp.Or[io.Writer](c.errs, os.Stderr), "agentmem hook claude-code: SessionStart recall: %v\n", err)
		} else if mem != "" {
			text += "\n\nMemories of earlier sessions of this project (agentmem):\n" + mem
		}
	}
	return hookContext(c.out, in.Event, text)
}

// promptSubmit recalls with the prompt and gives the model what is
// relevant, within the budget.
func (c claudeHookCmd) promptSubmit(ctx context.Context, e *env, in hookInput) error {
	q := strings.TrimSpace(in.Prompt)
	if q == "" {
		return nil
	}
	mem, err := c.recallFor(ctx, e, in, q, c.RecallTokens)
	if err != nil || mem == "" {
		return err
	}
	return hookContext(c.out, in.Event, "Memories that may bear on this prompt (agentmem recall; each session headed by its date):\n"+mem)
}

// hookContext writes text as the hook's additional context for the model.
func hookContext(w io.Writer, event, text string) error {
	out := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}
	return json.NewEncoder(w).Encode(out)
}

// The relevance floor every memory a hook gives the model must clear: a
// match of the text side among its 10 best (a word or name of the query,
// stop words aside), and at least half the best memory's fused score.
// Below, a memory adds tokens to every prompt without bearing on it (one
// shared word brought whole unrelated sessions). The floor is relative
// because fused scores have no fixed scale across fusion modes (reciprocal
// ranks by default, BM25 alone without vectors).
const floorTextRank = 10

// relevant counts the memories found (not context) that clear the floor;
// they are the best ranked, since recall ranks by score.
func relevant(ms []spec.Recalled) int {
	best := 0.0
	for _, m := range ms {
		if m.Hit {
			best = max(best, m.Score)
		}
	}
	n := 0
	for _, m := range ms {
		if m.Hit && m.TextRank > 0 && m.TextRank <= floorTextRank && m.Score >= best/2 {
			n++
		}
	}
	return n
}

// recallFor recalls query in the hook's namespace within tokens, and
// returns the text for the model, or "" when nothing clears the floor:
// a first recall ranks, a second returns the memories that clear it,
// whole, and no others.
func (c claudeHookCmd) recallFor(ctx context.Context, e *env, in hookInput, query string, tokens int) (string, error) {
	if r := []rune(query); len(r) > memory.MaxQueryChars {
		query = string(r[:memory.MaxQueryChars])
	}
	cl, done, err := connect(e)
	if err != nil {
		return "", err
	}
	defer done()
	args := spec.RecallArgs{Query: query, Namespace: c.namespace(e, sessionCWD(e, "claude-code", in.SessionID, in.CWD)), MaxTokens: tokens}
	res, _, err := cl.Recall(ctx, args)
	if err != nil || len(res.Memories) == 0 {
		return "", err
	}
	n := relevant(res.Memories)
	if n == 0 {
		return "", nil
	}
	whole := 0
	args.K, args.Excerpt = n, &whole
	return cl.RecallText(ctx, args)
}

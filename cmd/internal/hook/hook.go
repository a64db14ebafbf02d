// Package hook is the hooks of agent hosts (Claude Code, Codex CLI): the
// host runs one process per event, with the event's JSON on stdin.
// SessionStart gives the model the date, UserPromptSubmit (opt-in) the
// memories relevant to the prompt, and Stop, PreCompact and SessionEnd
// store the transcript's turns not stored yet (capture.go).
//
// Both `agentmem hook` and the lean `agentmem-hook` binary run it. The
// package depends on nothing heavy (no store, no model, no MCP library):
// it reaches the memory through Hook.Connect, which agentmem backs with
// its MCP client (a running server's socket, or a store it holds itself)
// and agentmem-hook with DialSocket, a minimal client of a running
// server's socket. A hook must never break its host: whatever fails, it
// says why on stderr and exits 0.
package hook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"agentmem/cmd/internal/config"
	"agentmem/memory"
	"agentmem/memory/history/claudecode"
	"agentmem/tools/spec"
)

// Options are the choices a hook is registered with.
type Options struct {
	PerProject   bool          `name:"per-project" help:"One namespace per project (Claude Code's cwd), instead of --namespace."`
	AutoRecall   bool          `name:"auto-recall" help:"On UserPromptSubmit, recall with the prompt and give the model the memories above the relevance floor, within --recall-tokens."`
	RecallTokens int           `name:"recall-tokens" default:"800" help:"Token budget of what --auto-recall adds to a prompt."`
	StartTokens  int           `name:"start-tokens" default:"0" help:"On SessionStart, also give the model the memories of earlier sessions that best match the project directory's name, within this many tokens (0: the date only)."`
	Timeout      time.Duration `name:"timeout" default:"30s" help:"Give up (and say why on stderr) after this long."`
}

// Memory is what a hook asks of the memory: agentmem's tools, as the
// typed MCP client (tools/client) has them.
type Memory interface {
	Remember(context.Context, spec.RememberArgs) (spec.RememberResult, string, error)
	Recall(context.Context, spec.RecallArgs) (spec.RecallResult, string, error)
}

// Hook is one run of a host's hook.
type Hook struct {
	Host string // "claude-code" or "codex"
	Options
	Config config.Base
	// Connect opens the memory; done releases it.
	Connect func(ctx context.Context) (m Memory, done func(), err error)
	In      io.Reader
	Out     io.Writer
	Errs    io.Writer
	// found, once NeedsMemory has looked, are the sessions its sweep
	// captures: the cursors are read once a start, not twice
	found *[]unread
}

// Input is the JSON a host sends every hook on stdin.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
	// compacted: the session's cursor says its context was compacted;
	// given, the memories its auto-recall gave since (Cursor)
	compacted bool
	given     []string
}

// MaxInput bounds the hook's stdin (a prompt is at most a few MB).
const MaxInput = 16 << 20

// Run runs the hook within --timeout and never fails: whatever goes
// wrong, it says why on Errs.
func (h Hook) Run(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(h.Errs, "agentmem hook %s: internal error (%v); the host goes on\n%s", h.Host, p, debug.Stack())
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	if err := h.Handle(ctx); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("gave up after --timeout %s: %w", h.Timeout, err)
		}
		fmt.Fprintf(h.Errs, "agentmem hook %s: %v\n", h.Host, err)
	}
}

// Handle reads the event on In and does what it asks.
func (h Hook) Handle(ctx context.Context) error {
	in, err := ReadInput(h.In)
	if err != nil {
		return err
	}
	// the session's project is the cwd of its first capture (the model
	// may have gone to a subdirectory since): its namespace with
	// --per-project
	cur := h.readCursor(in.SessionID)
	in.CWD, in.compacted, in.given = cmp.Or(cur.CWD, in.CWD), cur.Compacted, cur.Given
	switch in.Event {
	case "SessionStart":
		return h.sessionStart(ctx, in)
	case "UserPromptSubmit":
		if !h.AutoRecall {
			return nil
		}
		return h.promptSubmit(ctx, in)
	case "Stop", "PreCompact", "SessionEnd", "SubagentStop":
		if h.Host == "codex" && in.Event == "SubagentStop" {
			return nil
		}
		return h.capture(ctx, in)
	case "":
		return errors.New("the hook's JSON has no hook_event_name")
	}
	return nil // an event this hook does not use
}

// NeedsMemory says whether the event in (raw, the hook's stdin) needs
// the memory, or only the clock: agentmem-hook dials the server only
// when it does. Input that cannot be read needs none (Handle says why).
// A SessionStart needs it to give memories (--start-tokens) or to
// capture a session that ended without its hooks (sweep).
func (h *Hook) NeedsMemory(raw []byte) bool {
	var in Input
	if json.Unmarshal(raw, &in) != nil {
		return false
	}
	o := h.Options
	switch in.Event {
	case "SessionStart":
		found := h.unreadSessions(in.SessionID)
		h.found = &found
		return o.StartTokens > 0 && in.CWD != "" || len(found) > 0
	case "UserPromptSubmit":
		return o.AutoRecall && strings.TrimSpace(in.Prompt) != ""
	case "Stop", "PreCompact", "SessionEnd", "SubagentStop":
		return true
	}
	return false
}

// ReadInput reads the hook's JSON.
func ReadInput(r io.Reader) (Input, error) {
	var in Input
	raw, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook's JSON on stdin: %w", err)
	}
	if len(raw) > MaxInput {
		return in, fmt.Errorf("the hook's JSON on stdin is over %d MiB", MaxInput>>20)
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("the hook's stdin is not JSON (%v): %.80q", err, raw)
	}
	return in, nil
}

// Namespace is where a hook stores and recalls: def (--namespace), or
// with --per-project one namespace per project directory.
func (o Options) Namespace(def, cwd string) string {
	if !o.PerProject || cwd == "" {
		return def
	}
	return ProjectNamespace(cwd)
}

// CapturedNote tells the model that its conversation reaches the memory
// without it: the server's instructions ask a model to call remember at
// the end of each exchange, which here would store every turn twice (once
// more under a session of the model's own, in its own words).
const CapturedNote = "agentmem's hooks store this conversation verbatim as it goes: do not call agentmem's remember tool for it. Call recall before answering anything that may depend on earlier sessions."

// ExcludeNote tells the model the id of the session it is in, for
// recall's exclude_session: the session's turns are stored as it goes,
// and as the best matches of what it is about they would fill recall's
// answers with what the model has in its context. The whole id: a UUIDv7
// (Codex's) shares its first characters with the sessions begun in the
// same minute.
func ExcludeNote(session string) string {
	return fmt.Sprintf(" Pass \"exclude_session\": %q to recall: it then returns earlier sessions, not this conversation, which you have.", session)
}

// sessionStart gives the model the date and, with --start-tokens, the
// memories of earlier sessions that best match the project's name.
func (h Hook) sessionStart(ctx context.Context, in Input) error {
	loc, now, err := h.Config.Clock()
	if err != nil {
		return err
	}
	text := memory.TodayAt(now().In(loc)).Text() + ".\n\n" + CapturedNote
	if ValidSession(in.SessionID) {
		text += ExcludeNote(in.SessionID)
	}
	if h.PerProject && in.CWD != "" {
		ns := h.Namespace(h.Config.Namespace, in.CWD)
		text += fmt.Sprintf(" This project's memories are in namespace %q: pass \"namespace\": %q to every agentmem tool call.", ns, ns)
	}
	var given []string
	if h.StartTokens > 0 && in.CWD != "" {
		if mem, ids, err := h.recallFor(ctx, in, ProjectName(in.CWD), h.StartTokens, nil); err != nil {
			fmt.Fprintf(h.Errs, "agentmem hook %s: SessionStart recall: %v\n", h.Host, err)
		} else if mem != "" {
			// the date is said above already
			if first, rest, ok := strings.Cut(mem, "\n\n"); ok && strings.HasPrefix(first, "Today is ") {
				mem = rest
			}
			text += "\n\nMemories of earlier sessions of this project that name it (agentmem):\n" + mem
			given = ids
		}
	}
	if err := hookContext(h.Out, in.Event, text); err != nil {
		return err
	}
	h.noteGiven(ctx, in.SessionID, given)
	if err := h.register(ctx, in); err != nil {
		fmt.Fprintf(h.Errs, "agentmem hook %s: noting the session's transcript: %v\n", h.Host, err)
	}
	h.sweep(ctx, in.SessionID)
	return nil
}

// promptSubmit recalls with the prompt and gives the model what is
// relevant, within the budget.
func (h Hook) promptSubmit(ctx context.Context, in Input) error {
	q := strings.TrimSpace(in.Prompt)
	if claudecode.NotSaid(q) != "" {
		// not the user's words (a background task's notification, a
		// slash command's wrapper), which the capture leaves out too
		return nil
	}
	// the memories an earlier prompt of the session gave are in the
	// model's context: given again only with new ones
	given := func(ids []string) bool {
		for _, id := range ids {
			if !slices.Contains(in.given, id) {
				return false
			}
		}
		return true
	}
	mem, ids, err := h.recallFor(ctx, in, q, h.RecallTokens, given)
	if err != nil || mem == "" {
		return err
	}
	if err := hookContext(h.Out, in.Event, "Memories that may bear on this prompt (agentmem recall; each session headed by its date):\n"+mem); err != nil {
		return err
	}
	h.noteGiven(ctx, in.SessionID, ids)
	return nil
}

// noteGiven notes ids as given to the session's model, in the session's
// cursor (the latest maxGiven): the same memories are not given again at
// every prompt that matches them, until the host compacts the context
// they were given in (capture forgets them then).
func (h Hook) noteGiven(ctx context.Context, session string, ids []string) {
	if len(ids) == 0 || !ValidSession(session) {
		return
	}
	if err := h.note(ctx, session, ids); err != nil {
		fmt.Fprintf(h.Errs, "agentmem hook %s: noting the memories given: %v\n", h.Host, err)
	}
}

// note adds ids to the session's cursor's Given (noteGiven).
func (h Hook) note(ctx context.Context, session string, ids []string) error {
	dir, err := h.Config.Prepare()
	if err != nil {
		return err
	}
	return updateCursor(ctx, dir, h.Host, session, func(cur *Cursor) bool {
		// the latest last: an id given again moves there
		cur.Given = append(slices.DeleteFunc(cur.Given, func(id string) bool { return slices.Contains(ids, id) }), ids...)
		cur.Given = cur.Given[max(0, len(cur.Given)-maxGiven):]
		return true
	})
}

// maxGiven bounds the ids a cursor keeps of the memories given (the
// latest).
const maxGiven = 500

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

// relevant is the ids of the best memories found (not context) that clear
// the floor, best first, up to the first that does not: the second recall
// returns the n best, so a memory below the floor ranked above one that
// clears it (a vector match sharing no word with the prompt) must end the
// count, or it would be shown in place of the last one. Memories of equal
// score are taken in the order the server gives them (memory.TieOrder;
// with a reranker, the fused order), which the second recall keeps. A
// reranker's scores have the model's own scale, logits below zero
// included: with one, half the best is measured from the worst memory
// found, not from 0.
func relevant(ms []spec.Recalled) []string {
	var hits []spec.Recalled
	best, worst, reranked := math.Inf(-1), math.Inf(1), false
	for _, m := range ms {
		if m.Hit {
			hits = append(hits, m)
			best, worst = max(best, m.Score), min(worst, m.Score)
			reranked = reranked || m.FusedRank > 0
		}
	}
	floor := best / 2
	if reranked {
		floor = worst + (best-worst)/2
	}
	// the list comes in passage order; the n best are by score
	slices.SortStableFunc(hits, func(a, b spec.Recalled) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if reranked { // the reranker keeps the fused order for a tie
			return cmp.Compare(a.FusedRank, b.FusedRank)
		}
		return memory.TieOrder(a.TextRank, a.VectorRank, b.TextRank, b.VectorRank)
	})
	clears := func(m spec.Recalled) bool {
		return m.TextRank > 0 && m.TextRank <= floorTextRank && m.Score >= floor
	}
	n := 0
	for n < len(hits) && clears(hits[n]) {
		n++
	}
	ids := make([]string, n)
	for i, m := range hits[:n] {
		ids[i] = m.ID
	}
	return ids
}

// recallFor recalls query in the hook's namespace, but for the session
// the model is in, matching words and names only (no kinds: the floor asks
// for a word or name in common), and
// returns the text for the model within tokens, or "" when nothing clears
// the floor or given (when not nil) says the model was given them all: a first recall ranks, a second returns the best memories
// that clear it (relevant), whole, and no others.
func (h Hook) recallFor(ctx context.Context, in Input, query string, tokens int, given func(ids []string) bool) (text string, ids []string, err error) {
	if r := []rune(query); len(r) > memory.MaxQueryChars {
		query = string(r[:memory.MaxQueryChars])
	}
	cl, done, err := h.Connect(ctx)
	if err != nil {
		return "", nil, err
	}
	defer done()
	// kinds off: a memory is given unasked only for a word or name it
	// shares with the prompt ("which dog" does not bring the retriever);
	// the learned order off: the floor is half the best fused score, as
	// measured, and a model's chance is another scale; k the default the
	// floor was measured at, whatever the history's size
	args := spec.RecallArgs{Query: query, Namespace: h.Namespace(h.Config.Namespace, in.CWD), K: memory.DefaultK,
		Weights: &spec.Weights{Kinds: new(0.0), Learned: new(0.0)}}
	if ValidSession(in.SessionID) && !in.compacted {
		// the session the model is in: its turns are in its context
		// already, and as the best matches they would raise the floor
		// past the earlier sessions' answer (once the host compacted
		// the context, its early turns are not: then it is searched)
		args.ExcludeSession = in.SessionID
	}
	// without the budget: relevant must see every one of the best k, or
	// a memory below the floor that the budget left out would be missed
	// there and returned by the second recall
	res, _, err := cl.Recall(ctx, args)
	if err != nil || len(res.Memories) == 0 {
		return "", nil, err
	}
	ids = relevant(res.Memories)
	if len(ids) == 0 || (given != nil && given(ids)) {
		return "", nil, nil
	}
	args.K, args.Excerpt, args.MaxTokens = len(ids), new(0), tokens // excerpt 0: the memories whole
	shown, text, err := cl.Recall(ctx, args)
	if err != nil {
		return "", nil, err
	}
	ids = ids[:0] // those the budget kept
	for _, m := range shown.Memories {
		if m.Hit {
			ids = append(ids, m.ID)
		}
	}
	return text, ids, nil
}

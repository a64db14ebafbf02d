package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"agentmem/cmd/internal/hook"
	"agentmem/memory"
	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// The shell commands call the tools through the typed MCP client, in
// process (or over the socket of a running server), so a person trying the
// memory from a shell runs exactly what an agent runs.

type output struct {
	JSON bool `name:"json" help:"Print the structured result as JSON instead of text."`
}

// print shows a tool's result: its text, or its structured content as JSON.
func (o output) print(structured any, text string) error {
	if o.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(structured)
	}
	fmt.Println(text)
	return nil
}

// cliName is how the shell commands (and the hooks) introduce themselves
// to the server.
var cliName = client.WithName("agentmem-cli")

// attachTimeout bounds how long a command waits for the server that holds
// the data dir to answer its handshake.
var attachTimeout = 10 * time.Second

// connect connects to the server that holds the data dir (over its
// socket), or, when none does, holds the memory in this process for the
// command's duration. A shell command warns when it relays (see
// warnRelayed); a hook does not: it must stay quiet.
func connect(e *env, shell bool) (*client.Client, func(), error) {
	return attach(e, shell, asCommand)
}

// attach is connect, holding the memory in the given mode when no other
// process does.
func attach(e *env, shell bool, mode holdMode) (*client.Client, func(), error) {
	dir, err := e.cfg.Dir()
	if err != nil {
		return nil, nil, err
	}
	sock := server.SocketPath(dir)
	conn, h, err := server.Attach(e.ctx, sock, hold(e, dir, sock, mode), server.AttachWait, e.log)
	if err != nil {
		return nil, nil, err
	}
	if conn != nil {
		if shell {
			warnRelayed(e, os.Args[1:])
		}
		return relayed(e, dir, sock, conn, mode)
	}
	hd := h.(*holder)
	c, err := client.InProcess(e.ctx, server.New(hd.eng.Service, server.Options{Version: version, Logger: e.log}), cliName)
	if err != nil {
		hd.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); hd.Close() }, nil
}

// memoryFlags are the global flags that configure the memory itself (its
// clock, store, embedder, fusion, reranker), by name or, ending in -, by
// prefix: a command relayed to the server that holds the data dir runs
// with that server's.
var memoryFlags = []string{"now", "timezone", "embedder", "store", "fusion", "no-sync", "text-cache", "openai-", "reranker-", "couchbase-"}

// warnRelayed warns, naming them, that the flags of args that configure
// the memory do not apply to a command relayed to another process.
func warnRelayed(e *env, args []string) {
	var given []string
	for _, a := range args {
		if a == "--" {
			break
		}
		name, ok := strings.CutPrefix(a, "--")
		name, _, _ = strings.Cut(name, "=")
		if ok && !slices.Contains(given, "--"+name) && slices.ContainsFunc(memoryFlags, func(f string) bool { return name == f || strings.HasSuffix(f, "-") && strings.HasPrefix(name, f) }) {
			given = append(given, "--"+name)
		}
	}
	if len(given) > 0 {
		e.log.Warn("another agentmem process holds the data dir: this command runs in it, with its settings, and ignores " + strings.Join(given, ", ") + " (give them to that server, or stop it)")
	}
}

// withClient runs fn with a client of e's memory (see connect).
func withClient(e *env, fn func(*client.Client) error) error {
	cl, done, err := connect(e, true)
	if err != nil {
		return err
	}
	defer done()
	return fn(cl)
}

// callTool calls a tool of e's memory (a method of client.Client) with
// args, and prints its result.
func callTool[A, R any](e *env, o output, tool func(*client.Client, context.Context, A) (R, string, error), args A) error {
	return withClient(e, func(cl *client.Client) error {
		res, text, err := tool(cl, e.ctx, args)
		if err != nil {
			return err
		}
		return o.print(res, text)
	})
}

type rememberCmd struct {
	output
	Text        []string `arg:"" optional:"" help:"Turns to store, one per argument, all with --role. Or give --file."`
	File        string   `name:"file" short:"f" placeholder:"PATH" help:"Read the remember tool's JSON arguments ({\"messages\": [...], ...}) or a bare messages array from PATH (- for stdin), checked as the tool checks them."`
	Role        string   `name:"role" default:"user" help:"Role of the turns given as arguments."`
	Speaker     string   `name:"speaker" help:"Speaker of the turns given as arguments."`
	SessionID   *string  `name:"session-id" help:"Session id (generated from the content when absent); the start of a UUID id as recall shows it adds to that session."`
	SessionDate string   `name:"session-date" help:"Session date (ISO 8601 or e.g. '1:56 pm on 8 May, 2023'; default now)."`
	NS          string   `name:"ns" help:"Namespace of this call (default --namespace)."`
}

func (c rememberCmd) Run(e *env) error {
	var args spec.RememberArgs
	switch {
	case c.File != "" && len(c.Text) > 0:
		return errors.New("give turns as arguments or --file, not both")
	case c.File != "":
		var err error
		if args, err = readRememberArgs(c.File); err != nil {
			return err
		}
	case len(c.Text) > 0:
		for _, t := range c.Text {
			args.Messages = append(args.Messages, spec.Message{Role: c.Role, Content: t, Speaker: c.Speaker})
		}
	default:
		return errors.New("nothing to remember: give turns as arguments or --file")
	}
	session := ""
	if c.SessionID != nil {
		// given empty is not left out: the tool refuses an empty session_id
		if session = *c.SessionID; strings.TrimSpace(session) == "" {
			return errors.New("--session-id must not be empty: leave it out for an id made from the content")
		}
	}
	// a flag fills in what the file leaves out; one that says otherwise
	// than the file is an error, not a silent choice of one of them
	for _, f := range []struct {
		flag, given string
		file        *string
	}{{"--session-id", session, &args.SessionID}, {"--session-date", c.SessionDate, &args.SessionDate}, {"--ns", c.NS, &args.Namespace}} {
		if f.given != "" && *f.file != "" && *f.file != f.given {
			return fmt.Errorf("%s %q and the file's %q differ: give one of them", f.flag, f.given, *f.file)
		}
		*f.file = cmp.Or(*f.file, f.given)
	}
	// named in the call, so that a relayed server uses it too
	args.Namespace = cmp.Or(args.Namespace, e.cfg.Namespace)
	return callTool(e, c.output, (*client.Client).Remember, args)
}

// readRememberArgs reads the remember tool's arguments, or a bare messages
// array, from path (- for stdin), checked as the tool checks them: an
// unknown or misspelt argument is an error naming it.
func readRememberArgs(path string) (spec.RememberArgs, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return spec.RememberArgs{}, err
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return spec.RememberArgs{}, err
	}
	if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
		return spec.RememberArgs{}, fmt.Errorf("%s:%s not JSON: %w", path, where(raw, err), err)
	}
	if t := bytes.TrimSpace(raw); bytes.HasPrefix(t, []byte("[")) {
		raw = slices.Concat([]byte(`{"messages":`), t, []byte("}"))
	}
	args, err := spec.Decode[spec.RememberArgs](json.RawMessage(raw))
	if err != nil {
		return args, fmt.Errorf("%s: invalid argument %w", path, err)
	}
	return args, nil
}

// where is the line and column of a JSON syntax error in raw ("3:14:"),
// or "" when err gives no offset (a file cut short ends where it ends).
func where(raw []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 || se.Offset > int64(len(raw)) {
		return ""
	}
	before := raw[:se.Offset-1]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("%d:%d:", line, col)
}

type recallCmd struct {
	output
	Query     string `arg:"" help:"What to recall."`
	K         *int   `name:"k" short:"k" help:"About how many memories (default: from the size of the history, 10 up to 1,000 memories, at most 20; with excerpts, the default, the space the best take is filled, and --budget sets it)."`
	NS        string `name:"ns" help:"Namespace of this call (default --namespace)."`
	SessionID string `name:"session-id" help:"Only this session: its id, or the start of a UUID id as recall shows it."`
	Exclude   string `name:"exclude-session" help:"Leave out this session: its id, or the start of a UUID id as recall shows it."`
	After     string `name:"after" help:"Only sessions on or after this date."`
	Before    string `name:"before" help:"Only sessions on or before this date."`
	Order     string `name:"order" enum:"relevance,chronological,recency" default:"relevance" help:"Order of the results: relevance, chronological or recency."`
	Excerpt   *int   `name:"excerpt" help:"Show a memory longer than about this many tokens as its best-matching part, and fill the space saved with more memories (default 40; 0: exactly k memories, whole). --json gives a long memory as that part too (excerpt: true)."`
	Context   int    `name:"context" help:"Neighbouring turns of its session with each memory, on each side (0-3)."`
	MaxTokens int    `name:"max-tokens" help:"An approximate budget for the returned text."`
	NoRerank  bool   `name:"no-reranker" help:"Keep the fused order: the server's reranker (--reranker-url) does not order the memories."`
	Budget    string `name:"budget" help:"The space a recall with excerpts fills: chance (default: what the best n take, n read from how many candidates are likely answers, 0.3k to 3k) or k (what the best k take)."`
	Explain   bool   `name:"explain" help:"With --json: also every candidate of the pool, with its ranks and what the learned order read of it (candidates, feature_names)."`
	Weights   string `name:"weights" placeholder:"JSON" help:"Advanced: the recall tool's weights as JSON, e.g. '{\"learned\":0}' or '{\"time\":0,\"kinds\":0.5}' (docs/tools.md)."`
}

func (c recallCmd) Run(e *env) error {
	// 0 and negative numbers would be left out of the arguments (the
	// tool's default): refuse them here as the tool refuses them
	if c.K != nil && *c.K < 1 {
		return fmt.Errorf("recall: invalid argument k: must be at least 1 and at most %d, got %d", memory.MaxK, *c.K)
	}
	args := spec.RecallArgs{
		Query: c.Query, Order: c.Order, Namespace: cmp.Or(c.NS, e.cfg.Namespace), SessionID: c.SessionID, ExcludeSession: c.Exclude,
		After: c.After, Before: c.Before, Excerpt: c.Excerpt, Context: c.Context, MaxTokens: c.MaxTokens, Reranker: noneIf(c.NoRerank), Budget: c.Budget,
	}
	if c.K != nil {
		args.K = *c.K
	}
	if c.Explain && !c.JSON {
		return errors.New("recall: --explain needs --json: the candidates are in the structured result")
	}
	args.Explain = c.Explain
	if c.Weights != "" {
		dec := json.NewDecoder(strings.NewReader(c.Weights))
		dec.DisallowUnknownFields()
		err := dec.Decode(&args.Weights)
		if err == nil && dec.Decode(&struct{}{}) != io.EOF {
			err = errors.New("more than one JSON value")
		}
		if err != nil {
			return fmt.Errorf("recall: invalid --weights %s: %v (the recall tool's weights: text, vector, entity, adjacent, time, kinds, learned, rank_constant)", c.Weights, err)
		}
	}
	return withClient(e, func(cl *client.Client) error {
		res, text, err := cl.Recall(e.ctx, args) // (an empty namespace is noted in text)
		if err != nil {
			return err
		}
		return c.print(res, text)
	})
}

func emptyNamespace(ns string) string {
	return fmt.Sprintf("Namespace %s holds no memories (agentmem namespaces lists those that do).", ns)
}

// noneIf is a recall's reranker argument: false when off, else the
// server's default (nil).
func noneIf(off bool) *bool {
	if off {
		return new(false)
	}
	return nil
}

type todayCmd struct{ output }

// Run prints the date, as the today tool does: the server that holds the
// data dir, when one runs, answers with its clock (its --now and
// --timezone), as every command relayed to it runs with its settings;
// else this process's clock, without opening the store.
func (c todayCmd) Run(e *env) error {
	if dir, err := e.cfg.Dir(); err == nil {
		none := func(context.Context) (io.Closer, error) { return io.NopCloser(nil), nil }
		if conn, _, err := server.Attach(e.ctx, server.SocketPath(dir), none, 0, e.log); err == nil && conn != nil {
			warnRelayed(e, os.Args[1:])
			cl, err := client.Conn(e.ctx, conn, cliName, client.WithInitWithin(attachTimeout))
			if err != nil {
				return err
			}
			defer cl.Close()
			res, text, err := cl.Today(e.ctx)
			if err != nil {
				return err
			}
			return c.print(res, text)
		}
	}
	loc, now, err := e.cfg.Clock()
	if err != nil {
		return err
	}
	d := memory.TodayAt(now().In(loc))
	return c.print(spec.Today{Date: d.Date, Weekday: d.Weekday, Datetime: d.Datetime, Timezone: d.Timezone}, d.Text()+".")
}

type forgetCmd struct {
	output
	IDs       []string `arg:"" name:"ids" optional:"" help:"Memory ids to delete: a session's id, ':' and the turn (01680260:2), as show numbers a session's turns and recall --json gives them."`
	SessionID string   `name:"session-id" help:"Delete this session: its id, or the start of a UUID id as recall shows it."`
	All       bool     `name:"all" help:"Delete the whole namespace (needs --confirm)."`
	Confirm   bool     `name:"confirm" help:"Confirm --all."`
	Reimport  bool     `name:"reimport" help:"With --session-id: let a later capture or import of the session store its turns again (to refresh an imported conversation). Without it, forgotten turns stay forgotten when captured again or imported from a history (import --from): a mark of each stays (its position, message id and a hash of its content, which can confirm a guess of its exact words); with it, nothing of them stays."`
	NS        string   `name:"ns" help:"Namespace of this call (default --namespace)."`
}

func (c forgetCmd) Run(e *env) error {
	// said with the command's own words: the tool's name its arguments
	// (ids, session_id, all, confirm), which the command does not have
	given := 0
	for _, g := range []bool{len(c.IDs) > 0, c.SessionID != "", c.All} {
		if g {
			given++
		}
	}
	if given != 1 {
		return errors.New("forget: give exactly one of: memory ids, --session-id or --all")
	}
	if c.All && !c.Confirm {
		return fmt.Errorf("forget: --all deletes every memory of namespace %s: add --confirm", cmp.Or(c.NS, e.cfg.Namespace))
	}
	if c.Reimport && len(c.IDs) > 0 {
		return errors.New("forget: --reimport goes with --session-id: a turn forgotten by its id stays forgotten (forget its session with --reimport to let a capture or an import store it again)")
	}
	args := spec.ForgetArgs{IDs: c.IDs, SessionID: c.SessionID, All: c.All, Confirm: c.Confirm, Reimport: c.Reimport, Namespace: cmp.Or(c.NS, e.cfg.Namespace)}
	return withClient(e, func(cl *client.Client) error {
		res, text, err := cl.Forget(e.ctx, args)
		if err != nil {
			return err
		}
		if c.Reimport {
			text += rewindCaptures(e, cmp.Or(res.SessionID, c.SessionID))
		}
		return c.print(res, text)
	})
}

// rewindCaptures sets the hooks' cursors of session back to its
// transcript's start (hook.Rewind), so that after forget --reimport their
// next capture stores it again, and says so ("" when no hook captured
// it).
func rewindCaptures(e *env, session string) string {
	dir, err := e.cfg.Dir()
	if err != nil {
		return ""
	}
	said := ""
	for _, host := range []string{"claude-code", "codex"} {
		ok, err := hook.Rewind(e.ctx, dir, host, session)
		switch {
		case err != nil:
			said += fmt.Sprintf(" The %s hooks' cursor of the session could not be set back (%v): `agentmem import --from %s` stores it again.", host, err, host)
		case ok:
			said += fmt.Sprintf(" The %s hooks read its transcript again at their next capture (the session's next stop, or the next session's start).", host)
		}
	}
	return said
}

package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/sync/errgroup"
	"golang.org/x/term"

	"agentmem/cmd/internal/hook"
	"agentmem/memory"
	"agentmem/memory/dates"
	"agentmem/memory/history/claudecode"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// agentmem import --from claude-code|codex|chatgpt|claude-ai: a history kept
// elsewhere stored as raw turns through the remember tool, as the hooks
// store a live session. Every source is read twice: once whole, to check
// it (a file cut short or of another format stores nothing) and count it
// (what --dry-run prints, the progress bar's total), then to store it,
// session by session. Every turn carries its source's id (a transcript
// uuid, a Codex item id, a ChatGPT node id, a Claude.ai message uuid), so the same history
// imported twice, or imported after the hooks captured it, stores nothing
// twice, and an import cut short is completed by running it again.

// historyOptions are import's flags for another program's history.
type historyOptions struct {
	From       string `name:"from" enum:",claude-code,codex,chatgpt,claude-ai" default:"" placeholder:"SOURCE" help:"Import another program's history instead of an agentmem export: claude-code (FILE is a transcript or a directory of them; default ~/.claude/projects), codex (FILE is a rollout or a directory of them; default $CODEX_HOME/sessions or ~/.codex/sessions), chatgpt or claude-ai (FILE is the export's zip, the folder it unzips to, or its conversations.json; a newer ChatGPT export's conversations-000.json, conversations-001.json, … are read in order as one)."`
	DryRun     bool   `name:"dry-run" help:"Store nothing: with --from, print the sessions, turns, date range and what would be left out; for an agentmem export, check every line against the store and count what would be imported."`
	PerProject bool   `name:"per-project" help:"With --from claude-code or codex: one namespace per project (the session's cwd), as the hooks' --per-project."`
	NoWait     bool   `name:"no-wait" help:"With --from: return as soon as the text is stored (and searchable), without waiting for the semantic vectors: the server holding the memory makes them in the background, or, when this command held it, the next agentmem process to open it (recall's pending and agentmem check count the memories still waiting)."`
}

// histSession is one session of a history, as the readers give it.
type histSession struct {
	ID, Title string
	// Where names it in messages: a file, or a file's conversation.
	Where string
	CWD   string    // the project of a Claude Code session
	Date  time.Time // the session's date when no turn has a time
	Turns []claudecode.Turn
	// Skipped counts what its reader left out, by reason.
	Skipped claudecode.Skipped
	// Bad names the lines of its file that are not JSON, FILE:LINE.
	Bad []string
}

// histSource reads a history, calling yield with each session in order.
type histSource func(yield func(histSession) error) error

// historyReport is what an import read and stored.
type historyReport struct {
	Source   string             `json:"source"`
	DryRun   bool               `json:"dry_run,omitempty"`
	Sessions int                `json:"sessions"`
	Turns    int                `json:"turns"`
	First    string             `json:"first,omitempty"`
	Last     string             `json:"last,omitempty"`
	Skipped  claudecode.Skipped `json:"skipped"`
	Stored   int                `json:"stored"`
	Held     int                `json:"already_stored"`
	// Forgotten counts the turns left out because they were forgotten
	// (forget by ids or by session) since an earlier capture or import
	// stored them.
	Forgotten int `json:"forgotten,omitempty"`
	// Elsewhere counts, by namespace, the sessions left out because
	// another namespace holds them (the hooks' with --per-project).
	Elsewhere map[string]int `json:"stored_elsewhere,omitempty"`
	// Pending counts the memories of the import's namespaces still waiting
	// for their vectors when it returned (0 unless --no-wait).
	Pending    int           `json:"vectors_pending"`
	Searchable float64       `json:"searchable_seconds,omitempty"`
	Vectors    float64       `json:"vectors_seconds,omitempty"`
	List       []sessionLine `json:"session_list,omitempty"`
	// BadLines names the first lines that are not JSON (FILE:LINE), as
	// the hooks name them, so that a damaged file can be found.
	BadLines []string `json:"bad_lines,omitempty"`
	badLines int
	loc      *time.Location // days are the configured zone's, as the store dates them
	// namespaceOf names the namespace of a session's project, with
	// --per-project (nil without).
	namespaceOf func(cwd string) string
	messages    int
	first       time.Time
	last        time.Time
}

type sessionLine struct {
	ID    string `json:"id"`
	Date  string `json:"date,omitempty"`
	Turns int    `json:"turns"`
	Title string `json:"title,omitempty"`
	// Namespace is where the session would go, with --per-project.
	Namespace string    `json:"namespace,omitempty"`
	at        time.Time // the session's start, which orders the list
}

// byStart orders a dry run's sessions by their start, as they are
// stored and recalled, not in the files' order (a directory's files go
// by name, a UUID's); a session with no time last.
func byStart(a, b sessionLine) int {
	switch {
	case a.at.IsZero() == b.at.IsZero():
		return a.at.Compare(b.at)
	case a.at.IsZero():
		return 1
	default:
		return -1
	}
}

// history runs an import --from.
func (c importCmd) history(e *env, out io.Writer) error {
	if c.PerProject && c.From != "claude-code" && c.From != "codex" {
		return fmt.Errorf("--per-project is for --from claude-code or codex (their sessions have a project); %s's go to --namespace", c.From)
	}
	src, label, err := c.source()
	if err != nil {
		return err
	}
	loc, _, err := e.cfg.Clock()
	if err != nil {
		return err
	}
	rep := &historyReport{Source: label, DryRun: c.DryRun, Skipped: claudecode.Skipped{}, Elsewhere: map[string]int{}, loc: loc}
	if c.PerProject {
		rep.namespaceOf = func(cwd string) string { return hookOptions{PerProject: true}.Namespace(e.cfg.Namespace, cwd) }
	}
	if err := src(func(s histSession) error { rep.count(keepInRange(s)); return nil }); err != nil {
		return fmt.Errorf("%w; nothing stored", err)
	}
	slices.SortStableFunc(rep.List, byStart)
	if !c.DryRun && rep.Turns > 0 {
		if err := c.storeAll(e, src, rep); err != nil {
			return err
		}
	}
	if c.JSON {
		return c.print(rep, "")
	}
	rep.write(out)
	return nil
}

// source picks the reader of --from and its input.
func (c importCmd) source() (histSource, string, error) {
	switch c.From {
	case "claude-code":
		return claudeCodeSource(c.File)
	case "codex":
		return codexSource(c.File)
	case "chatgpt":
		return exportSource(c.File, chatGPTExport)
	default:
		return exportSource(c.File, claudeAIExport)
	}
}

// keepInRange leaves out the turns remember would refuse, counted as the
// hooks leave them out: a time no memory can hold, a message id that is
// not one line of printable text of at most 256 characters
// (memory.CheckMessageID), an id repeated. Both passes of an import (the
// count and the store) see the same turns, so a history that passes the
// first is stored whole.
func keepInRange(s histSession) histSession {
	kept := s.Turns[:0:0]
	seen := map[string]bool{}
	for _, t := range s.Turns {
		switch {
		case !t.Time.IsZero() && (t.Time.Year() < dates.MinYear || t.Time.Year() > dates.MaxYear):
			s.Skipped["date out of range"]++
		case memory.CheckMessageID("id", t.ID) != nil:
			s.Skipped["message id that remember refuses (not one line of printable text, or over 256 characters)"]++
		case t.ID != "" && seen[t.ID]:
			s.Skipped["message id repeated"]++
		default:
			seen[t.ID] = t.ID != ""
			kept = append(kept, t)
		}
	}
	s.Turns = kept
	return s
}

// date is the session's date, as the hook gives it: its first turn's
// time, else the date its source gives it; zero: remember's (now).
func (s histSession) date() time.Time {
	for _, t := range s.Turns {
		if !t.Time.IsZero() {
			return t.Time
		}
	}
	return s.Date
}

func (r *historyReport) count(s histSession) {
	r.Skipped.Add(s.Skipped)
	r.badLines += len(s.Bad)
	r.BadLines = append(r.BadLines, s.Bad[:min(len(s.Bad), maxBadLines-len(r.BadLines))]...)
	if len(s.Turns) == 0 {
		if s.ID != "" {
			r.Skipped["session without a turn to store"]++
		}
		return
	}
	r.Sessions++
	r.Turns += len(s.Turns)
	r.messages += len(hook.Messages(s.Turns))
	for _, t := range s.Turns {
		if t.Time.IsZero() {
			continue
		}
		if r.first.IsZero() || t.Time.Before(r.first) {
			r.first = t.Time
		}
		if t.Time.After(r.last) {
			r.last = t.Time
		}
	}
	if !r.first.IsZero() {
		r.First, r.Last = r.first.In(r.zone()).Format(time.RFC3339), r.last.In(r.zone()).Format(time.RFC3339)
	}
	if r.DryRun {
		line := sessionLine{ID: s.ID, Turns: len(s.Turns), Title: s.Title, at: s.date()}
		if !line.at.IsZero() {
			line.Date = line.at.In(r.zone()).Format("2006-01-02")
		}
		if r.namespaceOf != nil {
			line.Namespace = r.namespaceOf(s.CWD)
		}
		r.List = append(r.List, line)
	}
}

// zone is the configured time zone the report's days are in (UTC when
// none was set).
func (r *historyReport) zone() *time.Location {
	if r.loc == nil {
		return time.UTC
	}
	return r.loc
}

func (r *historyReport) write(w io.Writer) {
	if r.DryRun {
		for _, s := range r.List {
			line := fmt.Sprintf("%-10s  %s  %s", s.Date, s.ID, spec.Count(s.Turns, "turn"))
			if s.Namespace != "" {
				line += "  → " + s.Namespace
			}
			if t := preview(s.Title); t != "" {
				line += "  " + t
			}
			fmt.Fprintln(w, line)
		}
	}
	span := ""
	if !r.first.IsZero() {
		span = fmt.Sprintf(", %s to %s", r.first.In(r.zone()).Format("2006-01-02"), r.last.In(r.zone()).Format("2006-01-02"))
	}
	verb := "Read"
	if r.DryRun {
		verb = "Would import"
	}
	fmt.Fprintf(w, "%s %s, %s%s, from %s.\n", verb, spec.Count(r.Sessions, "session"), spec.Count(r.Turns, "turn"), span, r.Source)
	if !r.DryRun {
		fmt.Fprintf(w, "Stored %s; %d %s already stored (nothing is stored twice).\n", spec.Count(r.Stored, "memory"), r.Held, were(r.Held))
		if r.Forgotten > 0 {
			fmt.Fprintf(w, "Left out %s forgotten (agentmem forget) since a capture or an import stored %s.\n", spec.Count(r.Forgotten, "turn"), it(r.Forgotten))
		}
		if len(r.Elsewhere) > 0 {
			var in []string
			n := 0
			for _, ns := range slices.Sorted(maps.Keys(r.Elsewhere)) {
				in = append(in, fmt.Sprintf("%s %d", ns, r.Elsewhere[ns]))
				n += r.Elsewhere[ns]
			}
			fmt.Fprintf(w, "Left out %s already stored in another namespace (%s), where the hooks (their --per-project or --namespace) or an earlier import put them: import into that namespace (with the hooks' choices) to bring those up to date where they are.\n", spec.Count(n, "session"), strings.Join(in, ", "))
		}
		switch {
		case r.Pending > 0:
			fmt.Fprintf(w, "Searchable by their text after %.1f s; %s waiting for their semantic vectors, made in the background (recall's pending and agentmem check count them).\n", r.Searchable, spec.Count(r.Pending, "memory"))
		case r.Vectors > 0:
			fmt.Fprintf(w, "Searchable by their text after %.1f s, every vector made after %.1f s.\n", r.Searchable, r.Vectors)
		}
	}
	if len(r.Skipped) > 0 {
		verb = "Left out"
		if r.DryRun {
			verb = "Would leave out"
		}
		fmt.Fprintf(w, "%s:\n", verb)
		for _, k := range slices.Sorted(maps.Keys(r.Skipped)) {
			fmt.Fprintf(w, "  %6d  %s\n", r.Skipped[k], k)
		}
	}
	if len(r.BadLines) > 0 {
		more := ""
		if n := r.badLines - len(r.BadLines); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(w, "Lines that are not JSON: %s%s.\n", strings.Join(r.BadLines, ", "), more)
	}
	if r.DryRun {
		fmt.Fprintln(w, "Nothing stored (--dry-run).")
	}
}

// maxBadLines is how many lines that are not JSON a report names.
const maxBadLines = 5

// were is the verb of a count: "was" for one, else "were".
func it(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func were(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// importWorkers is how many sessions are stored at once: remember calls
// of different sessions overlap. Measured side by side on the loaded
// 2-core machine (LongMemEval-S turns as a ChatGPT export): with the
// built-in model, 3,000 turns in 18.8 s against 31.0 s one session at a
// time; with --embedder none no gain (40,000 turns in 51-55 s against
// 46-48 s).
const importWorkers = 4

// storeAll stores every session, each in as few remember calls as its
// limits allow, several sessions at once, with a progress bar on a
// terminal. The calls leave the vectors for later: the text of the whole
// history is stored (and searchable) first, and the server makes the
// vectors in the background, in batches; then, unless --no-wait, it waits
// for them, the bar counting them.
func (c importCmd) storeAll(e *env, src histSource, rep *historyReport) error {
	// an import can take minutes: it serves the other local processes
	// meanwhile (an agent host started now would otherwise wait for it)
	cl, done, err := attach(e, true, asSharing)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	bar := newBar(rep.messages, "importing")
	opts := hookOptions{PerProject: c.PerProject}
	elsewhere, err := c.heldElsewhere(e, cl, rep)
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(e.ctx)
	sessions := make(chan histSession)
	var mu sync.Mutex
	namespaces := map[string]bool{}
	for range importWorkers {
		g.Go(func() error {
			for s := range sessions {
				ns := opts.Namespace(e.cfg.Namespace, s.CWD)
				if other := elsewhere(s.ID, ns); other != "" {
					mu.Lock()
					rep.leftOut(s, other)
					mu.Unlock()
					bar.add(len(s.Turns))
					continue
				}
				n, err := storeSession(ctx, cl, ns, s, bar.add)
				mu.Lock()
				rep.Stored += n.Stored
				rep.Held += n.Skipped
				rep.Forgotten += n.Forgotten
				namespaces[ns] = true
				mu.Unlock()
				if err != nil {
					return fmt.Errorf("%s: %w\nThe other sessions stored so far are stored whole, and so are this one's turns stored so far (a long session takes several remember calls). Run the same import again to complete it: every turn carries its id, so nothing is stored twice", s.Where, err)
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(sessions)
		return src(func(s histSession) error {
			if s = keepInRange(s); len(s.Turns) == 0 {
				return nil
			}
			select {
			case sessions <- s:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	err = g.Wait()
	bar.finish()
	if err != nil {
		return err
	}
	rep.Searchable = time.Since(start).Seconds()
	return c.vectorsOf(e, cl, slices.Sorted(maps.Keys(namespaces)), rep, start)
}

// vectorsOf waits for the vectors of the import's namespaces nss, or with
// --no-wait counts those still missing, into rep.
func (c importCmd) vectorsOf(e *env, cl *client.Client, nss []string, rep *historyReport, start time.Time) (err error) {
	if c.NoWait {
		rep.Pending, _, err = pendingIn(e.ctx, cl, nss)
		return err
	}
	if err := waitVectors(e, cl, nss, rep.Stored); err != nil {
		return fmt.Errorf("%w\nEvery turn is stored and searchable by its text; the vectors still missing are made in the background by the next agentmem process to open the memory", err)
	}
	rep.Vectors = time.Since(start).Seconds()
	return nil
}

// heldElsewhere says which namespace other than ns holds session id, or
// "": one where hooks stored it (set up the other way, --per-project or
// not, or with another --namespace). The import leaves such a session out
// rather than store a second copy. A source whose sessions no hook stores
// has none.
func (c importCmd) heldElsewhere(e *env, cl *client.Client, rep *historyReport) (func(id, ns string) string, error) {
	if c.From != "claude-code" && c.From != "codex" || rep.first.IsZero() {
		return func(string, string) string { return "" }, nil
	}
	in, err := sessionNamespaces(e.ctx, cl, rep.first, rep.last)
	return func(id, ns string) string {
		if held := in[id]; len(held) > 0 && !slices.Contains(held, ns) {
			return held[0]
		}
		return ""
	}, err
}

// leftOut counts s as left out, already stored in namespace ns.
func (r *historyReport) leftOut(s histSession, ns string) {
	r.Elsewhere[ns]++
	r.Sessions, r.Turns = r.Sessions-1, r.Turns-len(s.Turns) // not imported
}

// sessionNamespaces maps each session id of every namespace, among the
// sessions dated from first to last (a day's margin either side, for the
// zones the days are read in), to the namespaces that hold a session of
// that id: a hook stores a session under the id and date the import
// gives it, so the cost follows the import's dates, not every session.
func sessionNamespaces(ctx context.Context, cl *client.Client, first, last time.Time) (map[string][]string, error) {
	nss, err := cl.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	// the margin stays within the years a session may be dated in
	from, to := first.AddDate(0, 0, -1), last.AddDate(0, 0, 1)
	if lo := time.Date(dates.MinYear, 1, 1, 0, 0, 0, 0, time.UTC); from.Before(lo) {
		from = lo
	}
	if hi := time.Date(dates.MaxYear, 12, 31, 0, 0, 0, 0, time.UTC); to.After(hi) {
		to = hi
	}
	after, before := from.Format(time.DateOnly), to.Format(time.DateOnly)
	in := map[string][]string{}
	for _, ns := range nss {
		for cursor := ""; ; {
			page, err := cl.Sessions(ctx, ns.Name, after, before, memory.MaxSessionPage, cursor)
			if err != nil {
				return nil, err
			}
			for _, s := range page.Sessions {
				in[s.ID] = append(in[s.ID], ns.Name)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
	}
	return in, nil
}

// pendingIn counts the memories of namespaces nss still waiting for their
// vectors, as recall reports them, and says why making them last failed,
// while it does.
func pendingIn(ctx context.Context, cl *client.Client, nss []string) (n int, failing string, err error) {
	noReranker := cl.NoReranker(ctx) // a server before rerankers refuses the argument
	for _, ns := range nss {
		res, _, err := cl.Recall(ctx, spec.RecallArgs{Query: "vectors", K: 1, Namespace: ns, Excerpt: new(0), Reranker: noReranker})
		if err != nil {
			return 0, "", fmt.Errorf("counting the memories waiting for their vectors in namespace %s: %w", ns, err)
		}
		n += res.Pending
		failing = cmp.Or(failing, res.PendingError)
	}
	return n, failing, nil
}

// stalledAfter is how long waitVectors waits while making the vectors
// fails and none is made; a full disk stops it at once.
const stalledAfter = time.Minute

// waitVectors waits until no memory of nss waits for its vectors, a bar
// counting them: of at least stored (the import's own memories). It stops
// with an error when making them fails on a full disk, or fails for
// stalledAfter without one made: they are tried again by every later run
// of agentmem, the text being stored and searchable already.
func waitVectors(e *env, cl *client.Client, nss []string, stored int) error {
	ctx := e.ctx
	left, failing, err := pendingIn(ctx, cl, nss)
	if err != nil || left == 0 {
		return err
	}
	total := max(stored, left)
	e.log.Info("stored and searchable by text; making the semantic vectors (--no-wait returns here)", "waiting", left)
	bar := newBar(total, "vectors")
	defer bar.finish()
	bar.set(total - left)
	progress := time.Now()
	for left > 0 {
		if failing != "" && (strings.Contains(failing, "disk is full") || time.Since(progress) >= stalledAfter) {
			return fmt.Errorf("%d memories wait for their vectors: making them fails: %s", left, failing)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		was := left
		if left, failing, err = pendingIn(ctx, cl, nss); err != nil {
			return err
		}
		if left < was {
			progress = time.Now()
		}
		bar.set(max(0, total-left))
	}
	return nil
}

// storeSession remembers a session's turns with the ids and the session
// date the hook capture gives them (messages, batches: see capture.go).
func storeSession(ctx context.Context, cl *client.Client, ns string, s histSession, progress func(int)) (n spec.RememberResult, err error) {
	date := s.date()
	for _, batch := range hook.Batches(hook.Messages(s.Turns)) {
		args := spec.RememberArgs{Messages: batch, SessionID: s.ID, Namespace: ns, Vectors: "later"}
		if !date.IsZero() {
			args.SessionDate = date.Format(time.RFC3339Nano)
		}
		res, _, err := cl.Remember(ctx, args)
		if err != nil {
			return n, fmt.Errorf("session %s: %w", s.ID, err)
		}
		n.Stored, n.Skipped, n.Forgotten = n.Stored+res.Stored, n.Skipped+res.Skipped, n.Forgotten+res.Forgotten
		progress(len(batch))
	}
	return n, nil
}

// bar is a progress bar on stderr when it is a terminal, else nothing.
type bar struct{ b *progressbar.ProgressBar }

func newBar(total int, what string) bar {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return bar{}
	}
	return bar{progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }))}
}

func (b bar) add(n int) {
	if b.b != nil {
		b.b.Add(n)
	}
}

func (b bar) set(n int) {
	if b.b != nil {
		b.b.Set(n)
	}
}

func (b bar) finish() {
	if b.b != nil {
		b.b.Finish()
	}
}

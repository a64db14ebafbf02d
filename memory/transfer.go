package memory

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The export format: JSON Lines, one object per line, UTF-8.
//
// Line 1 is the header, ExportHeader: {"format":"agentmem-export",
// "version":1, "agentmem":"<version>", "embedder":"<id>", "dims":N,
// "vectors":bool, "namespaces":[...], "created":"<RFC 3339>"}.
//
// Every further line is one memory, ExportLine, ordered by namespace,
// session and turn, each session's lines together: namespace, session_id,
// session_date (RFC 3339), turn, id (always session_id:turn), role,
// speaker, text, timestamp, key (the client's message id), created, and,
// when the header says vectors, vectors (one array per window of the text,
// made by the header's embedder). That is everything a store holds; the
// content hash and the index are derived again on import.
//
// From version 3 on, a line may also be the mark of a forgotten turn
// (ForgottenTurns), ExportMark: {"forgotten":{...}}, an object with that
// one field, so that no memory line is read as one: namespace,
// session_id, turn, id (session_id:turn), and the turn's key and content
// hash when its mark has them; no text. It stands among its session's
// lines where the turn was, in turn order, and a session that holds only
// marks has its lines too. An import writes them (ForgottenMarks), so that
// a resend of the session does not store the turn again.
//
// The last line, from version 2 on, is the end, ExportEnd:
// {"end":"agentmem-export","memories":N,"sessions":M}, and from version 3
// on also "marks":K (M counts the sessions that have lines, of memories
// or of marks): a file cut short between two lines still reads as whole
// lines, and only its end says it is not whole. A version 1 file has
// none, and is read without it.
//
// An export that holds no mark is written as version 2, which an agentmem
// from before marks reads too; one that holds marks, as version 3.
//
// A reader refuses a header of another format or of a later version, and
// any line with an unknown field, a missing field or a value out of its
// limits, naming the line and the field.
const (
	ExportFormat = "agentmem-export"
	// ExportVersion is the latest version, which this agentmem reads and
	// writes when an export holds marks of forgotten turns.
	ExportVersion = 3
	// exportVersionNoMarks is the version of an export that holds none.
	exportVersionNoMarks = 2
	// maxLineBytes bounds one line: a memory of 65,536 characters (4 bytes
	// each at most) and its vectors fit many times over.
	maxLineBytes = 64 << 20
)

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	Agentmem string `json:"agentmem"`
	Embedder string `json:"embedder"`
	Dims     int    `json:"dims"`
	Vectors  bool   `json:"vectors"`
	// Recipe is the recipe the store recorded for its vectors (Recipe),
	// written only with them, so that an earlier agentmem reads an
	// export without vectors: an import keeps a file's vectors only when
	// its own embedder makes them by the same recipe.
	Recipe     string    `json:"recipe,omitempty"`
	Namespaces []string  `json:"namespaces,omitempty"`
	Created    time.Time `json:"created"`
}

// ExportEnd is the last line of an export of version 2 or later: what it
// holds, so that a file cut short is told from a whole one.
type ExportEnd struct {
	End      string `json:"end"` // ExportFormat
	Memories int    `json:"memories"`
	Sessions int    `json:"sessions"`        // sessions with lines, of memories or of marks
	Marks    *int   `json:"marks,omitempty"` // mark lines: from version 3 on, and only there
}

// ExportLine is one memory of an export.
type ExportLine struct {
	Namespace   string      `json:"namespace"`
	SessionID   string      `json:"session_id"`
	SessionDate string      `json:"session_date"`
	Turn        *int        `json:"turn"`
	ID          string      `json:"id"`
	Role        string      `json:"role"`
	Speaker     string      `json:"speaker,omitempty"`
	Text        string      `json:"text"`
	Timestamp   string      `json:"timestamp,omitempty"`
	Key         string      `json:"key,omitempty"`
	Created     string      `json:"created,omitempty"`
	Vectors     [][]float32 `json:"vectors,omitempty"`
}

// ExportOptions choose what Export writes.
type ExportOptions struct {
	Namespaces []string // none: every namespace
	Vectors    bool     // include the stored vectors
	Version    string   // agentmem's version, for the header
	// Salvage leaves out a memory whose record is damaged (and a damaged
	// vector, the memory kept without it) instead of failing, and names
	// it in the result: what is readable of a damaged store, to import
	// into a new one when there is no backup.
	Salvage bool
}

// ExportResult counts what Export wrote, and names what salvage left out.
type ExportResult struct {
	Namespaces int      `json:"namespaces"` // with a line in the export: of memories, or of marks alone
	Memories   int      `json:"memories"`
	Marks      int      `json:"marks,omitempty"`   // marks of forgotten turns
	Damaged    []string `json:"damaged,omitempty"` // the memories left out, as the store names them
	NoVectors  []string `json:"no_vectors,omitempty"`
}

// salvageKey carries a salvaging export's report of what it leaves out.
type salvageKey struct{}

// Salvage is how a store's export reports, with the context of a salvaging
// export, a memory it leaves out (vectorsOnly: only its vectors) instead
// of failing.
type Salvage func(key string, vectorsOnly bool, err error)

// salvage is the Salvage that names what it leaves out in r.
func (r *ExportResult) salvage() Salvage {
	return func(key string, vectorsOnly bool, err error) {
		if vectorsOnly {
			r.NoVectors = append(r.NoVectors, key)
		} else {
			r.Damaged = append(r.Damaged, key)
		}
	}
}

// Salvaging returns the Salvage of ctx, nil when the export is not one.
func Salvaging(ctx context.Context) Salvage {
	f, _ := ctx.Value(salvageKey{}).(Salvage)
	return f
}

// Export writes the memories of opts.Namespaces (all when none) to w in the
// export format, streaming them from the store. A namespace that holds
// nothing is a *NotFoundError, before anything is written.
func (s *Service) Export(ctx context.Context, w io.Writer, opts ExportOptions) (ExportResult, error) {
	have, err := s.Namespaces(ctx)
	if err != nil {
		return ExportResult{}, err
	}
	want, err := s.namespacesToExport(ctx, have, opts.Namespaces)
	if err != nil {
		return ExportResult{}, err
	}
	var res ExportResult // Namespaces counted as they are written
	scopes := want
	if len(scopes) == 0 {
		scopes = []string{""}
	}
	next, stop := iter.Pull2(s.marksOf(ctx, scopes))
	defer stop()
	bw := bufio.NewWriterSize(w, 1<<16)
	ew := &exportWriter{enc: json.NewEncoder(bw), res: &res, next: next}
	ew.enc.SetEscapeHTML(false)
	if err := ew.start(s.exportHeader(opts, want)); err != nil {
		return ExportResult{}, err
	}
	if opts.Salvage {
		ctx = context.WithValue(ctx, salvageKey{}, res.salvage())
	}
	for _, ns := range scopes {
		if err := s.store.Export(ctx, ns, ew.head.Vectors, ew.memory); err != nil {
			return res, fmt.Errorf("exporting: %w", err)
		}
	}
	if err := ew.finish(); err != nil {
		return res, err
	}
	return res, bw.Flush()
}

// marksOf is the marks of the forgotten turns of the namespaces scopes (""
// for all), a session at a time, as the store hands them out: none from a
// store whose marks do not move (ForgottenMarks).
func (s *Service) marksOf(ctx context.Context, scopes []string) iter.Seq2[[]Memory, error] {
	return func(yield func([]Memory, error) bool) {
		fm, ok := s.store.(ForgottenMarks)
		if !ok {
			return
		}
		for _, ns := range scopes {
			stopped := false
			err := fm.ExportForgotten(ctx, ns, func(ms []Memory) error {
				if stopped = !yield(ms, nil); stopped {
					return errStopped
				}
				return nil
			})
			if stopped {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// errStopped ends a store's ExportForgotten when the export stops reading.
var errStopped = errors.New("stopped")

// exportWriter writes an export: its header, the memories as the store
// hands them out with the marks of forgotten turns (marksOf) in their
// place, by namespace, session and turn, and its end.
type exportWriter struct {
	enc      *json.Encoder
	res      *ExportResult
	next     func() ([]Memory, error, bool) // the next session's marks
	head     ExportHeader
	marks    []Memory // read and not yet written, in order
	sessions int      // sessions written
	last     string   // namespace 0x1f session of the last line written
}

// start writes head, of version 3 when the export holds marks (its first
// session's are read here), else of version 2, which an agentmem from
// before marks reads too.
func (ew *exportWriter) start(head ExportHeader) error {
	if err := ew.pull(); err != nil {
		return err
	}
	head.Version = exportVersionNoMarks
	if len(ew.marks) > 0 {
		head.Version = ExportVersion
	}
	ew.head = head
	return ew.enc.Encode(head)
}

// pull reads the next session's marks once those read are written.
func (ew *exportWriter) pull() error {
	for len(ew.marks) == 0 {
		ms, err, ok := ew.next()
		if !ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("exporting the marks of forgotten turns: %w", err)
		}
		ew.marks = ms
	}
	return nil
}

// memory writes m after the marks that come before it; a mark at m's
// turn is left out: the memory wins.
func (ew *exportWriter) memory(m Memory) error {
	for len(ew.marks) > 0 {
		mk := ew.marks[0]
		c := cmp.Or(cmp.Compare(mk.Namespace, m.Namespace), cmp.Compare(mk.SessionID, m.SessionID), cmp.Compare(mk.Turn, m.Turn))
		if c > 0 {
			break
		}
		if err := ew.popMark(c < 0); err != nil {
			return err
		}
	}
	ew.res.Memories++
	return ew.write(m.Namespace, m.SessionID, exportLine(m))
}

// popMark writes the first mark read (when write is set) and drops it.
func (ew *exportWriter) popMark(write bool) error {
	if mk := ew.marks[0]; write {
		ew.res.Marks++
		if err := ew.write(mk.Namespace, mk.SessionID, ExportMark{Forgotten: markLine(mk)}); err != nil {
			return err
		}
	}
	ew.marks = ew.marks[1:]
	return ew.pull()
}

// write writes a line of the session of namespace ns and id session.
func (ew *exportWriter) write(ns, session string, line any) error {
	if k := ns + "\x1f" + session; k != ew.last {
		if ew.sessions == 0 || !strings.HasPrefix(ew.last, ns+"\x1f") {
			// lines come by namespace: a namespace that holds only
			// marks counts too
			ew.res.Namespaces++
		}
		ew.sessions, ew.last = ew.sessions+1, k
	}
	return ew.enc.Encode(line)
}

// finish writes the marks after the last memory, and the end.
func (ew *exportWriter) finish() error {
	for len(ew.marks) > 0 {
		if err := ew.popMark(true); err != nil {
			return err
		}
	}
	end := ExportEnd{End: ExportFormat, Memories: ew.res.Memories, Sessions: ew.sessions}
	if ew.head.Version >= 3 {
		end.Marks = new(ew.res.Marks)
	}
	return ew.enc.Encode(end)
}

// namespacesToExport are the namespaces an export names, sorted and each
// once, after checking each is a name that the store has: one that holds
// memories (have), or only marks of forgotten turns (every session of it
// forgotten), which move with it too.
func (s *Service) namespacesToExport(ctx context.Context, have []NamespaceInfo, names []string) ([]string, error) {
	want := slices.Clone(names)
	for _, ns := range want {
		if err := validName("namespace", ns, maxNamespace); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(have, func(n NamespaceInfo) bool { return n.Name == ns }) {
			continue
		}
		if marked, err := s.holdsMarks(ctx, ns); err != nil || !marked {
			return nil, cmp.Or(err, error(&NotFoundError{What: "namespace", Name: ns}))
		}
	}
	slices.Sort(want)
	return slices.Compact(want), nil
}

// holdsMarks says whether the store holds marks of forgotten turns of
// namespace ns that the caller may read.
func (s *Service) holdsMarks(ctx context.Context, ns string) (bool, error) {
	fm, ok := s.store.(ForgottenMarks)
	if !ok || !AccessFrom(ctx).CanRead(ns) {
		return false, nil
	}
	found := false
	err := fm.ExportForgotten(ctx, ns, func([]Memory) error {
		found = true
		return errStopped
	})
	if found {
		return true, nil
	}
	return false, err
}

// exportHeader is the header of an export of the namespaces want (all
// when none): the store's embedder, and its recipe when the export holds
// vectors.
func (s *Service) exportHeader(opts ExportOptions, want []string) ExportHeader {
	id, dims := s.store.Embedder()
	head := ExportHeader{Format: ExportFormat, Version: exportVersionNoMarks, Agentmem: opts.Version, Embedder: id, Dims: dims,
		Vectors: opts.Vectors && dims > 0, Namespaces: want, Created: s.now().UTC()}
	if r, ok := s.store.(RecipeReporter); ok && head.Vectors {
		head.Recipe = r.Recipe()
	}
	return head
}

// exportLine is m's line in an export.
func exportLine(m Memory) ExportLine {
	line := ExportLine{Namespace: m.Namespace, SessionID: m.SessionID, SessionDate: stamp(m.SessionDate), Turn: new(m.Turn), ID: m.ID,
		Role: m.Role, Speaker: m.Speaker, Text: m.Text, Key: m.Key, Vectors: m.Vectors}
	if m.Timestamp != nil {
		line.Timestamp = stamp(*m.Timestamp)
	}
	if !m.Created.IsZero() {
		line.Created = stamp(m.Created)
	}
	return line
}

// LineError is bad input in an import file: it names the line (from 1)
// and, when one is at fault, the field.
type LineError struct {
	Line  int
	Field string
	Msg   string
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Msg)
}

// ImportOptions tune Import.
type ImportOptions struct {
	// Progress, if set, is told how many memories are stored out of how
	// many the file adds.
	Progress func(done, total int)
	// DryRun runs the first pass only (every line checked, every session
	// compared with the store) and stores nothing: the result counts what
	// the import would do.
	DryRun bool
}

// ImportResult counts what Import did.
type ImportResult struct {
	Sessions   int `json:"sessions"`   // sessions that received memories
	Imported   int `json:"imported"`   // memories stored
	Skipped    int `json:"skipped"`    // memories the store already held, identical
	Reembedded int `json:"reembedded"` // memories embedded again (no vectors in the file, or another embedder's or recipe's)
	// Marks counts the marks of forgotten turns stored (a version 3
	// file's), so that a resend of their sessions does not store those
	// turns again; MarksSkipped, those the store held already; MarksLive,
	// those left out because the store holds their turn (at that turn with
	// that content, or with that message id: the memory wins, that turn is
	// not forgotten there).
	Marks        int `json:"marks"`
	MarksSkipped int `json:"marks_skipped,omitempty"`
	MarksLive    int `json:"marks_live,omitempty"`
	// MarksNotKept counts the file's marks that the store cannot keep (it
	// does not implement ForgottenMarks): a resend of their sessions
	// stores those turns again.
	MarksNotKept int  `json:"marks_not_kept,omitempty"`
	DryRun       bool `json:"dry_run,omitempty"` // nothing was stored: the counts are what the import would do
}

// Import reads an export and stores its memories, by id: each memory keeps
// its namespace, session, turn, id and dates, so the store ends up as the
// exporting one was and recall returns the same results. It stores the
// marks of forgotten turns of a version 3 file too (ForgottenMarks), each
// session's before its memories. It is idempotent (a memory the store
// already holds, identical, is skipped, so the same file twice stores
// nothing twice) and all-or-nothing per session.
//
// open is called twice: a first pass checks every line and compares every
// session with the store, so that bad input (a truncated or foreign line,
// an unknown format version, a field out of its limits) or a memory that
// the store holds with other content fails with a *LineError before
// anything is stored; the second pass stores session by session. A dry
// run ends after the first pass, with what the second would do.
func (s *Service) Import(ctx context.Context, open func() (io.ReadCloser, error), opts ImportOptions) (ImportResult, error) {
	planned := ImportResult{DryRun: opts.DryRun}
	err := s.readExport(open, func(head ExportHeader, ss sessionLines) error {
		return s.wouldImport(ctx, head, ss, &planned)
	})
	if err != nil {
		return ImportResult{}, nothingImported(err)
	}
	if opts.DryRun {
		return planned, nil
	}
	total := planned.Imported
	var res ImportResult
	if opts.Progress != nil {
		opts.Progress(0, total)
	}
	err = s.readExport(open, func(head ExportHeader, ss sessionLines) error {
		return s.importSession(ctx, head, ss, &res, func() {
			if opts.Progress != nil {
				opts.Progress(res.Imported, total)
			}
		})
	})
	if err != nil {
		if res.Imported > 0 || res.Marks > 0 {
			err = fmt.Errorf("%w (%d memories of %d sessions, and %d marks of forgotten turns, were stored before this; the same import again completes it)", err, res.Imported, res.Sessions, res.Marks)
		}
		return res, err
	}
	return res, nil
}

// nothingImported says so of an error of Import's first pass, which
// stores nothing: a line cut short, a field out of its limits, a memory
// held with other content.
func nothingImported(err error) error {
	if le, ok := errors.AsType[*LineError](err); ok {
		le.Msg += "; nothing was imported"
		return err
	}
	return fmt.Errorf("%w; nothing was imported", err)
}

// lined is a memory (or a mark) read from an import file, with its line
// number.
type lined struct {
	line int
	m    Memory
}

// sessionLines is one session's lines of an import file: its memories,
// and the marks of its forgotten turns but those at a turn that one of
// its memories holds (the memory wins).
type sessionLines struct {
	ns, id   string
	line     int // its first
	memories []lined
	marks    []lined
}

// plan compares a session from a file with the store: it returns how many
// of its memories are new, which of them (by index), and the session's
// memories the store holds; a memory held with other content is a
// *LineError.
func (s *Service) plan(ctx context.Context, ss sessionLines) (int, []bool, []Memory, error) {
	sess := ss.memories
	have, err := s.store.Session(ctx, ss.ns, ss.id)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading session %s of namespace %s: %w", ss.id, ss.ns, err)
	}
	byID := make(map[string]Memory, len(have))
	byKey := map[string]string{}
	for _, m := range have {
		byID[m.ID] = m
		if m.Key != "" {
			byKey[m.Key] = m.ID
		}
	}
	fresh := make([]bool, len(sess))
	n := 0
	for i, l := range sess {
		m := l.m
		if old, ok := byID[m.ID]; ok {
			if old.Hash != m.Hash || old.Text != m.Text || old.Key != m.Key || !old.SessionDate.Equal(m.SessionDate) {
				return 0, nil, nil, &LineError{l.line, "id", fmt.Sprintf("memory %s of session %s in namespace %s is already stored with other content (forget that session first to replace it)", m.ID, m.SessionID, m.Namespace)}
			}
			continue
		}
		if m.Key != "" && byKey[m.Key] != "" {
			return 0, nil, nil, &LineError{l.line, "key", fmt.Sprintf("%q is already the key of memory %s in session %s of namespace %s", m.Key, byKey[m.Key], m.SessionID, m.Namespace)}
		}
		fresh[i] = true
		n++
	}
	return n, fresh, have, nil
}

// wouldImport adds to res what importing ss would do.
func (s *Service) wouldImport(ctx context.Context, head ExportHeader, ss sessionLines, res *ImportResult) error {
	n, fresh, have, err := s.planned(ctx, ss, res)
	if err != nil {
		return err
	}
	marks, err := s.plannedMarks(ctx, ss, have, res)
	if err != nil {
		return err
	}
	res.Marks += len(marks)
	if n == 0 {
		return nil
	}
	sess := ss.memories
	id, dims := s.store.Embedder()
	embed := 0
	for i, l := range sess {
		if fresh[i] && dims > 0 && !s.keepsVectors(head, l.m, id, dims) {
			embed++
		}
	}
	if embed > 0 && (s.embedder == nil || s.embedder.ID() != id) {
		return errNoEmbedder(sess[0].m, id)
	}
	res.Sessions++
	res.Imported += n
	res.Reembedded += embed
	return nil
}

// planned is plan's answer for ss, its turns already stored counted in
// res.Skipped.
func (s *Service) planned(ctx context.Context, ss sessionLines, res *ImportResult) (n int, fresh []bool, have []Memory, err error) {
	n, fresh, have, err = s.plan(ctx, ss)
	if err == nil {
		res.Skipped += len(ss.memories) - n
	}
	return n, fresh, have, err
}

func errNoEmbedder(first Memory, id string) error {
	return fmt.Errorf("session %s of namespace %s needs embedding, and the store's embedder %s is not configured", first.SessionID, first.Namespace, id)
}

// keepsVectors says whether m is stored with the vectors of its file:
// made by the store's embedder (id, dims) by the recipe of this service's
// (RecipeOf), else it is embedded again.
func (s *Service) keepsVectors(head ExportHeader, m Memory, id string, dims int) bool {
	return len(m.Vectors) > 0 && head.Embedder == id && head.Dims == dims && head.Recipe == RecipeOf(s.embedder)
}

// importSession stores a session of the file: its marks (importMarks),
// then its memories new to the store, in one Put.
func (s *Service) importSession(ctx context.Context, head ExportHeader, ss sessionLines, res *ImportResult, progress func()) error {
	mu := s.sessionLock(ss.ns, ss.id)
	mu.Lock()
	defer mu.Unlock()
	n, fresh, have, err := s.planned(ctx, ss, res)
	if err != nil {
		return err
	}
	if err := s.importMarks(ctx, ss, have, res); err != nil || n == 0 {
		return err
	}
	ms, err := s.toStore(ctx, head, ss.memories, fresh, have, n, res)
	if err != nil {
		return err
	}
	if err := s.store.Put(ctx, ms); err != nil {
		return fmt.Errorf("storing session %s of namespace %s (line %d): %w", ss.id, ss.ns, ss.memories[0].line, err)
	}
	res.Sessions++
	res.Imported += len(ms)
	progress()
	return nil
}

// toStore is the n memories of sess new to the store (fresh), with the
// file's vectors where the store keeps them (keepsVectors), else embedded
// again, counted in res.
func (s *Service) toStore(ctx context.Context, head ExportHeader, sess []lined, fresh []bool, have []Memory, n int, res *ImportResult) ([]Memory, error) {
	id, dims := s.store.Embedder()
	ms := make([]Memory, 0, n)
	var embed []Memory
	var embedAt []int
	for i, l := range sess {
		if !fresh[i] {
			continue
		}
		m := l.m
		switch {
		case dims == 0:
			m.Vectors, m.Embedder = nil, ""
		case s.keepsVectors(head, m, id, dims):
			m.Embedder = id
		default:
			m.Vectors = nil
			embed = append(embed, m)
			embedAt = append(embedAt, len(ms))
		}
		ms = append(ms, m)
	}
	if len(embed) == 0 {
		return ms, nil
	}
	if s.embedder == nil || s.embedder.ID() != id {
		return nil, errNoEmbedder(sess[0].m, id)
	}
	// the turn before each, from the file or, for a session part of
	// which is stored already, from the store (as remember reads it)
	if err := s.embed(ctx, embed, append(have, ms...)); err != nil {
		return nil, err
	}
	for j, at := range embedAt {
		ms[at] = embed[j]
	}
	res.Reembedded += len(embed)
	return ms, nil
}

// readExport reads an export file and calls fn once per session, with the
// session's memories and marks in file order. Every line is checked;
// sessions must be contiguous, as Export writes them.
func (s *Service) readExport(open func() (io.ReadCloser, error), fn func(ExportHeader, sessionLines) error) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	r := bufio.NewReaderSize(rc, 1<<16)
	er := exportReader{svc: s, fn: fn, done: map[string]int{}, ids: map[string]int{}, keys: map[string]int{}, marked: map[int]int{}}
	for {
		raw, err := readLine(r)
		if err == io.EOF {
			break
		}
		er.no++
		if err != nil {
			return &LineError{Line: er.no, Msg: err.Error()}
		}
		if err := er.line(raw); err != nil {
			return err
		}
	}
	return er.finish()
}

// exportReader is readExport's state: the header, the session being read,
// and what the lines so far hold.
type exportReader struct {
	svc      *Service
	fn       func(ExportHeader, sessionLines) error
	head     ExportHeader
	cur      sessionLines   // the session being read; none before its first line
	done     map[string]int // namespace 0x1f session -> its first line
	ids      map[string]int // ids of the current session's memories -> line
	keys     map[string]int // message keys of the current session -> line
	marked   map[int]int    // turns of the current session's marks -> line
	no       int            // the line read last
	memories int
	marks    int
	end      *ExportEnd
}

// line reads line er.no, raw.
func (er *exportReader) line(raw []byte) error {
	no, blank := er.no, len(bytes.TrimSpace(raw)) == 0
	switch {
	case er.end != nil && !blank:
		return &LineError{Line: no, Msg: "follows the export's end line"}
	case !utf8.Valid(raw):
		return &LineError{Line: no, Msg: "is not valid UTF-8 (an export is UTF-8 text)"}
	case no == 1:
		raw = bytes.TrimPrefix(raw, []byte("\uFEFF")) // a byte-order mark some editors add
		var err error
		er.head, err = readHeader(raw)
		return err
	case blank:
		return nil
	case er.head.Version >= 2 && firstField(raw, "end"):
		var err error
		er.end, err = readEnd(no, raw, er.head.Version, er.memories, er.marks, len(er.done))
		return err
	case firstField(raw, "forgotten"):
		er.marks++
		m, err := readMarkLine(no, raw, er.head)
		if err != nil {
			return err
		}
		return er.addMark(m)
	}
	er.memories++
	m, err := er.svc.readMemoryLine(no, raw, er.head)
	if err != nil {
		return err
	}
	return er.add(m)
}

// add adds m, of line er.no, to the session it is of (enter).
func (er *exportReader) add(m Memory) error {
	no := er.no
	if err := er.enter(m.Namespace, m.SessionID, "session_id"); err != nil {
		return err
	}
	if at, dup := er.ids[m.ID]; dup {
		return &LineError{no, "id", fmt.Sprintf("%s is also the id at line %d", m.ID, at)}
	}
	er.ids[m.ID] = no
	if at, dup := er.keys[m.Key]; dup && m.Key != "" {
		return &LineError{no, "key", fmt.Sprintf("%q is also the key of the memory at line %d; a message id is unique in its session", m.Key, at)}
	}
	er.keys[m.Key] = no
	er.cur.memories = append(er.cur.memories, lined{no, m})
	return nil
}

// addMark adds the mark m, of line er.no, to the session it is of (enter).
func (er *exportReader) addMark(m Memory) error {
	no := er.no
	if err := er.enter(m.Namespace, m.SessionID, "forgotten.session_id"); err != nil {
		return err
	}
	if at, dup := er.marked[m.Turn]; dup {
		return &LineError{no, "forgotten.turn", fmt.Sprintf("turn %d of session %s is also marked forgotten at line %d", m.Turn, m.SessionID, at)}
	}
	er.marked[m.Turn] = no
	er.cur.marks = append(er.cur.marks, lined{no, m})
	return nil
}

// enter makes the session of namespace ns and id the one being read,
// handing the one before it to fn (flush); field names the line's session
// in an error.
func (er *exportReader) enter(ns, id, field string) error {
	if er.cur.line > 0 && (er.cur.ns != ns || er.cur.id != id) {
		if err := er.flush(); err != nil {
			return err
		}
	}
	if er.cur.line > 0 {
		return nil
	}
	k := ns + "\x1f" + id
	if at, seen := er.done[k]; seen {
		return &LineError{er.no, field, fmt.Sprintf("session %s of namespace %s appears again after other sessions (it started at line %d); a session's lines must be together, as export writes them", id, ns, at)}
	}
	er.done[k] = er.no
	er.cur = sessionLines{ns: ns, id: id, line: er.no}
	return nil
}

// flush hands the session read to fn, its marks settled, and clears what
// the reader holds of it.
func (er *exportReader) flush() error {
	if err := er.settle(); err != nil {
		return err
	}
	if err := er.fn(er.head, er.cur); err != nil {
		return err
	}
	er.cur = sessionLines{}
	clear(er.ids)
	clear(er.keys)
	clear(er.marked)
	return nil
}

// settle leaves out the marks of the session read at a turn one of its
// memory lines holds (the memory wins), and checks that the message ids
// of the others are no memory's of the session, nor another mark's.
func (er *exportReader) settle() error {
	live := make(map[int]bool, len(er.cur.memories))
	for _, l := range er.cur.memories {
		live[l.m.Turn] = true
	}
	kept := er.cur.marks[:0]
	for _, l := range er.cur.marks {
		if live[l.m.Turn] {
			continue
		}
		if at, dup := er.keys[l.m.Key]; dup && l.m.Key != "" {
			return &LineError{l.line, "forgotten.key", fmt.Sprintf("%q is also the key at line %d; a message id is unique in its session", l.m.Key, at)}
		}
		er.keys[l.m.Key] = l.line
		kept = append(kept, l)
	}
	er.cur.marks = kept
	return nil
}

// finish checks the file's end and hands the last session to fn.
func (er *exportReader) finish() error {
	if er.no == 0 {
		return &LineError{Line: 1, Msg: "the file is empty; an agentmem export starts with its header line"}
	}
	if er.head.Version >= 2 && er.end == nil {
		held := counted(er.memories, "memory", "memories")
		if er.marks > 0 {
			held += " and " + counted(er.marks, "mark of a forgotten turn", "marks of forgotten turns")
		}
		return &LineError{Line: er.no, Msg: fmt.Sprintf(`the file ends here without the export's end line ({"end":%q,...}): it was cut short, after %s`, ExportFormat, held)}
	}
	if er.cur.line > 0 {
		return er.flush()
	}
	return nil
}

// readLine returns the next line without its end; a last line without a
// newline is a line too. A line longer than maxLineBytes is an error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLineBytes {
			return nil, fmt.Errorf("longer than %d bytes", maxLineBytes)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(buf) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// decodeStrict decodes one JSON object, refusing unknown fields and
// anything after it, with errors that name the field.
func decodeStrict(no int, raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return &LineError{no, te.Field, fmt.Sprintf("must be a JSON %s, got %s", jsonKind(te.Type.Kind().String()), te.Value)}
		case errors.As(err, new(*json.SyntaxError)), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return &LineError{Line: no, Msg: "not a whole JSON object (truncated, or not JSON): " + err.Error()}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return &LineError{no, field, "is not a field of the agentmem export format"}
		}
		return &LineError{Line: no, Msg: err.Error()}
	}
	if dec.More() {
		return &LineError{Line: no, Msg: "holds more than one JSON value"}
	}
	return nil
}

func jsonKind(k string) string {
	switch k {
	case "int", "int64", "float32", "float64":
		return "number"
	case "ptr", "struct":
		return "value of this field's type"
	case "slice":
		return "array"
	}
	return k
}

// firstField says whether raw is an object whose first field is name,
// however spaced: "end" for the end line, "forgotten" for a mark's (a
// memory line's is "namespace").
func firstField(raw []byte, name string) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte("{"))
	return ok && bytes.HasPrefix(bytes.TrimSpace(rest), []byte(`"`+name+`"`))
}

// readEnd reads the end line, line no, of a file of version version that
// held memories and marks in sessions before it.
func readEnd(no int, raw []byte, version, memories, marks, sessions int) (*ExportEnd, error) {
	var e ExportEnd
	if err := decodeStrict(no, raw, &e); err != nil {
		return nil, err
	}
	switch {
	case e.End != ExportFormat:
		return nil, &LineError{no, "end", fmt.Sprintf("must be %q", ExportFormat)}
	case e.Memories != memories:
		return nil, &LineError{no, "memories", fmt.Sprintf("the end line counts %d memories, the file holds %d: lines are missing", e.Memories, memories)}
	case e.Sessions != sessions:
		return nil, &LineError{no, "sessions", fmt.Sprintf("the end line counts %d sessions, the file holds %d", e.Sessions, sessions)}
	case version < 3 && e.Marks != nil:
		return nil, &LineError{no, "marks", fmt.Sprintf("is not a field of the end of a version %d export (marks of forgotten turns are lines of version 3 on)", version)}
	case version >= 3 && e.Marks == nil:
		return nil, &LineError{no, "marks", "is missing: the end of a version 3 export counts its marks of forgotten turns"}
	case e.Marks != nil && *e.Marks != marks:
		return nil, &LineError{no, "marks", fmt.Sprintf("the end line counts %d marks of forgotten turns, the file holds %d: lines are missing", *e.Marks, marks)}
	}
	return &e, nil
}

func readHeader(raw []byte) (ExportHeader, error) {
	var h ExportHeader
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return h, &LineError{Line: 1, Msg: "not an agentmem export: the first line is not a JSON object (" + err.Error() + ")"}
	}
	var format string
	if f, ok := probe["format"]; !ok || json.Unmarshal(f, &format) != nil || format != ExportFormat {
		if _, memory := probe["session_id"]; memory && !ok {
			return h, &LineError{Line: 1, Msg: fmt.Sprintf(`is a memory: the export's header line ({"format":%q,"version":...}) is missing`, ExportFormat)}
		}
		if _, mark := probe["forgotten"]; mark && !ok {
			return h, &LineError{Line: 1, Msg: fmt.Sprintf(`is a mark of a forgotten turn: the export's header line ({"format":%q,"version":...}) is missing`, ExportFormat)}
		}
		return h, &LineError{1, "format", fmt.Sprintf("not an agentmem export: the header's format must be %q", ExportFormat)}
	}
	var version int
	if v, ok := probe["version"]; !ok || json.Unmarshal(v, &version) != nil {
		return h, &LineError{1, "version", "missing or not a number"}
	}
	if version < 1 || version > ExportVersion {
		why := " (a newer agentmem wrote this file)"
		if version < 1 {
			why = ""
		}
		return h, &LineError{1, "version", fmt.Sprintf("format version %d is not supported; this agentmem reads versions 1 to %d%s", version, ExportVersion, why)}
	}
	if err := decodeStrict(1, raw, &h); err != nil {
		return h, err
	}
	if h.Dims < 0 || h.Dims > 1<<16 {
		return h, &LineError{1, "dims", fmt.Sprintf("must be between 0 and %d, got %d", 1<<16, h.Dims)}
	}
	if h.Vectors && (h.Embedder == "" || h.Dims == 0) {
		return h, &LineError{1, "vectors", "is true, but the header names no embedder and dimensions"}
	}
	return h, nil
}

// readMemoryLine checks one memory line against the limits remember
// applies, and returns the memory it describes.
func (s *Service) readMemoryLine(no int, raw []byte, head ExportHeader) (Memory, error) {
	var l ExportLine
	if err := decodeStrict(no, raw, &l); err != nil {
		return Memory{}, err
	}
	bad := func(field, msg string) (Memory, error) { return Memory{}, &LineError{no, field, msg} }
	if err := newName("namespace", l.Namespace, maxNamespace); err != nil {
		return bad("namespace", err.(*FieldError).Msg)
	}
	if err := newName("session_id", l.SessionID, maxSessionID); err != nil {
		return bad("session_id", err.(*FieldError).Msg)
	}
	date, ts, created, field, msg := s.lineDates(l)
	if field != "" {
		return bad(field, msg)
	}
	if field, msg := vetTurn(l); field != "" {
		return bad(field, msg)
	}
	if field, msg := vetContent(l, head); field != "" {
		return bad(field, msg)
	}
	if field, msg := vetLine(l, head); field != "" {
		return bad(field, msg)
	}
	return Memory{
		ID: l.ID, Namespace: l.Namespace, SessionID: l.SessionID, SessionDate: date, Turn: *l.Turn,
		Role: l.Role, Speaker: l.Speaker, Text: l.Text, Timestamp: ts, Key: l.Key,
		Hash: turnHash(l.Role, l.Speaker, l.Text, ts), Vectors: l.Vectors, Embedder: head.Embedder,
		Created: created,
	}, nil
}

// lineDates reads a memory line's session date, timestamp (nil when it
// has none) and creation (now when it has none); or the field that is
// wrong, and why.
func (s *Service) lineDates(l ExportLine) (date time.Time, ts *time.Time, created time.Time, field, msg string) {
	date, err := readStamp(l.SessionDate)
	if l.SessionDate == "" {
		return date, nil, created, "session_date", "is missing"
	}
	if err != nil {
		return date, nil, created, "session_date", err.Error()
	}
	if l.Timestamp != "" {
		t, err := readStamp(l.Timestamp)
		if err != nil {
			return date, nil, created, "timestamp", err.Error()
		}
		ts = &t
	}
	created = s.now().UTC()
	if l.Created != "" {
		if created, err = readStamp(l.Created); err != nil {
			return date, ts, created, "created", err.Error()
		}
	}
	return date, ts, created, "", ""
}

// vetTurn checks a memory line's turn, its id (session_id:turn) and its
// role.
func vetTurn(l ExportLine) (field, msg string) {
	if l.Turn == nil {
		return "turn", "is missing"
	}
	if *l.Turn < 0 || *l.Turn > MaxTurn {
		return "turn", fmt.Sprintf("must be between 0 and %d, got %d", MaxTurn, *l.Turn)
	}
	if want := MemoryID(l.SessionID, *l.Turn); l.ID != want {
		return "id", fmt.Sprintf("must be session_id:turn (%q), got %q", want, l.ID)
	}
	if !slices.Contains(Roles, l.Role) {
		return "role", fmt.Sprintf("must be one of %v, got %q", Roles, l.Role)
	}
	return "", ""
}

// vetContent checks a memory line's text, speaker and key against the
// limits remember applies, and that it holds vectors only where the
// header says the file has them.
func vetContent(l ExportLine, head ExportHeader) (field, msg string) {
	if strings.TrimSpace(l.Text) == "" {
		return "text", "must not be empty"
	}
	if !utf8.ValidString(l.Text) {
		return "text", "is not valid UTF-8"
	}
	if n := utf8.RuneCountInString(l.Text); n > MaxContentChars {
		return "text", fmt.Sprintf("is %d characters; the limit is %d", n, MaxContentChars)
	}
	if n := utf8.RuneCountInString(l.Speaker); n > maxSpeaker {
		return "speaker", fmt.Sprintf("is %d characters; the limit is %d", n, maxSpeaker)
	}
	if n := utf8.RuneCountInString(l.Key); n > maxKey {
		return "key", fmt.Sprintf("is %d characters; the limit is %d", n, maxKey)
	}
	if len(l.Vectors) > 0 && !head.Vectors {
		return "vectors", "are present, but the header says the file has none"
	}
	return "", ""
}

// vetLine checks what readMemoryLine leaves to it: the printed fields and
// the vectors.
func vetLine(l ExportLine, head ExportHeader) (field, msg string) {
	for _, f := range []struct{ name, v string }{{"speaker", l.Speaker}, {"key", l.Key}} {
		if err := plainField(f.name, f.v); err != nil {
			return f.name, err.(*FieldError).Msg
		}
	}
	for i, v := range l.Vectors {
		if len(v) != head.Dims {
			return fmt.Sprintf("vectors[%d]", i), fmt.Sprintf("has %d dimensions; the header says %d", len(v), head.Dims)
		}
	}
	return vetVectors(l.Text, l.Vectors)
}

// Dates in an export are RFC 3339 with the zone they were stored in.
func stamp(t time.Time) string { return t.Format(time.RFC3339Nano) }

func readStamp(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be an RFC 3339 date-time (2023-05-08T13:56:00Z), got %q", v)
	}
	return t, dateInRange(t)
}

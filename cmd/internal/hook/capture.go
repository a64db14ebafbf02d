package hook

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"agentmem/memory"
	"agentmem/memory/history/claudecode"
	"agentmem/tools/spec"
)

// Cursor is how far the hook has captured one session's transcript: the
// bytes and lines read and stored. It lives in the data dir, one file per
// session, so a hook reads only the transcript's new bytes; losing it only
// costs a re-read, since every turn carries its transcript uuid as its id
// and a resend stores nothing.
type Cursor struct {
	Path    string    `json:"path"`
	Offset  int64     `json:"offset"`
	Lines   int       `json:"lines"`
	Started time.Time `json:"started"` // the session's first turn: its date
	// CWD is the session's project: the cwd of its first capture (later
	// hooks may run in a subdirectory the model went to), which names the
	// namespace with --per-project.
	CWD string `json:"cwd,omitempty"`
	// Compacted says the host compacted the session's context
	// (PreCompact): its earlier turns are no longer all in the model's
	// context, so the hooks' recalls no longer leave the session out.
	Compacted bool `json:"compacted,omitempty"`
	// Given are the memories the hooks' auto-recall gave the model in
	// this session (since its last compaction), the latest maxGiven.
	Given []string `json:"given,omitempty"`
	// Namespace is where the session's turns were first stored: later
	// captures store there too, so that a session resumed after the hooks
	// were set up again (--per-project turned on, another --namespace)
	// stays whole in one namespace.
	Namespace string `json:"namespace,omitempty"`
	// Seen is the transcript's size when a capture last read it: a sweep
	// leaves a transcript of that size alone (what lies past Offset is a
	// line cut by the host's death, never ended).
	Seen int64 `json:"seen,omitempty"`
}

// readCursor is the session's cursor as saved, or the zero Cursor.
func (h Hook) readCursor(session string) Cursor {
	var c Cursor
	if dir, err := h.Config.Dir(); err == nil && ValidSession(session) {
		if b, err := os.ReadFile(CursorFile(dir, h.Host, session)); err == nil && json.Unmarshal(b, &c) != nil {
			return Cursor{}
		}
	}
	return c
}

// ValidSession says whether id may be a hook's session id (its cursor's
// file name, and a remember session id): 1 to 200 letters, digits, '.',
// '_' or '-'. (Not a regexp with {1,200}: compiled at start-up, its 200
// repetitions cost every hook process a few thousand allocations.)
func ValidSession(id string) bool {
	if id == "" || len(id) > 200 || id == "." || id == ".." { // remember refuses the two: a resource URI's path steps
		return false
	}
	for _, r := range id {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// CursorFile is where a host's session's cursor lives ("claude-code",
// "codex").
func CursorFile(dir, host, session string) string {
	return filepath.Join(dir, "capture", host, session+".json")
}

// lockCursor takes the session's cursor lock (two hooks of one session run
// one after the other; two sessions' hooks at once) and reads the cursor.
func lockCursor(ctx context.Context, dir, host, session string) (Cursor, func(), error) {
	file := CursorFile(dir, host, session)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return Cursor{}, nil, err
	}
	lk := flock.New(file + ".lock")
	if ok, err := lk.TryLockContext(ctx, 20*time.Millisecond); !ok {
		return Cursor{}, nil, fmt.Errorf("waiting for another hook of session %s: %w", session, errors.Join(err, ctx.Err()))
	}
	var c Cursor
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &c) != nil {
		c = Cursor{} // a damaged cursor: read the transcript again
	}
	return c, func() { lk.Unlock() }, nil
}

// updateCursor takes the session's cursor lock, lets change edit the
// cursor, and saves it where change says it changed.
func updateCursor(ctx context.Context, dir, host, session string, change func(c *Cursor) bool) error {
	cur, unlock, err := lockCursor(ctx, dir, host, session)
	if err != nil {
		return err
	}
	defer unlock()
	if !change(&cur) {
		return nil
	}
	return saveCursor(dir, host, session, cur)
}

func saveCursor(dir, host, session string, c Cursor) error {
	b, _ := json.Marshal(c)
	file := CursorFile(dir, host, session)
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// capture is what every host's capture does: check the hook's fields,
// take the session's cursor, read the transcript's new bytes, have the
// host's reader make turns of them, store the turns, and move the cursor
// past what the reader consumed.
func (h Hook) capture(ctx context.Context, in Input) error {
	if !ValidSession(in.SessionID) {
		return fmt.Errorf("session_id %q: want 1 to 200 letters, digits, '.', '_' or '-'", in.SessionID)
	}
	if in.TranscriptPath == "" {
		if h.Host == "codex" {
			return errors.New("the hook's JSON has no transcript_path (Codex runs without a rollout with --ephemeral: nothing to capture)")
		}
		return errors.New("the hook's JSON has no transcript_path")
	}
	dir, err := h.Config.Prepare()
	if err != nil {
		return err
	}
	cur, unlock, err := lockCursor(ctx, dir, h.Host, in.SessionID)
	if err != nil {
		return err
	}
	defer unlock()
	data, cur, err := readNew(in.TranscriptPath, cur)
	if err != nil {
		return err
	}
	seen := cur.Offset + int64(len(data))
	compacting := in.Event == "PreCompact"
	if len(data) == 0 && !compacting || seen == cur.Seen && !compacting {
		return nil // nothing new, or only the cut line read before
	}
	cur.Seen = seen
	if compacting {
		// the context the memories were given in is summarised away
		cur.Compacted, cur.Given = true, nil
	}
	turns, consumed := h.parse(in.TranscriptPath, data, cur.Lines)
	if len(turns) > 0 {
		if cur.Started.IsZero() {
			cur.Started = h.firstTime(turns)
		}
		cur.CWD = cmp.Or(cur.CWD, in.CWD)
		cur.Namespace = cmp.Or(cur.Namespace, h.Namespace(h.Config.Namespace, cur.CWD))
		if err := h.store(ctx, cur.Namespace, in.SessionID, cur.Started, turns); err != nil {
			return err
		}
	}
	cur.Lines += bytes.Count(data[:consumed], []byte{'\n'})
	cur.Offset += int64(consumed)
	return saveCursor(dir, h.Host, in.SessionID, cur)
}

// firstTime is the time of the first turn that has one (a line may have
// no timestamp), or now: the session's date.
func (h Hook) firstTime(turns []claudecode.Turn) time.Time {
	for _, t := range turns {
		if !t.Time.IsZero() {
			return t.Time
		}
	}
	if _, now, err := h.Config.Clock(); err == nil {
		return now()
	}
	return time.Now()
}

// readNew returns the bytes of the transcript after the cursor (all of it
// when the cursor is of another file, or the file is shorter than the
// cursor: rewritten).
func readNew(path string, cur Cursor) ([]byte, Cursor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cur, fmt.Errorf("transcript_path: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, cur, err
	}
	if !st.Mode().IsRegular() {
		return nil, cur, fmt.Errorf("transcript_path %s is not a regular file", path)
	}
	if cur.Path != path || st.Size() < cur.Offset {
		// read from the start (a cursor the auto-recall wrote before any
		// capture, a transcript rewritten): what is known of the session
		// stays
		cur = Cursor{Path: path, Started: cur.Started, CWD: cur.CWD, Compacted: cur.Compacted, Given: cur.Given, Namespace: cur.Namespace}
	}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return nil, cur, err
	}
	data, err := io.ReadAll(io.LimitReader(f, st.Size()-cur.Offset))
	return data, cur, err
}

// store remembers turns in as few remember calls as the limits allow,
// each message with the turn's uuid as its id: a call sent again (a hook
// run twice, an import after a capture) stores nothing twice.
func (h Hook) store(ctx context.Context, ns, session string, started time.Time, turns []claudecode.Turn) error {
	cl, done, err := h.Connect(ctx)
	if err != nil {
		return err
	}
	defer done()
	refused := 0
	err = rememberTurns(ctx, cl, ns, session, started, turns, func(m spec.Message, err error) {
		refused++
		if refused <= 5 {
			fmt.Fprintf(h.Errs, "agentmem hook %s: session %s: message %s (%s, %d characters) left out: %v\n", h.Host, session, m.ID, m.Role, utf8.RuneCountInString(m.Content), err)
		}
	})
	if refused > 0 {
		fmt.Fprintf(h.Errs, "agentmem hook %s: session %s: %d message(s) refused by remember and left out; the others are stored\n", h.Host, session, refused)
	}
	return err
}

// rememberTurns stores turns in the batches the limits allow. A batch the
// remember tool refuses (bad input: it stores nothing of it) is sent
// again message by message, and a message refused alone is left out and
// passed to refused: one bad turn must not stop a session's capture for
// good, as it would if the cursor never moved past it.
func rememberTurns(ctx context.Context, cl Memory, ns, session string, started time.Time, turns []claudecode.Turn, refused func(spec.Message, error)) error {
	args := spec.RememberArgs{SessionID: session, Namespace: ns}
	if !started.IsZero() { // else the session's date, or now
		args.SessionDate = started.Format(time.RFC3339Nano)
	}
	send := func(ms []spec.Message) error {
		args.Messages = ms
		_, _, err := cl.Remember(ctx, args)
		return err
	}
	for _, batch := range Batches(Messages(turns)) {
		err := send(batch)
		if err == nil {
			continue
		}
		if !isRefusal(err) {
			return fmt.Errorf("session %s: %w", session, err)
		}
		for _, m := range batch {
			if err := send([]spec.Message{m}); err != nil {
				if !isRefusal(err) {
					return fmt.Errorf("session %s: %w", session, err)
				}
				refused(m, err)
			}
		}
	}
	return nil
}

// isRefusal says whether err is a tool's refusal of bad input (which
// stores nothing and would be refused again), not a failure to retry.
func isRefusal(err error) bool {
	var r interface{ Refused() bool }
	return errors.As(err, &r) && r.Refused()
}

// Messages are the turns as remember messages; a turn longer than a
// message may be is split at line ends into parts (ids uuid, uuid#2, ...).
func Messages(turns []claudecode.Turn) []spec.Message {
	var out []spec.Message
	for _, t := range turns {
		ts := ""
		if !t.Time.IsZero() {
			ts = t.Time.Format(time.RFC3339Nano)
		}
		for i, part := range split(t.Text, memory.MaxContentChars) {
			id := t.ID
			if i > 0 {
				id = fmt.Sprintf("%s#%d", t.ID, i+1)
			}
			out = append(out, spec.Message{Role: t.Role, Content: part, Timestamp: ts, ID: id})
		}
	}
	return out
}

// split cuts text into parts of at most limit characters, at a line end
// where there is one in the part's second half. A part of blanks only (a
// run of them longer than a part) is left out: remember refuses an empty
// message, and would refuse the whole capture with it, every time.
func split(text string, limit int) []string {
	var parts []string
	add := func(p string) {
		if strings.TrimSpace(p) != "" {
			parts = append(parts, p)
		}
	}
	for utf8.RuneCountInString(text) > limit {
		cut := byteOffset(text, limit)
		if nl := strings.LastIndexByte(text[:cut], '\n'); nl > cut/2 {
			cut = nl + 1
		}
		add(text[:cut])
		text = text[cut:]
	}
	add(text)
	return parts
}

func byteOffset(s string, runes int) int {
	for i := range s {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(s)
}

// Batches cut messages into remember calls within its limits.
func Batches(ms []spec.Message) [][]spec.Message {
	const maxBytes = memory.MaxCallBytes - 64<<10
	var out [][]spec.Message
	var cur []spec.Message
	size := 0
	for _, m := range ms {
		if len(cur) == memory.MaxMessages || (len(cur) > 0 && size+len(m.Content) > maxBytes) {
			out, cur, size = append(out, cur), nil, 0
		}
		cur = append(cur, m)
		size += len(m.Content)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// ProjectNamespace is the namespace of a project directory: its name and
// a hash of its path ("project-agentmem-1a2b3c4d").
func ProjectNamespace(cwd string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return fmt.Sprintf("project-%s-%x", ProjectName(cwd), sum[:4])
}

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ProjectName is the last element of a project directory, as a namespace
// may spell it.
func ProjectName(cwd string) string {
	name := notNameChar.ReplaceAllString(filepath.Base(filepath.Clean(cwd)), "-")
	name = strings.Trim(name, "-.")
	if len(name) > 60 {
		name = name[:60]
	}
	return cmp.Or(name, "root")
}

package main

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
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// cursor is how far the hook has captured one session's transcript: the
// bytes and lines read and stored. It lives in the data dir, one file per
// session, so a hook reads only the transcript's new bytes; losing it only
// costs a re-read, since every turn carries its transcript uuid as its id
// and a resend stores nothing.
type cursor struct {
	Path    string    `json:"path"`
	Offset  int64     `json:"offset"`
	Lines   int       `json:"lines"`
	Started time.Time `json:"started"` // the session's first turn: its date
	// CWD is the session's project: the cwd of its first capture (later
	// hooks may run in a subdirectory the model went to), which names the
	// namespace with --per-project.
	CWD string `json:"cwd,omitempty"`
}

// sessionCWD is the project directory of the session's namespace: the
// one its cursor holds, else cwd.
func sessionCWD(e *env, host, session, cwd string) string {
	var c cursor
	if dir, err := e.cfg.Dir(); err == nil && sessionName.MatchString(session) {
		if b, err := os.ReadFile(cursorFile(dir, host, session)); err == nil && json.Unmarshal(b, &c) == nil && c.CWD != "" {
			return c.CWD
		}
	}
	return cwd
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)

// cursorFile is where a host's session's cursor lives ("claude-code",
// "codex").
func cursorFile(dir, host, session string) string {
	return filepath.Join(dir, "capture", host, session+".json")
}

// lockCursor takes the session's cursor lock (two hooks of one session run
// one after the other; two sessions' hooks at once) and reads the cursor.
func lockCursor(ctx context.Context, dir, host, session string) (cursor, func(), error) {
	file := cursorFile(dir, host, session)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return cursor{}, nil, err
	}
	lk := flock.New(file + ".lock")
	if ok, err := lk.TryLockContext(ctx, 20*time.Millisecond); !ok {
		return cursor{}, nil, fmt.Errorf("waiting for another hook of session %s: %w", session, errors.Join(err, ctx.Err()))
	}
	var c cursor
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &c) != nil {
		c = cursor{} // a damaged cursor: read the transcript again
	}
	return c, func() { lk.Unlock() }, nil
}

func saveCursor(dir, host, session string, c cursor) error {
	b, _ := json.Marshal(c)
	file := cursorFile(dir, host, session)
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// capture stores the turns of the transcript not stored yet.
func (c claudeHookCmd) capture(ctx context.Context, e *env, in hookInput) error {
	return captureNew(ctx, e, c.hookOptions, in, "claude-code", func(data []byte, before int) ([]claudecode.Turn, int) {
		res := claudecode.Parse(data, false)
		reportBad(c.errs, in.TranscriptPath, before, res)
		return res.Turns, res.Consumed
	})
}

// captureNew is what every host's capture does: check the hook's fields,
// take the session's cursor, read the transcript's new bytes, have parse
// (the host's reader; before is the lines already read) make turns of
// them, store the turns, and move the cursor past what parse consumed.
func captureNew(ctx context.Context, e *env, o hookOptions, in hookInput, host string, parse func(data []byte, before int) ([]claudecode.Turn, int)) error {
	if !sessionName.MatchString(in.SessionID) {
		return fmt.Errorf("session_id %q: want 1 to 200 letters, digits, '.', '_' or '-'", in.SessionID)
	}
	if in.TranscriptPath == "" {
		return errors.New("the hook's JSON has no transcript_path")
	}
	dir, err := e.cfg.Prepare()
	if err != nil {
		return err
	}
	cur, unlock, err := lockCursor(ctx, dir, host, in.SessionID)
	if err != nil {
		return err
	}
	defer unlock()
	data, cur, err := readNew(in.TranscriptPath, cur)
	if err != nil || len(data) == 0 {
		return err
	}
	turns, consumed := parse(data, cur.Lines)
	if len(turns) > 0 {
		if cur.Started.IsZero() {
			cur.Started = firstTime(e, turns)
		}
		cur.CWD = cmp.Or(cur.CWD, in.CWD)
		if err := store(ctx, e, o.namespace(e, cur.CWD), in.SessionID, cur.Started, turns); err != nil {
			return err
		}
	}
	cur.Lines += bytes.Count(data[:consumed], []byte{'\n'})
	cur.Offset += int64(consumed)
	return saveCursor(dir, host, in.SessionID, cur)
}

// firstTime is the time of the first turn that has one (a line may have
// no timestamp), or now: the session's date.
func firstTime(e *env, turns []claudecode.Turn) time.Time {
	for _, t := range turns {
		if !t.Time.IsZero() {
			return t.Time
		}
	}
	if _, now, err := e.cfg.Clock(); err == nil {
		return now()
	}
	return time.Now()
}

// readNew returns the bytes of the transcript after the cursor (all of it
// when the cursor is of another file, or the file is shorter than the
// cursor: rewritten).
func readNew(path string, cur cursor) ([]byte, cursor, error) {
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
		cur = cursor{Path: path}
	}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return nil, cur, err
	}
	data, err := io.ReadAll(io.LimitReader(f, st.Size()-cur.Offset))
	return data, cur, err
}

// reportBad says on stderr which lines were not JSON objects; a file of
// which no line is a transcript's is not a transcript.
func reportBad(w io.Writer, path string, before int, res claudecode.Result) {
	if before == 0 && res.Lines > 0 && len(res.Bad)+res.Skipped[claudecode.Untyped] == res.Lines {
		fmt.Fprintf(w, "agentmem hook claude-code: %s is not a Claude Code transcript (none of its %d lines is a transcript's); nothing stored\n", path, res.Lines)
		return
	}
	n := len(res.Bad)
	if n == 0 {
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
	fmt.Fprintf(w, "agentmem hook claude-code: %s: %s not JSON objects, left out; the other turns are stored\n", path, what)
}

// store remembers turns in as few remember calls as the limits allow,
// each message with the turn's uuid as its id: a call sent again (a hook
// run twice, an import after a capture) stores nothing twice.
func store(ctx context.Context, e *env, ns, session string, started time.Time, turns []claudecode.Turn) error {
	cl, done, err := connect(e)
	if err != nil {
		return err
	}
	defer done()
	return rememberTurns(ctx, cl, ns, session, started, turns)
}

func rememberTurns(ctx context.Context, cl *client.Client, ns, session string, started time.Time, turns []claudecode.Turn) error {
	for _, batch := range batches(messages(turns)) {
		args := spec.RememberArgs{Messages: batch, SessionID: session, Namespace: ns}
		if !started.IsZero() { // else the session's date, or now
			args.SessionDate = started.Format(time.RFC3339Nano)
		}
		if _, _, err := cl.Remember(ctx, args); err != nil {
			return fmt.Errorf("session %s: %w", session, err)
		}
	}
	return nil
}

// messages are the turns as remember messages; a turn longer than a
// message may be is split at line ends into parts (ids uuid, uuid#2, ...).
func messages(turns []claudecode.Turn) []spec.Message {
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

// batches cut messages into remember calls within its limits.
func batches(ms []spec.Message) [][]spec.Message {
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

// projectNamespace is the namespace of a project directory: its name and
// a hash of its path ("project-agentmem-1a2b3c4d").
func projectNamespace(cwd string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return fmt.Sprintf("project-%s-%x", projectName(cwd), sum[:4])
}

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// projectName is the last element of a project directory, as a namespace
// may spell it.
func projectName(cwd string) string {
	name := notNameChar.ReplaceAllString(filepath.Base(filepath.Clean(cwd)), "-")
	name = strings.Trim(name, "-.")
	if len(name) > 60 {
		name = name[:60]
	}
	if name == "" {
		name = "root"
	}
	return name
}

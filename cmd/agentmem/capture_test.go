package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

// The hook driven through its Run, as Claude Code runs it: the hook's JSON
// on stdin, a transcript written in Claude Code's shape (one line per
// content block, bookkeeping lines between them), a data dir of its own
// and no embedding model.

// transcript writes a Claude Code transcript and records the turns the
// hook must store from it.
type transcript struct {
	path, session, cwd string
	now                time.Time
	n                  int
	want               []wantTurn
}

type wantTurn struct {
	key, role, text string
	at              time.Time
}

func newTranscript(t testing.TB, session, cwd string) *transcript {
	dir := filepath.Join(t.TempDir(), ".claude", "projects", "-home-sam-src-garden")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &transcript{
		path: filepath.Join(dir, session+".jsonl"), session: session, cwd: cwd,
		now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
	}
}

// tick is the next line's uuid and time.
func (x *transcript) tick() (string, time.Time) {
	x.n++
	x.now = x.now.Add(1500 * time.Millisecond)
	return fmt.Sprintf("%08d-0000-4000-8000-%012d", x.n, x.n), x.now
}

func (x *transcript) line(fields map[string]any) []byte {
	fields["sessionId"], fields["cwd"], fields["isSidechain"] = x.session, x.cwd, false
	fields["version"], fields["userType"], fields["entrypoint"] = "2.1.328", "external", "cli"
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func (x *transcript) user(content any) ([]byte, string, time.Time) {
	id, at := x.tick()
	return x.line(map[string]any{"type": "user", "uuid": id, "timestamp": at, "message": map[string]any{"role": "user", "content": content}}), id, at
}

func (x *transcript) block(msgID string, b map[string]any) ([]byte, string, time.Time) {
	id, at := x.tick()
	msg := map[string]any{"id": msgID, "role": "assistant", "model": "claude-opus-5-5", "type": "message", "content": []any{b}}
	return x.line(map[string]any{"type": "assistant", "uuid": id, "timestamp": at, "message": msg, "requestRef": "r-" + msgID}), id, at
}

func bookkeeping(session string, kind string) []byte {
	b, _ := json.Marshal(map[string]any{"type": kind, "sessionId": session, "leafUuid": "x", "atis": 1})
	return append(b, '\n')
}

// exchange is one prompt and its answer as Claude Code writes them: the
// prompt, a reply of thinking, text and a tool call (one message id), the
// tool's result, and a reply of two text blocks. It returns the lines.
func (x *transcript) exchange(prompt, first, second string, toolResult string) []byte {
	var out bytes.Buffer
	w := func(b []byte) { out.Write(b) }
	w(bookkeeping(x.session, "queue-operation"))
	p, id, at := x.user(prompt)
	w(p)
	x.want = append(x.want, wantTurn{id, "user", prompt, at})
	w(bookkeeping(x.session, "attachment"))
	m1, m2 := fmt.Sprintf("msg_%d_a", x.n), fmt.Sprintf("msg_%d_b", x.n)
	b, _, _ := x.block(m1, map[string]any{"type": "thinking", "thinking": "Hmm.", "signature": "s"})
	w(b)
	b, id, at = x.block(m1, map[string]any{"type": "text", "text": first})
	w(b)
	x.want = append(x.want, wantTurn{id, "assistant", first, at})
	w(bookkeeping(x.session, "last-prompt"))
	b, _, _ = x.block(m1, map[string]any{"type": "tool_use", "id": "toolu_" + m1, "name": "Read", "input": map[string]any{"file_path": "notes.md"}})
	w(b)
	b, _, _ = x.user([]any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + m1, "content": toolResult}})
	w(b)
	b, id, at = x.block(m2, map[string]any{"type": "text", "text": second})
	w(b)
	w(bookkeeping(x.session, "atis-latch"))
	b, _, _ = x.block(m2, map[string]any{"type": "text", "text": "(" + prompt[:min(len(prompt), 12)] + ")"})
	w(b)
	x.want = append(x.want, wantTurn{id, "assistant", second + "\n\n(" + prompt[:min(len(prompt), 12)] + ")", at})
	w(bookkeeping(x.session, "system"))
	w(bookkeeping(x.session, "cost-state"))
	return out.Bytes()
}

func (x *transcript) write(t testing.TB, data []byte) {
	t.Helper()
	f, err := os.OpenFile(x.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func hookEnv(t testing.TB) *env {
	cfg := Config{
		DataDir: filepath.Join(t.TempDir(), "data"), Namespace: "default", Timezone: "UTC",
		Now: "2026-12-01T10:00:00Z", Embedder: "none", Store: "embedded", Fusion: "rrf",
	}
	return &env{ctx: context.Background(), cfg: cfg, log: slog.New(slog.DiscardHandler)}
}

func (x *transcript) event(name string) map[string]any {
	return map[string]any{"session_id": x.session, "transcript_path": x.path, "cwd": x.cwd, "hook_event_name": name, "stop_hook_active": false}
}

type hookOpt func(*claudeHookCmd)

// runHook runs the hook with stdin; it must return nil whatever happens.
func runHook(t testing.TB, e *env, stdin string, opts ...hookOpt) (stdout, stderr string) {
	var out, errs bytes.Buffer
	c := claudeHookCmd{hookOptions: hookOptions{RecallTokens: 800, Timeout: 30 * time.Second}, in: strings.NewReader(stdin), out: &out, errs: &errs}
	for _, o := range opts {
		o(&c)
	}
	if err := c.Run(e); err != nil {
		t.Errorf("hook returned %v: it must never fail the host", err)
	}
	return out.String(), errs.String()
}

func hookJSON(t testing.TB, e *env, in map[string]any, opts ...hookOpt) (stdout, stderr string) {
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return runHook(t, e, string(b), opts...)
}

// stop runs the Stop hook and fails the test on anything on stderr.
func (x *transcript) stop(t testing.TB, e *env, opts ...hookOpt) {
	t.Helper()
	if _, errs := hookJSON(t, e, x.event("Stop"), opts...); errs != "" {
		t.Errorf("Stop hook: %s", errs)
	}
}

// stored is what the memory holds of a session (nil: nothing).
func stored(t testing.TB, e *env, ns, session string) []memory.Memory {
	t.Helper()
	b, err := openBackend(context.Background(), e.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ms, err := b.Service.Session(context.Background(), ns, session)
	var nf *memory.NotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// checkStored says where the memory differs from want: every turn once,
// verbatim, in order, with its uuid as key and its own time.
func checkStored(t testing.TB, ms []memory.Memory, want []wantTurn, sessionDate time.Time) {
	t.Helper()
	for i := range max(len(ms), len(want)) {
		switch {
		case i >= len(ms):
			t.Errorf("turn %d lost: %s %q", i, want[i].role, want[i].text)
		case i >= len(want):
			t.Errorf("turn %d stored but not said (a duplicate?): %s %s %.60q", i, ms[i].Key, ms[i].Role, ms[i].Text)
		case ms[i].Key != want[i].key || ms[i].Role != want[i].role || ms[i].Text != want[i].text:
			t.Errorf("turn %d = %s %s %.80q, want %s %s %.80q", i, ms[i].Key, ms[i].Role, ms[i].Text, want[i].key, want[i].role, want[i].text)
		case ms[i].Timestamp == nil || !ms[i].Timestamp.Equal(want[i].at):
			t.Errorf("turn %d's timestamp %v, want its own %v", i, ms[i].Timestamp, want[i].at)
		case !ms[i].SessionDate.Equal(sessionDate):
			t.Errorf("turn %d's session date %v, want %v (the session's first turn)", i, ms[i].SessionDate, sessionDate)
		}
	}
}

func readCursor(t testing.TB, e *env, session string) cursor {
	t.Helper()
	var c cursor
	b, err := os.ReadFile(cursorFile(e.cfg.DataDir, session))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func fileSize(t testing.TB, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

const sess1 = "0c9e7f52-6a1d-4b3e-9f0a-5d2c8b7e1a43"

// Three runs of the capture hooks store every turn once; the session
// resumed days later (its file appended to) appends its turns, and a run
// reads only the bytes after the cursor.
func TestCaptureRerunsAndResume(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	part1 := x.exchange("I adopted a golden retriever named Biscuit last week.", "Congratulations!", "Goldens love water.", "notes")
	part1 = append(part1, x.exchange("Mi hermana Ana se mudó a Lisboa 🇵🇹", "¡Qué bien! 🌊", "素晴らしい。", "ok")...)
	x.write(t, part1)
	started := x.want[0].at
	for _, ev := range []string{"Stop", "Stop", "SessionEnd"} {
		if _, errs := hookJSON(t, e, x.event(ev)); errs != "" {
			t.Fatalf("%s: %s", ev, errs)
		}
	}
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
	if c := readCursor(t, e, sess1); c.Offset != int64(len(part1)) || c.Lines != bytes.Count(part1, []byte{'\n'}) || c.Path != x.path {
		t.Errorf("cursor %+v, want offset %d (the whole file)", c, len(part1))
	}

	// resumed three days later: the same file, appended to
	x.now = x.now.Add(72 * time.Hour)
	out, errs := hookJSON(t, e, map[string]any{"session_id": sess1, "transcript_path": x.path, "cwd": x.cwd, "hook_event_name": "SessionStart", "source": "resume"})
	if errs != "" || !strings.Contains(out, "Today is Tuesday, 1 December 2026") {
		t.Errorf("SessionStart printed %q (stderr %q), want the date", out, errs)
	}
	part2 := x.exchange("Biscuit loves the beach.", "Noted.", "Which beach?", strings.Repeat("tool output\n", 1000))
	x.write(t, part2)
	// the old part made unreadable in place: a run that read it again
	// would say so on stderr, and store nothing of the new part if it
	// stopped there
	garbleInPlace(t, x.path, len(part1))
	for range 3 {
		x.stop(t, e)
	}
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
	if c := readCursor(t, e, sess1); c.Offset != int64(len(part1)+len(part2)) {
		t.Errorf("cursor at %d, want %d", c.Offset, len(part1)+len(part2))
	}

	// the cursor lost: the whole transcript read again, nothing stored twice
	if err := os.WriteFile(x.path, append(part1, part2...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(cursorFile(e.cfg.DataDir, sess1))); err != nil {
		t.Fatal(err)
	}
	x.stop(t, e)
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
}

// garbleInPlace overwrites the first n bytes of path, newlines kept, so
// that none of its lines is JSON any more.
func garbleInPlace(t testing.TB, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, n)
	old, _ := os.ReadFile(path)
	for i := range b {
		b[i] = '#'
		if old[i] == '\n' {
			b[i] = '\n'
		}
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
}

// A transcript whose last line is being written when the hook runs: the
// turns before it are stored, the cursor stops before it, and the next run
// stores it once it is whole.
func TestCaptureTruncatedLine(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	whole := x.exchange("First question?", "First answer.", "More.", "r")
	last, id, at := x.user("The prompt being written right now.")
	x.want = append(x.want, wantTurn{id, "user", "The prompt being written right now.", at})
	cut := len(last) / 2
	x.write(t, append(bytes.Clone(whole), last[:cut]...))
	x.stop(t, e)
	checkStored(t, stored(t, e, "default", sess1), x.want[:3], x.want[0].at)
	if c := readCursor(t, e, sess1); c.Offset != int64(len(whole)) {
		t.Errorf("cursor at %d, want %d (before the half line)", c.Offset, len(whole))
	}
	x.write(t, last[cut:])
	x.stop(t, e)
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}


// Bad input: a clear message on stderr, nil from Run (exit 0), nothing
// stored, and the next good run captures everything.
func TestCaptureBadInput(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	dir := filepath.Dir(x.path)
	notTranscript := filepath.Join(dir, "notes.txt")
	settings := filepath.Join(dir, "settings.json")
	otherJSONL := filepath.Join(dir, "other.jsonl")
	os.WriteFile(notTranscript, []byte("Dear diary,\nno JSON here.\n"), 0o600)
	os.WriteFile(settings, []byte("{\n  \"hooks\": {}\n}\n"), 0o600)
	os.WriteFile(otherJSONL, []byte(`{"a":1}`+"\n"+`[1,2]`+"\n"+`"text"`+"\n"), 0o600)
	stop := func(session, path string) string {
		b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": x.cwd, "hook_event_name": "Stop"})
		return string(b)
	}
	for _, c := range []struct{ name, stdin, want string }{
		{"empty stdin", "", "not JSON"},
		{"stdin not JSON", "Stop please", "not JSON"},
		{"stdin a JSON array", "[1]", "not JSON"},
		{"no event", `{"session_id":"s1"}`, "hook_event_name"},
		{"no session id", `{"hook_event_name":"Stop","transcript_path":"` + x.path + `"}`, "session_id"},
		{"a session id that is a path", stop("../../etc", x.path), "session_id"},
		{"no transcript path", `{"hook_event_name":"Stop","session_id":"` + sess1 + `"}`, "transcript_path"},
		{"a transcript that does not exist", stop(sess1, filepath.Join(dir, "missing.jsonl")), "no such file"},
		{"a transcript path that is a directory", stop(sess1, dir), "not a regular file"},
		{"a text file", stop("s-text", notTranscript), "not a Claude Code transcript"},
		{"a JSON file", stop("s-json", settings), "not a Claude Code transcript"},
		{"JSON lines of something else", stop("s-other", otherJSONL), "not a Claude Code transcript"},
	} {
		out, errs := runHook(t, e, c.stdin)
		if !strings.Contains(errs, c.want) || !strings.HasPrefix(errs, "agentmem hook claude-code: ") || out != "" {
			t.Errorf("%s: stderr %q, stdout %q; want a message about %q", c.name, errs, out, c.want)
		}
	}
	if ns := namespaces(t, e); len(ns) != 0 {
		t.Errorf("bad input stored %v", ns)
	}
	x.write(t, x.exchange("Now a good one.", "Yes.", "Good.", "r"))
	x.stop(t, e)
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}

func namespaces(t testing.TB, e *env) []memory.NamespaceInfo {
	t.Helper()
	b, err := openBackend(context.Background(), e.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ns, err := b.Service.Namespaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// Lines that are not JSON amid the transcript are named on stderr by
// their line number in the file, and the turns around them are stored.
func TestCaptureLinesNotJSON(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	a := x.exchange("Before the bad line.", "A.", "B.", "r")
	x.write(t, a)
	x.stop(t, e)
	b := x.exchange("After the bad line.", "C.", "D.", "r")
	x.write(t, append([]byte(`{"type":"user","message":{"content":"cut short by a cra`+"\nnot json\n"), b...))
	_, errs := hookJSON(t, e, x.event("Stop"))
	n := bytes.Count(a, []byte{'\n'})
	if want := fmt.Sprintf("line(s) %d, %d not JSON objects", n+1, n+2); !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}

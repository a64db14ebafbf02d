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
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/cmd/internal/backend"
	"agentmem/cmd/internal/config"
	"agentmem/cmd/internal/hook"
	"agentmem/memory"
	"agentmem/memory/history/claudecode"
	"agentmem/tools/spec"
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
	cfg := backend.Config{
		Base:     config.Base{DataDir: filepath.Join(t.TempDir(), "data"), Namespace: "default", Timezone: "UTC", Now: "2026-12-01T10:00:00Z"},
		Embedder: "none", Store: "embedded", Fusion: "rrf",
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
	b, err := backend.Open(context.Background(), e.cfg, nil)
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
			t.Errorf("turn %d lost: %s %.80q", i, want[i].role, want[i].text)
		case i >= len(want):
			t.Errorf("turn %d stored but not said (a duplicate?): %s %s %.60q", i, ms[i].Key, ms[i].Role, ms[i].Text)
		case ms[i].Key != want[i].key || ms[i].Role != want[i].role || ms[i].Text != want[i].text:
			t.Errorf("turn %d = %s %s %.80q, want %s %s %.80q", i, ms[i].Key, ms[i].Role, ms[i].Text, want[i].key, want[i].role, want[i].text)
		case ms[i].Timestamp == nil || !ms[i].Timestamp.Equal(want[i].at):
			t.Errorf("turn %d's timestamp %v, want its own %v", i, ms[i].Timestamp, want[i].at)
		case !ms[i].SessionDate.Equal(turnDate(sessionDate, want[i].at)):
			t.Errorf("turn %d's session date %v, want %v (the session's first turn's, or its own on a later day)", i, ms[i].SessionDate, turnDate(sessionDate, want[i].at))
		}
	}
}

// turnDate is the date a turn is stored under (in UTC, hookEnv's zone):
// its session's, or its own time when that falls on a later day (a
// session resumed days later).
func turnDate(session, at time.Time) time.Time {
	if at.UTC().Format(time.DateOnly) > session.UTC().Format(time.DateOnly) {
		return at
	}
	return session
}

func readCursor(t testing.TB, e *env, session string) hook.Cursor {
	t.Helper()
	var c hook.Cursor
	b, err := os.ReadFile(hook.CursorFile(e.cfg.DataDir, "claude-code", session))
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

const (
	sess1 = "0c9e7f52-6a1d-4b3e-9f0a-5d2c8b7e1a43"
	sess2 = "5b1d3f0e-8c2a-4d7e-b6f1-2e9a7c4d0b18"
	sess3 = "e2a47c91-3f5d-4b6a-9c8e-7d1f0a2b3c4d"
)

// Three runs of the capture hooks store every turn once; the session
// resumed days later (its file appended to) appends its turns, dated the
// day they were said, and a run reads only the bytes after the cursor.
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
	if err := os.RemoveAll(filepath.Dir(hook.CursorFile(e.cfg.DataDir, "claude-code", sess1))); err != nil {
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
	b, err := backend.Open(context.Background(), e.cfg, nil)
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

// joinParts is ms with the parts of a turn too long for one message (keys
// id#2, id#3, ...) joined back into it, after checking each part's key and
// length.
func joinParts(t testing.TB, ms []memory.Memory) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	part := 1
	for _, m := range ms {
		if n := len([]rune(m.Text)); n > memory.MaxContentChars {
			t.Errorf("memory %s holds %d characters, over the limit", m.Key, n)
		}
		base, k, isPart := strings.Cut(m.Key, "#")
		if !isPart {
			out, part = append(out, m), 1
			continue
		}
		part++
		if prev := &out[len(out)-1]; prev.Key != base || k != fmt.Sprint(part) {
			t.Errorf("part %s follows %s", m.Key, prev.Key)
		} else {
			prev.Text += m.Text
		}
	}
	return out
}

// A 64 MB tool result is left out; a prompt longer than a message may be
// (pasted logs: lines, a run without a line end) is stored whole in parts;
// a run of blanks longer than a part keeps
// every word around it (a part of blanks only is left out: remember
// refuses an empty message, and used to refuse the whole capture with it).
func TestCaptureHugeLines(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("Read the big log.", "Reading it.", "It is big.", "r"))
	x.write(t, x.hugeToolResult(64<<20))
	long := "Here is my log:\n" + strings.Repeat("línea del registro — 記録 🪵\n", 4000) +
		strings.Repeat("x", 200_000) + "\nWhat went wrong?"
	blanks := "Before the blanks." + strings.Repeat(" ", 140_000) + strings.Repeat("\n", 70_000) + "After the blanks."
	for _, prompt := range []string{long, blanks} {
		p, id, at := x.user(prompt)
		x.want = append(x.want, wantTurn{id, "user", prompt, at})
		x.write(t, p)
	}
	x.stop(t, e)
	ms := stored(t, e, "default", sess1)
	if len(ms) < 10 {
		t.Errorf("%d memories: the prompt was not cut into parts of at most %d characters", len(ms), memory.MaxContentChars)
	}
	got := joinParts(t, ms)
	if len(got) == len(x.want) {
		if g := strings.Fields(got[4].Text); !reflect.DeepEqual(g, strings.Fields(blanks)) {
			t.Errorf("the prompt with a long run of blanks became %.200q", got[4].Text)
		}
		got[4].Text = blanks
	}
	checkStored(t, got, x.want, x.want[0].at)
}

// hugeToolResult is a tool result line of size bytes, written by hand
// (json.Marshal takes seconds over 64 MB).
func (x *transcript) hugeToolResult(size int) []byte {
	id, at := x.tick()
	head := fmt.Sprintf(`{"type":"user","uuid":%q,"timestamp":%q,"sessionId":%q,"cwd":%q,"isSidechain":false,`+
		`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_big","content":"`,
		id, at.Format(time.RFC3339Nano), x.session, x.cwd)
	const unit = `0123456789 tool output: ok\n`
	return []byte(head + strings.Repeat(unit, size/len(unit)) + `"}]}}` + "\n")
}

// A capture larger than one remember call may be is sent in several, each
// within the limits, in order.
func TestCaptureBatches(t *testing.T) {
	var turns []claudecode.Turn
	for i := range 300 {
		text := strings.Repeat("🪵 journal ", 3000+i) // 4-byte runes: bytes, not characters, fill a call
		turns = append(turns, claudecode.Turn{ID: fmt.Sprint("u", i), Role: "user", Text: text})
	}
	turns = append(turns, claudecode.Turn{ID: "u-long", Role: "assistant", Text: strings.Repeat("ß", 3*memory.MaxContentChars+5)})
	ms := hook.Messages(turns)
	var sent []spec.Message
	bs := hook.Batches(ms)
	if len(bs) < 2 {
		t.Fatalf("%d calls for %d messages", len(bs), len(ms))
	}
	for i, b := range bs {
		size := 0
		for _, m := range b {
			size += len(m.Content)
		}
		if size > memory.MaxCallBytes || len(b) > memory.MaxMessages || len(b) == 0 {
			t.Errorf("call %d: %d messages, %d bytes", i, len(b), size)
		}
		sent = append(sent, b...)
	}
	if !reflect.DeepEqual(sent, ms) {
		t.Errorf("the calls do not send the messages in order, each once")
	}
	if last := sent[len(sent)-1]; last.ID != "u-long#4" || len([]rune(last.Content)) != 5 {
		t.Errorf("last part %s of %d characters, want u-long#4 of 5", last.ID, len([]rune(last.Content)))
	}
}

// A transcript whose first lines have no timestamp: the session is dated
// by its first turn that has one, never the year 1, and every memory of
// the session has the same date.
func TestCaptureWithoutTimestamps(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	b := x.line(map[string]any{"type": "user", "uuid": "u-no-time", "message": map[string]any{"role": "user", "content": "When did I say this?"}})
	x.write(t, b)
	x.stop(t, e)
	x.write(t, x.exchange("And this?", "Now.", "Yes.", "r"))
	x.stop(t, e)
	ms := stored(t, e, "default", sess1)
	if len(ms) != 4 || ms[0].Key != "u-no-time" || ms[0].Timestamp != nil {
		t.Fatalf("stored %d memories, want 4, the first without a timestamp", len(ms))
	}
	for _, m := range ms {
		if !m.SessionDate.Equal(ms[0].SessionDate) || m.SessionDate.Year() != 2026 {
			t.Errorf("memory %s dated %v, the session's first %v", m.Key, m.SessionDate, ms[0].SessionDate)
		}
	}
}

// Hooks of two sessions at once, and two hooks of one session at once, as
// Claude Code runs them when sessions end together: each waits its turn,
// none fails, and every turn is stored once.
func TestCaptureConcurrent(t *testing.T) {
	e := hookEnv(t)
	a := newTranscript(t, sess1, "/home/sam/src/garden")
	b := newTranscript(t, "3b1f0e2d-7c4a-4d5e-8f6a-9b0c1d2e3f4a", "/home/sam/src/kitchen")
	for round := range 3 {
		a.write(t, a.exchange(fmt.Sprintf("Garden question %d?", round), "Garden answer.", "More garden.", "r"))
		b.write(t, b.exchange(fmt.Sprintf("Kitchen question %d?", round), "Kitchen answer.", "More kitchen.", "r"))
		var wg sync.WaitGroup
		for _, x := range []*transcript{a, b, a, b} {
			wg.Go(func() { x.stop(t, e) })
		}
		wg.Wait()
	}
	checkStored(t, stored(t, e, "default", a.session), a.want, a.want[0].at)
	checkStored(t, stored(t, e, "default", b.session), b.want, b.want[0].at)
}

// A hook that cannot get the memory in time (another process holds it and
// serves no socket) gives up after --timeout, says so, stores nothing and
// leaves the cursor; the next run captures everything.
func TestCaptureGivesUp(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("Will this be stored?", "Later.", "Yes.", "r"))
	held, err := backend.Open(context.Background(), e.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, errs := hookJSON(t, e, x.event("Stop"), func(c *claudeHookCmd) { c.Timeout = time.Second })
	if !strings.Contains(errs, "gave up after --timeout 1s") {
		t.Errorf("stderr %q, want it to say it gave up after --timeout", errs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hook took %v with --timeout 1s", d)
	}
	if _, err := os.Stat(hook.CursorFile(e.cfg.DataDir, "claude-code", sess1)); !os.IsNotExist(err) {
		t.Errorf("the cursor moved although nothing was stored (%v)", err)
	}
	held.Close()
	x.stop(t, e)
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}

// With --per-project, each project directory has its own namespace (two
// projects of one name too), and nothing goes to the default one.
func TestCapturePerProject(t *testing.T) {
	e := hookEnv(t)
	perProject := func(c *claudeHookCmd) { c.PerProject = true }
	var xs []*transcript
	for i, cwd := range []string{"/home/sam/src/garden", "/home/sam/old/garden", "/home/sam/Mes Projets/jardín ☀", "/"} {
		x := newTranscript(t, fmt.Sprintf("%08d-aaaa-4bbb-8ccc-000000000000", i), cwd)
		x.write(t, x.exchange("Project "+cwd+"?", "Yes.", "Sure.", "r"))
		x.stop(t, e, perProject)
		xs = append(xs, x)
	}
	seen := map[string]bool{}
	for _, x := range xs {
		ns := hook.ProjectNamespace(x.cwd)
		if seen[ns] || !strings.HasPrefix(ns, "project-") {
			t.Errorf("cwd %s: namespace %s", x.cwd, ns)
		}
		seen[ns] = true
		checkStored(t, stored(t, e, ns, x.session), x.want, x.want[0].at)
	}
	if got := stored(t, e, "default", xs[0].session); got != nil {
		t.Errorf("--per-project stored %d memories in the default namespace", len(got))
	}
}

// additionalContext reads the hook's output for the model.
func additionalContext(t testing.TB, out, event string) string {
	t.Helper()
	var o struct {
		HookSpecificOutput struct {
			HookEventName, AdditionalContext string
		}
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.HookSpecificOutput.HookEventName != event {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return o.HookSpecificOutput.AdditionalContext
}

func TestHookSessionStartAndPrompt(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("My golden retriever Biscuit loves the beach at Carcavelos.", "Lovely.", "Noted.", "r"))
	x.write(t, x.exchange("The garden needs tulips in October.", "Noted.", "Yes.", "r"))
	x.stop(t, e)

	out, errs := hookJSON(t, e, x.event("SessionStart"))
	if got := additionalContext(t, out, "SessionStart"); got != "Today is Tuesday, 1 December 2026 (2026-12-01), 10:00 UTC.\n\n"+hook.CapturedNote+hook.ExcludeNote(sess1) || errs != "" {
		t.Errorf("SessionStart: %q (stderr %q)", got, errs)
	}
	// a later session, whose own turns mention Biscuit too
	y := newTranscript(t, sess2, "/home/sam/src/garden")
	// --start-tokens: the earlier sessions' memories that name the
	// project, after the date said once
	out, errs = hookJSON(t, e, y.event("SessionStart"), func(c *claudeHookCmd) { c.StartTokens = 300 })
	if got := additionalContext(t, out, "SessionStart"); strings.Count(got, "Today is") != 1 || !strings.Contains(got, "tulips") || errs != "" {
		t.Errorf("SessionStart with --start-tokens: %q (stderr %q)", got, errs)
	}
	// what SessionStart gave is not given again at a prompt
	tulips := y.event("UserPromptSubmit")
	tulips["prompt"] = "What does the garden need in October, tulips?"
	if out, errs := hookJSON(t, e, tulips, func(c *claudeHookCmd) { c.AutoRecall = true }); out != "" || errs != "" {
		t.Errorf("a prompt after SessionStart gave its memories again: %q (stderr %q)", out, errs)
	}
	y.write(t, y.exchange("Biscuit, Biscuit, Biscuit: I keep thinking about Biscuit and the beach.", "Biscuit sounds lovely.", "Yes.", "r"))
	y.stop(t, e)
	prompt := y.event("UserPromptSubmit")
	prompt["prompt"] = "Which beach does Biscuit love?"
	if out, errs := hookJSON(t, e, prompt); out != "" || errs != "" {
		t.Errorf("UserPromptSubmit without --auto-recall printed %q, %q", out, errs)
	}
	autoRecall := func(c *claudeHookCmd) { c.AutoRecall = true }
	out, errs = hookJSON(t, e, prompt, autoRecall)
	// the earlier session's answer, not the session's own turns, which
	// the model has in its context (and which, the best matches, raised
	// the floor past the answer)
	if got := additionalContext(t, out, "UserPromptSubmit"); !strings.Contains(got, "Carcavelos") || strings.Contains(got, "I keep thinking") || !strings.Contains(got, "Today is") || errs != "" {
		t.Errorf("--auto-recall gave %q (stderr %q)", got, errs)
	}
	// the same memories are not given again at the next prompt that
	// matches them: the model has them from the first
	prompt["prompt"] = "And which beach was it that Biscuit loves?"
	if out, errs := hookJSON(t, e, prompt, autoRecall); out != "" || errs != "" {
		t.Errorf("--auto-recall gave the same memories again: %q (stderr %q)", out, errs)
	}
	// what a session's first prompt was given, before any capture, is
	// still known after its first Stop (the capture reads the transcript
	// from the start, and keeps the cursor's note)
	z := newTranscript(t, sess3, "/home/sam/src/garden")
	zp := z.event("UserPromptSubmit")
	zp["prompt"] = "Which beach does Biscuit love?"
	if out, errs := hookJSON(t, e, zp, autoRecall); !strings.Contains(out, "Carcavelos") || errs != "" {
		t.Fatalf("a new session's first prompt: %q (stderr %q)", out, errs)
	}
	z.write(t, z.exchange("Which beach does Biscuit love?", "Carcavelos.", "Yes.", "r"))
	z.stop(t, e)
	zp["prompt"] = "Remind me, which beach does Biscuit love?"
	if out, errs := hookJSON(t, e, zp, autoRecall); out != "" || errs != "" {
		t.Errorf("after the session's first Stop, the same memories were given again: %q (stderr %q)", out, errs)
	}
	// once the host compacted the session's context (PreCompact), its
	// early turns are no longer all there: the session is searched too,
	// and what was given before is given again
	if _, errs := hookJSON(t, e, y.event("PreCompact")); errs != "" {
		t.Fatalf("PreCompact: %s", errs)
	}
	prompt["prompt"] = "What do I keep thinking about with Biscuit?"
	out, errs = hookJSON(t, e, prompt, autoRecall)
	if got := additionalContext(t, out, "UserPromptSubmit"); !strings.Contains(got, "I keep thinking") || errs != "" {
		t.Errorf("--auto-recall after a compaction gave %q (stderr %q), want the session's own turn", got, errs)
	}
	prompt["prompt"] = "Which beach does Biscuit love?"
	out, errs = hookJSON(t, e, prompt, autoRecall)
	if got := additionalContext(t, out, "UserPromptSubmit"); !strings.Contains(got, "Carcavelos") || errs != "" {
		t.Errorf("--auto-recall after a compaction gave %q (stderr %q), want the earlier session's answer again", got, errs)
	}
	prompt["prompt"] = "Completely unrelated: what is a monad?"
	if out, errs := hookJSON(t, e, prompt, autoRecall); out != "" || errs != "" {
		t.Errorf("--auto-recall on an unrelated prompt gave %q (stderr %q), want nothing", out, errs)
	}
	// no word in common, only what kind of thing a noun names (a
	// retriever is a sporting dog): a recall asked for finds it, a prompt
	// is not given it
	prompt["prompt"] = "Which breed of dog is best for hunting?"
	if out, errs := hookJSON(t, e, prompt, autoRecall); out != "" || errs != "" {
		t.Errorf("--auto-recall on a prompt sharing no word with the memory gave %q (stderr %q), want nothing", out, errs)
	}
	// what Claude Code sends as a prompt when a background task ends is
	// not the user's words (the capture leaves it out): no memories
	prompt["prompt"] = "<task-notification>\n<status>completed</status>\n<result>Which beach does Biscuit love?</result>\n</task-notification>"
	if out, errs := hookJSON(t, e, prompt, autoRecall); out != "" || errs != "" {
		t.Errorf("--auto-recall on a task notification gave %q (stderr %q), want nothing", out, errs)
	}
	prompt["prompt"] = strings.Repeat("a", hook.MaxInput)
	if out, errs := hookJSON(t, e, prompt, autoRecall); out != "" || !strings.Contains(errs, "over 16 MiB") {
		t.Errorf("a prompt over the hook's input limit: stdout %q, stderr %q", out, errs)
	}
}

// BenchmarkStopIncremental is the Stop hook on a 50 MB transcript whose
// old part is captured (the cursor at its end) and one new exchange
// follows: the hook reads the new bytes only and opens the memory itself
// (no server running; no embedding model). Target: 100 ms.
func BenchmarkStopIncremental(b *testing.B) {
	e := hookEnv(b)
	x := newTranscript(b, sess1, "/home/sam/src/garden")
	result := strings.Repeat("a line of a file the model read\n", 3200) // ~100 KB
	var old bytes.Buffer
	for i := 0; old.Len() < 50<<20; i++ {
		old.Write(x.exchange(fmt.Sprintf("Question %d about the garden?", i), "Let me look.", "Here is what I found.", result))
	}
	x.write(b, old.Bytes())
	x.stop(b, e)
	if c := readCursor(b, e, sess1); c.Offset != int64(old.Len()) {
		b.Fatalf("cursor at %d, want %d", c.Offset, old.Len())
	}
	stop, _ := json.Marshal(x.event("Stop"))
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		x.write(b, x.exchange(fmt.Sprintf("New question %d?", i), "Looking.", "Found it.", "short result"))
		b.StartTimer()
		if _, errs := runHook(b, e, string(stop)); errs != "" {
			b.Fatal(errs)
		}
	}
	b.StopTimer()
	if got := len(stored(b, e, "default", sess1)); got != len(x.want) {
		b.Errorf("%d memories, want %d", got, len(x.want))
	}
}

// With --per-project, a session whose later hooks run in a subdirectory
// (the model went there) stays in its project's namespace, for capture
// and for recall.
func TestCapturePerProjectSubdirectory(t *testing.T) {
	e := hookEnv(t)
	opts := func(c *claudeHookCmd) { c.PerProject, c.AutoRecall = true, true }
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("The tomatoes are in bed three near Carcavelos.", "Noted.", "Yes.", "r"))
	x.stop(t, e, opts)
	x.cwd = "/home/sam/src/garden/beds"
	x.write(t, x.exchange("Move the basil to bed four.", "Done.", "Ok.", "r"))
	x.stop(t, e, opts)
	checkStored(t, stored(t, e, hook.ProjectNamespace("/home/sam/src/garden"), sess1), x.want, x.want[0].at)
	// a later session of the project, gone to the subdirectory (its own
	// turns are not recalled: the model has them)
	y := newTranscript(t, sess2, "/home/sam/src/garden")
	y.write(t, y.exchange("Water the garden at six.", "Noted.", "Ok.", "r"))
	y.stop(t, e, opts)
	y.cwd = "/home/sam/src/garden/beds"
	prompt := y.event("UserPromptSubmit")
	prompt["prompt"] = "Where are the tomatoes near Carcavelos?"
	out, errs := hookJSON(t, e, prompt, opts)
	if errs != "" || out == "" || !strings.Contains(additionalContext(t, out, "UserPromptSubmit"), "bed three") {
		t.Errorf("recall from the subdirectory: %q (stderr %q)", out, errs)
	}
}

// A turn that remember refuses (here a uuid longer than a message id may
// be) is left out, said on stderr with a count, and the cursor moves past
// it: the turns around it are stored, the next exchange is captured, and
// the refused turn is not sent again.
func TestCaptureRefusedTurn(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("Plant the tulips in October.", "Noted.", "October it is.", "r"))
	bad := x.line(map[string]any{"type": "user", "uuid": strings.Repeat("u", 300), "timestamp": x.now, "message": map[string]any{"role": "user", "content": "A prompt under an id too long."}})
	x.write(t, bad)
	x.write(t, x.exchange("And the roses?", "In March.", "Pruned first.", "r"))
	_, errs := hookJSON(t, e, x.event("Stop"))
	if !strings.Contains(errs, "1 message(s) refused by remember and left out") || !strings.Contains(errs, strings.Repeat("u", 300)) {
		t.Errorf("stderr %q: want the refused message named and counted", errs)
	}
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
	if c := readCursor(t, e, sess1); c.Offset != fileSize(t, x.path) {
		t.Errorf("cursor at %d of %d bytes: the refused turn holds the capture back", c.Offset, fileSize(t, x.path))
	}
	x.write(t, x.exchange("And the lilies?", "In spring.", "Deep.", "r"))
	x.stop(t, e) // nothing on stderr: the refused turn is not read again
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}

// A session resumed after the hooks were set up again with --per-project
// stays whole in the namespace it was first stored in (its new turns went
// to the project's namespace, the old ones stayed in the default: each
// namespace held half of it).
func TestCaptureKeepsTheSessionsNamespace(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/garden")
	x.write(t, x.exchange("Which seeds?", "Tomatoes.", "Good.", "r"))
	x.stop(t, e)
	x.write(t, x.exchange("And when to plant?", "In May.", "Thanks.", "s"))
	x.stop(t, e, func(c *claudeHookCmd) { c.PerProject = true })
	if got := stored(t, e, hook.ProjectNamespace(x.cwd), sess1); got != nil {
		t.Errorf("the resumed session's new turns went to the project's namespace: %d memories", len(got))
	}
	if got := stored(t, e, "default", sess1); len(got) != 6 {
		t.Errorf("the session holds %d memories in default, want its 6 turns", len(got))
	}
}

// A session killed before its Stop hook ran is captured by a later
// session's SessionStart, once its transcript has settled: its own
// SessionStart noted the transcript, and nothing is stored twice.
func TestCaptureSweepsASessionThatDied(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	if _, errs := hookJSON(t, e, x.event("SessionStart")); errs != "" {
		t.Fatalf("SessionStart: %s", errs)
	}
	x.write(t, x.exchange("The staging database password rotates every Friday.", "Noted.", "I'll remind you.", "ok"))
	started := x.want[0].at
	// killed here: no Stop, no SessionEnd

	start := func(session string) { startSession(t, e, session, "/home/sam/src/garden") }
	start(sess2) // the dead session's transcript changed just now: left for later
	if ms := stored(t, e, "default", sess1); ms != nil {
		t.Fatalf("a transcript that changed %s ago was captured: %d turns", time.Since(fileTime(t, x.path)), len(ms))
	}
	settle(t, x.path)
	start(sess3)
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
	start(sess3) // again: nothing stored twice
	x.stop(t, e) // nor by the session's own hook, were it alive
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
}

func fileTime(t testing.TB, path string) time.Time {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.ModTime()
}

// forget --reimport sets the hooks' cursor of the session back, so that
// their next capture (here, a later session's sweep) stores it again.
func TestForgetReimportRewindsTheCapture(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("Our office moved to Rua Augusta 12.", "Noted.", "New address saved.", "ok"))
	x.stop(t, e)
	started := x.want[0].at
	b, err := backend.Open(context.Background(), e.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Service.Forget(context.Background(), memory.ForgetRequest{Namespace: "default", SessionID: sess1, Reimport: true})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	if said := rewindCaptures(e, sess1); !strings.Contains(said, "claude-code hooks read its transcript again") || strings.Contains(said, "codex") {
		t.Errorf("rewindCaptures said %q, want the claude-code hooks' cursor set back", said)
	}
	if said := rewindCaptures(e, sess2); said != "" {
		t.Errorf("a session no hook captured: %q", said)
	}
	settle(t, x.path)
	startSession(t, e, sess2, "/home/sam/src/garden")
	checkStored(t, stored(t, e, "default", sess1), x.want, started)
}

// A dead session swept by a session whose hooks have other flags is
// stored where its own hooks would have stored it: here its project's
// namespace (--per-project), not the sweeping session's default one.
func TestCaptureSweepKeepsTheDeadSessionsNamespace(t *testing.T) {
	e := hookEnv(t)
	perProject := func(c *claudeHookCmd) { c.PerProject = true }
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	if _, errs := hookJSON(t, e, x.event("SessionStart"), perProject); errs != "" {
		t.Fatalf("SessionStart: %s", errs)
	}
	x.write(t, x.exchange("The staging database password rotates every Friday.", "Noted.", "I'll remind you.", "ok"))
	settle(t, x.path)
	startSession(t, e, sess2, "/home/sam/src/other")
	checkStored(t, stored(t, e, hook.ProjectNamespace(x.cwd), sess1), x.want, x.want[0].at)
	if got := stored(t, e, "default", sess1); got != nil {
		t.Errorf("the sweep stored %d memories in the sweeping session's namespace", len(got))
	}
}

// A dead transcript that ends in a line cut mid-way is swept once: its
// whole lines stored, then left alone while it stays as it is.
func TestCaptureSweepsACutTranscriptOnce(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	if _, errs := hookJSON(t, e, x.event("SessionStart")); errs != "" {
		t.Fatalf("SessionStart: %s", errs)
	}
	x.write(t, x.exchange("Our office moved to Rua Augusta 12.", "Noted.", "New address saved.", "ok"))
	x.write(t, []byte(`{"type":"assistant","uuid":"x","message":{"role":"ass`))
	settle(t, x.path)
	startSession(t, e, sess2, "/home/sam/src/garden")
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
	cursor := hook.CursorFile(e.cfg.DataDir, "claude-code", sess1)
	before := fileTime(t, cursor)
	time.Sleep(20 * time.Millisecond)
	startSession(t, e, sess3, "/home/sam/src/garden")
	if after := fileTime(t, cursor); !after.Equal(before) {
		t.Errorf("the cut transcript was read again: its cursor saved at %v, then %v", before, after)
	}
}

// A cursor saved after its transcript's last line (the auto-recall notes
// what it gave there) does not hide that line from the sweep: a sweep
// reads the size a capture last read, not the cursor file's time.
func TestCaptureSweepsPastACursorWrittenLater(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	if _, errs := hookJSON(t, e, x.event("SessionStart")); errs != "" {
		t.Fatalf("SessionStart: %s", errs)
	}
	x.write(t, x.exchange("Our office moved to Rua Augusta 12.", "Noted.", "New address saved.", "ok"))
	x.stop(t, e)
	x.write(t, x.exchange("The Wi-Fi password is on the fridge.", "Noted.", "Saved.", "ok"))
	settle(t, x.path)
	now := time.Now()
	if err := os.Chtimes(hook.CursorFile(e.cfg.DataDir, "claude-code", sess1), now, now); err != nil {
		t.Fatal(err)
	}
	startSession(t, e, sess2, "/home/sam/src/garden")
	checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
}

// settle dates the transcript at path a sweep's wait back, as a session
// that died then left it.
func settle(t testing.TB, path string) {
	t.Helper()
	past := time.Now().Add(-2 * hook.SweepSettled)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
}

// startSession runs the SessionStart hook of a new session in cwd, which
// sweeps the sessions that died.
func startSession(t testing.TB, e *env, session, cwd string) {
	t.Helper()
	y := newTranscript(t, session, cwd)
	if _, errs := hookJSON(t, e, y.event("SessionStart")); errs != "" {
		t.Errorf("SessionStart of %s: %s", session, errs)
	}
}

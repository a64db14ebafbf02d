package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/cmd/internal/hook"
	"agentmem/memory/history/codex"
)

// The Codex hook, on the rollout fixture of memory/history/codex (written
// by Codex 0.171.0 and made messy): captured while being written, re-run,
// every turn stored once; bad input says why and stores nothing.

const codexSession = "01a234f8-ca51-7a82-b30f-0337fc92a0de"

func codexRollout(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "memory", "history", "codex", "testdata", "messy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runCodexHook runs the hook with stdin and returns its stdout and stderr.
func runCodexHook(t *testing.T, e *env, stdin string, opts hookOptions) (string, string) {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 30e9
	}
	var out bytes.Buffer
	r, w, _ := os.Pipe()
	saved := os.Stderr
	os.Stderr = w
	err := codexHookCmd{hookOptions: opts, in: strings.NewReader(stdin), out: &out}.Run(e)
	os.Stderr = saved
	w.Close()
	stderr, _ := io.ReadAll(r)
	if err != nil {
		t.Fatalf("the hook failed its host: %v", err)
	}
	return out.String(), string(stderr)
}

func codexEvent(event, path string) string {
	b, _ := json.Marshal(map[string]any{"session_id": codexSession, "transcript_path": path, "cwd": "/home/user/project", "hook_event_name": event})
	return string(b)
}

func TestCodexHookCapture(t *testing.T) {
	e := hookEnv(t)
	data := codexRollout(t)
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	// Codex is still writing: half of a line is on disk
	cut := bytes.Index(data, []byte("second of resume"))
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr := runCodexHook(t, e, codexEvent("Stop", path), hookOptions{}); stderr != "" {
		t.Fatalf("stderr: %s", stderr)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, stderr := runCodexHook(t, e, codexEvent("Stop", path), hookOptions{})
		if !strings.Contains(stderr, "not JSON, left out") && stderr != "" {
			t.Fatalf("stderr: %s", stderr)
		}
	}
	runCodexHook(t, e, codexEvent("SessionEnd", path), hookOptions{})
	want := codex.Parse(append(data, '\n'), false).Turns
	got := stored(t, e, "default", codexSession)
	if len(got) != len(want) {
		t.Fatalf("stored %d turns, want %d", len(got), len(want))
	}
	for i, m := range got {
		if m.Role != want[i].Role || m.Text != want[i].Text || !m.Timestamp.Equal(want[i].Time) {
			t.Errorf("turn %d = %s %q %v, want %s %q %v", i, m.Role, m.Text, m.Timestamp, want[i].Role, want[i].Text, want[i].Time)
		}
	}
}

func TestCodexHookBadInput(t *testing.T) {
	e := hookEnv(t)
	notRollout := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notRollout, []byte("just text\nmore text\n"), 0o600)
	cases := map[string]struct{ stdin, want string }{
		"not JSON":       {"hello", "not JSON"},
		"no event":       {`{"session_id":"s"}`, "no hook_event_name"},
		"no session":     {`{"hook_event_name":"Stop","transcript_path":"/x"}`, "session_id"},
		"no transcript":  {`{"hook_event_name":"Stop","session_id":"s"}`, "no transcript_path"},
		"missing file":   {codexEvent("Stop", filepath.Join(t.TempDir(), "gone.jsonl")), "transcript_path"},
		"not a rollout":  {codexEvent("Stop", notRollout), "not a Codex rollout"},
		"a directory":    {codexEvent("Stop", t.TempDir()), "not a regular file"},
		"a bad session":  {`{"hook_event_name":"Stop","session_id":"../x","transcript_path":"/x"}`, "session_id"},
		"unknown events": {codexEvent("PostToolUse", notRollout), ""},
	}
	for name, c := range cases {
		out, stderr := runCodexHook(t, e, c.stdin, hookOptions{})
		if out != "" || (c.want == "" && stderr != "") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: stdout %q, stderr %q, want %q on stderr", name, out, stderr, c.want)
		}
	}
	if got := stored(t, e, "default", codexSession); len(got) != 0 {
		t.Errorf("bad input stored %d turns", len(got))
	}
}

// SessionStart gives the model the date as Codex reads it (the same
// hookSpecificOutput as Claude Code's); UserPromptSubmit without
// --auto-recall adds nothing.
func TestCodexHookSessionStart(t *testing.T) {
	e := hookEnv(t)
	out, stderr := runCodexHook(t, e, `{"hook_event_name":"SessionStart","session_id":"s","source":"startup"}`, hookOptions{})
	var got struct {
		Out struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Out.Event != "SessionStart" || !strings.HasPrefix(got.Out.Context, "Today is Tuesday, 1 December 2026") {
		t.Errorf("SessionStart printed %q (%v), stderr %q", out, err, stderr)
	}
	if out, _ := runCodexHook(t, e, `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"hi"}`, hookOptions{}); out != "" {
		t.Errorf("UserPromptSubmit without --auto-recall printed %q", out)
	}
}

// codexRolloutWriter writes rollout lines in Codex 0.171.0's shape: per
// exchange the model-side items, a command run by the model and its
// output, and the user's and assistant's display items.
type codexRolloutWriter struct {
	t       testing.TB
	path    string
	session string
	n       int
	want    []string // "role: text" of every turn written
}

func newCodexRollout(t testing.TB, session string) *codexRolloutWriter {
	w := &codexRolloutWriter{t: t, path: filepath.Join(t.TempDir(), "rollout-"+session+".jsonl"), session: session}
	meta := map[string]any{"timestamp": "2026-12-01T09:00:00.000Z", "type": "session_meta", "payload": map[string]any{"id": session, "cwd": "/home/user/project"}}
	b, _ := json.Marshal(meta)
	w.write(append(b, '\n'))
	return w
}

func (w *codexRolloutWriter) exchange(prompt, reply, output string) []byte {
	w.n++
	turn := fmt.Sprintf("%s-turn-%d", w.session, w.n)
	ts := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(w.n) * time.Second).Format(time.RFC3339Nano)
	var buf bytes.Buffer
	line := func(typ string, payload map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
		buf.Write(append(b, '\n'))
	}
	item := func(it map[string]any) {
		line("event_msg", map[string]any{"type": "item_completed", "thread_id": w.session, "turn_id": turn, "item": it})
	}
	line("event_msg", map[string]any{"type": "task_started", "turn_id": turn})
	line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}})
	item(map[string]any{"type": "UserMessage", "id": turn + "-user", "content": []any{map[string]any{"type": "text", "text": prompt}}})
	line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"cat notes"}`, "call_id": turn + "-call"})
	item(map[string]any{"type": "CommandExecution", "id": turn + "-call", "aggregated_output": output})
	line("response_item", map[string]any{"type": "function_call_output", "call_id": turn + "-call", "output": output})
	item(map[string]any{"type": "AgentMessage", "id": "msg_1", "content": []any{map[string]any{"type": "Text", "text": reply}}})
	line("response_item", map[string]any{"type": "message", "role": "assistant", "id": "msg_1", "content": []any{map[string]any{"type": "output_text", "text": reply}}})
	line("event_msg", map[string]any{"type": "task_complete", "turn_id": turn})
	w.want = append(w.want, "user: "+prompt, "assistant: "+reply)
	return buf.Bytes()
}

func (w *codexRolloutWriter) write(data []byte) {
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		w.t.Fatal(err)
	}
}

func (w *codexRolloutWriter) stop(e *env) error {
	in := codexEvent("Stop", w.path)
	in = strings.Replace(in, codexSession, w.session, 1)
	return codexHookCmd{hookOptions: hookOptions{Timeout: 30 * time.Second}, in: strings.NewReader(in), out: io.Discard}.run(e.ctx, e)
}

func (w *codexRolloutWriter) check(t testing.TB, e *env) {
	t.Helper()
	var got []string
	for _, m := range stored(t, e, "default", w.session) {
		got = append(got, m.Role+": "+m.Text)
	}
	if strings.Join(got, "\n") != strings.Join(w.want, "\n") {
		t.Errorf("session %s holds:\n%s\nwant:\n%s", w.session, strings.Join(got, "\n"), strings.Join(w.want, "\n"))
	}
}

// Two sessions' hooks at once, each twice: every turn stored once, each
// reply with its own id though the model gave every reply "msg_1".
func TestCodexHookConcurrent(t *testing.T) {
	e := hookEnv(t)
	a, b := newCodexRollout(t, "01a23500-aaaa-7000-8000-000000000001"), newCodexRollout(t, "01a23500-bbbb-7000-8000-000000000002")
	for round := range 3 {
		a.write(a.exchange(fmt.Sprintf("Garden question %d?", round), "Garden answer.", "notes"))
		b.write(b.exchange(fmt.Sprintf("Kitchen question %d?", round), "Kitchen answer.", "notes"))
		var wg sync.WaitGroup
		for _, w := range []*codexRolloutWriter{a, b, a, b} {
			wg.Go(func() {
				if err := w.stop(e); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	a.check(t, e)
	b.check(t, e)
}

// Stop on a 50 MB rollout with one new exchange: only the new bytes are
// read.
func BenchmarkCodexStopIncremental(b *testing.B) {
	e := hookEnv(b)
	w := newCodexRollout(b, "01a23500-cccc-7000-8000-000000000003")
	output := strings.Repeat("a line of a file the model read\n", 3200) // ~100 KB
	var old bytes.Buffer
	for i := 0; old.Len() < 50<<20; i++ {
		old.Write(w.exchange(fmt.Sprintf("Question %d about the garden?", i), "Here is what I found.", output))
	}
	w.write(old.Bytes())
	if err := w.stop(e); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w.write(w.exchange(fmt.Sprintf("New question %d?", i), "Found it.", "short"))
		b.StartTimer()
		if err := w.stop(e); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got := len(stored(b, e, "default", w.session)); got != len(w.want) {
		b.Errorf("%d memories, want %d", got, len(w.want))
	}
}

// With --per-project a session keeps its project's namespace when its
// later hooks run in a subdirectory the model went to.
func TestCodexHookPerProjectSubdirectory(t *testing.T) {
	e := hookEnv(t)
	w := newCodexRollout(t, "01a23500-dddd-7000-8000-000000000004")
	opts := hookOptions{PerProject: true, Timeout: 30 * time.Second}
	run := func(cwd string) {
		in, _ := json.Marshal(map[string]any{"session_id": w.session, "transcript_path": w.path, "cwd": cwd, "hook_event_name": "Stop"})
		if err := (codexHookCmd{hookOptions: opts, in: bytes.NewReader(in), out: io.Discard}).run(e.ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	w.write(w.exchange("Where is the garden plan?", "In plans/.", "x"))
	run("/home/user/garden")
	w.write(w.exchange("And the seeds list?", "In plans/seeds.md.", "y"))
	run("/home/user/garden/plans")
	ns := hook.ProjectNamespace("/home/user/garden")
	if got := stored(t, e, ns, w.session); len(got) != 4 {
		t.Errorf("namespace %s holds %d turns of the session, want all 4", ns, len(got))
	}
	if got := stored(t, e, hook.ProjectNamespace("/home/user/garden/plans"), w.session); len(got) != 0 {
		t.Errorf("the subdirectory got a namespace of its own with %d turns", len(got))
	}
}

// run is Run without the timeout, the recovery and the message: the
// hook's error.
func (c codexHookCmd) run(ctx context.Context, e *env) error {
	return newHook(e, "codex", c.hookOptions, c.in, c.out, nil).Handle(ctx)
}

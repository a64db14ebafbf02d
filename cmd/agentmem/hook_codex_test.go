package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

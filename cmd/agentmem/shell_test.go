package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// remember -f checks its file as the tool checks its arguments: a misspelt
// argument is an error naming it, and nothing is stored.
func TestRememberFileIsStrict(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	data := filepath.Join(dir, "data")
	for _, c := range []struct{ body, want string }{
		{`{"messages":[{"role":"user","content":"I moved to Lisbon."}],"sesion_date":"2023-01-05"}`, "invalid argument sesion_date: is not an argument"},
		{`[{"role":"user","content":"I moved to Lisbon.","speker":"Ana"}]`, "invalid argument messages[0].speker: is not an argument"},
		{`{"messages":[`, "not JSON"},
	} {
		if _, errOut, err := try(t, data, "--embedder", "none", "remember", "-f", write("bad.json", c.body)); err == nil || !strings.Contains(errOut, c.want) {
			t.Errorf("remember -f %s: %v, %s; want %q", c.body, err, errOut, c.want)
		}
	}
	if out := run(t, data, "--embedder", "none", "namespaces"); !strings.Contains(out, "No memories stored yet.") {
		t.Errorf("a refused remember -f stored something:\n%s", out)
	}
	// bytes that are not UTF-8, in a file or an argument, are refused:
	// JSON and the flag parser would both read them as U+FFFD
	if _, errOut, err := try(t, data, "--embedder", "none", "remember", "-f", write("latin1.json", "[{\"role\":\"user\",\"content\":\"caf\xe9 au lait\"}]")); err == nil || !strings.Contains(errOut, "messages[0].content: is not valid UTF-8 (byte 0xe9)") {
		t.Errorf("remember -f of Latin-1 text: %v, %s", err, errOut)
	}
	if _, errOut, err := try(t, data, "--embedder", "none", "remember", "ok", "caf\xe9 au lait"); err == nil || !strings.Contains(errOut, `an argument is not valid UTF-8: "caf\xe9 au lait"`) {
		t.Errorf("remember of a Latin-1 argument: %v, %s", err, errOut)
	}
	// a history given as an export: the error names the --from that reads it
	transcript := write("8c41d7e2.jsonl", `{"type":"user","sessionId":"8c41d7e2-aaaa-bbbb-cccc-000000000001","timestamp":"2026-11-16T10:00:00Z","message":{"role":"user","content":"hello"},"uuid":"u1"}`+"\n")
	if _, errOut, err := try(t, data, "--embedder", "none", "import", transcript); err == nil || !strings.Contains(errOut, "it reads as a claude-code history: import it with --from claude-code") {
		t.Errorf("import of a Claude Code transcript without --from: %v, %s", err, errOut)
	}
	// a turn of a list ("- 11/16: …") read as a flag: the error says where it goes
	if _, errOut, err := try(t, data, "--embedder", "none", "remember", "- 11/16: reviewed the PR"); err == nil || !strings.Contains(errOut, `give a text that starts with '-' after '--', as in: … -- "- 11/16: reviewed the PR"`) {
		t.Errorf("remember of a text that starts with a dash: %v, %s", err, errOut)
	}
	if out := run(t, data, "--embedder", "none", "remember", "--", "- 11/16: reviewed the PR"); !strings.Contains(out, "Stored 1 turn") {
		t.Errorf("remember -- of a text that starts with a dash: %s", out)
	}
	cmd := exec.Command(binary(t), "--embedder", "none", "namespaces")
	cmd.Env = append(os.Environ(), "AGENTMEM_DATA_DIR="+filepath.Join(dir, "caf\xe9"))
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "AGENTMEM_DATA_DIR is not valid UTF-8") {
		t.Errorf("a data dir variable in Latin-1: %v, %s", err, out)
	}
	withID := write("with-id.json", `{"session_id":"ff","messages":[{"role":"user","content":"I moved to Lisbon."}]}`)
	if _, errOut, err := try(t, data, "--embedder", "none", "remember", "-f", withID, "--session-id", "other"); err == nil || !strings.Contains(errOut, `--session-id "other" and the file's "ff" differ`) {
		t.Errorf("remember -f with a session_id and another --session-id: %v, %s; want an error naming both", err, errOut)
	}
	if out := run(t, data, "--embedder", "none", "remember", "-f", withID, "--session-id", "ff"); !strings.Contains(out, "of session ff") {
		t.Errorf("remember -f with the same --session-id: %s", out)
	}
	good := write("good.json", `[{"role":"user","content":"I moved to Lisbon.","speaker":"Ana"}]`)
	if out := run(t, data, "--embedder", "none", "remember", "-f", good, "--session-date", "2023-01-05"); !strings.Contains(out, "(2023-01-05 Thu)") {
		t.Errorf("remember -f of a bare messages array: %s", out)
	}
}

// A shell command relayed to the server that holds the data dir runs with
// that server's settings: it warns, naming them, that the flags that
// configure the memory are ignored; --namespace applies (each call names
// it). A command that holds the memory itself does not warn.
func TestRelayedCommandWarnsOfIgnoredFlags(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, err := try(t, t.TempDir(), "--embedder", "none", "recall", "bike"); err != nil || strings.Contains(errOut, "ignores") {
		t.Errorf("recall holding the memory itself: %v, %s", err, errOut)
	}
	p := start(t, dir)
	defer p.kill()
	_, errOut, err := try(t, dir, "--namespace", "bob", "--embedder", "none", "--timezone=UTC", "remember", "I keep my bike in the shed.") // --timezone twice, named once
	if err != nil || !strings.Contains(errOut, "ignores --now, --timezone, --embedder (give them to that server") {
		t.Errorf("relayed remember: %v, %s", err, errOut)
	}
	if out := run(t, dir, "namespaces"); !strings.Contains(out, "bob ") {
		t.Errorf("the relayed remember left out --namespace bob:\n%s", out)
	}
	// today too is the server's: its --now, not this process's clock
	if out, errOut, err := try(t, dir, "--now", "2030-01-01", "today"); err != nil || !strings.Contains(out, "Today is Thursday, 1 June 2023") || !strings.Contains(errOut, "ignores --now") {
		t.Errorf("relayed today: %v, %q, %q; want the server's 1 June 2023, and --now said to be ignored", err, out, errOut)
	}
	if out := run(t, dir, "sessions", "--ns", "alice"); !strings.Contains(out, "Namespace alice holds no memories") {
		t.Errorf("relayed sessions of a namespace that holds nothing: %s", out)
	}
}

// sessions and recall in a namespace that holds nothing (a fresh store, a
// typo) say so, and exit 0.
func TestEmptyNamespace(t *testing.T) {
	dir := t.TempDir()
	if out := run(t, dir, "--embedder", "none", "sessions"); !strings.Contains(out, "Namespace default holds no memories") {
		t.Errorf("sessions on a fresh store: %s", out)
	}
	if out := run(t, dir, "--embedder", "none", "sessions", "--json"); !strings.Contains(out, `"sessions": []`) {
		t.Errorf("sessions --json on a fresh store: %s", out)
	}
	run(t, dir, "--embedder", "none", "remember", "--ns", "alice", "I keep my bike in the shed.")
	if out := run(t, dir, "--embedder", "none", "recall", "bike", "--ns", "alcie"); !strings.Contains(out, "No stored memories match.\nNamespace alcie holds no memories; these do: alice (1 memory). Recall in one of them") {
		t.Errorf("recall in a misspelt namespace: %s", out)
	}
	if out := run(t, dir, "--embedder", "none", "recall", "violin", "--ns", "alice"); !strings.Contains(out, "No stored memories match.") || strings.Contains(out, "holds no memories") {
		t.Errorf("recall that finds nothing in a namespace that holds memories: %s", out)
	}
}

// sessions --limit out of 1-1000 is refused with the range, 0 and
// negative numbers too (which the URI would leave out).
func TestSessionsLimitRange(t *testing.T) {
	dir := t.TempDir()
	for _, limit := range []string{"0", "-1", "1001"} {
		if _, errOut, err := try(t, dir, "--embedder", "none", "sessions", "--limit="+limit); err == nil || !strings.Contains(errOut, "sessions: --limit must be at least 1 and at most 1000, got "+limit) {
			t.Errorf("sessions --limit=%s: %v, %s", limit, err, errOut)
		}
	}
}

// What the commands say names what the user gave, in the singular for one.
func TestCommandMessages(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	run(t, data, "--embedder", "none", "remember", "I keep my bike in the shed.")
	missing := filepath.Join(dir, "nonexistent", "x.jsonl")
	if _, errOut, err := try(t, data, "--embedder", "none", "export", "-o", missing); err == nil || !strings.Contains(errOut, "-o "+missing+": no such file or directory") {
		t.Errorf("export -o into a directory that does not exist: %v, %s", err, errOut)
	}
	file := filepath.Join(dir, "e.jsonl")
	if _, errOut, err := try(t, data, "--embedder", "none", "export", "-o", file); err != nil || !strings.Contains(errOut, "exported 1 memory of 1 namespace\n") {
		t.Errorf("export of one memory: %v, %s", err, errOut)
	}
	if out := run(t, filepath.Join(dir, "dst"), "--embedder", "none", "import", file); !strings.Contains(out, "Imported 1 memory in 1 session (") {
		t.Errorf("import of one memory: %s", out)
	}
	if _, errOut, err := try(t, data, "--embedder", "none", "import", dir); err == nil || !strings.Contains(errOut, dir+" is a directory") || !strings.Contains(errOut, "--from claude-code") {
		t.Errorf("import of a directory without --from: %v, %s", err, errOut)
	}
	// forget says what to give with the command's flags, not the tool's
	// argument names (a new-user trial)
	for _, args := range [][]string{{}, {"x:0", "--all"}, {"--session-id", "s", "--all", "--confirm"}} {
		if _, errOut, err := try(t, data, append([]string{"--embedder", "none", "forget"}, args...)...); err == nil || !strings.Contains(errOut, "forget: give exactly one of: memory ids, --session-id or --all") {
			t.Errorf("forget %q: %v, %s", args, err, errOut)
		}
	}
	// a file that is not JSON is named with the line and column of the
	// fault (a new-user trial)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("[{\"role\":\"user\",\"content\":\"a\"}\n {\"role\":\"user\",\"content\":\"b\"}]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := try(t, data, "--embedder", "none", "remember", "-f", bad); err == nil || !strings.Contains(errOut, bad+":2:2: not JSON: invalid character '{' after array element") {
		t.Errorf("remember -f of a file that is not JSON: %v, %s", err, errOut)
	}
	if _, errOut, err := try(t, data, "--embedder", "none", "forget", "x:0", "--reimport"); err == nil || !strings.Contains(errOut, "forget: --reimport goes with --session-id") {
		t.Errorf("forget ids --reimport: %v, %s", err, errOut)
	}
	if _, errOut, err := try(t, data, "--embedder", "none", "forget", "--all"); err == nil || !strings.Contains(errOut, "forget: --all deletes every memory of namespace default: add --confirm") {
		t.Errorf("forget --all: %v, %s", err, errOut)
	}
	if out := run(t, data, "--embedder", "none", "recall", "bike"); !strings.Contains(out, "shed") {
		t.Errorf("the refused forgets deleted something: %s", out)
	}
	// a listing's bad argument or missing session is the server's message,
	// without the resource's URI or the protocol's error kind
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "--after", "garbage"}, `agentmem: after: cannot read "garbage" as a date`},
		{[]string{"show", "nope"}, `agentmem: session "nope" not found in namespace "default"` + "\n"},
	} {
		_, errOut, err := try(t, data, append([]string{"--embedder", "none"}, c.args...)...)
		if err == nil || !strings.HasPrefix(errOut, c.want) || strings.Contains(errOut, "agentmem://") {
			t.Errorf("%q: %v, %s", c.args, err, errOut)
		}
	}
}

// recall --explain shows the pool's candidates in the structured result
// and needs --json; --weights takes the tool's weights as JSON, a
// misspelt one refused by name and an out-of-range one by its limit.
func TestRecallExplainAndWeights(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "--embedder", "none", "remember", "--session-id", "s1", "--session-date", "2023-05-02", "We chose Postgres for the billing service.", "The deploy moved to Fridays.")
	out := run(t, dir, "--embedder", "none", "recall", "Postgres billing", "--json", "--explain", "--weights", `{"learned":0,"time":0}`)
	if !strings.Contains(out, `"candidates": [`) || !strings.Contains(out, `"id": "s1:0"`) || !strings.Contains(out, `"feature_names": [`) {
		t.Errorf("recall --json --explain: %s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--explain"}, "--explain needs --json"},
		{[]string{"--weights", `{"learnd":0}`}, `unknown field "learnd"`},
		{[]string{"--weights", `{"learned":2}`}, "weights.learned: must be at most 1, got 2"},
		{[]string{"--weights", `learned=0`}, "invalid --weights learned=0"},
		{[]string{"--weights", `{"learned":0} {"learned":5}`}, "more than one JSON value"},
	} {
		_, errOut, err := try(t, dir, append([]string{"--embedder", "none", "recall", "Postgres"}, c.args...)...)
		if err == nil || !strings.Contains(errOut, c.want) {
			t.Errorf("recall %q: err %v, stderr %q, want %q", c.args, err, errOut, c.want)
		}
	}
}

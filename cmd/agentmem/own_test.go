package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs the binary with args on dataDir and returns stdout, failing the
// test when it fails.
func run(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	out, errOut, err := try(t, dataDir, args...)
	if err != nil {
		t.Fatalf("agentmem %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func try(t *testing.T, dataDir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--data-dir", dataDir, "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC", "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// From a shell: list, read, export, import into a new data dir, and get the
// same recall results (with the built-in embedder, vectors in the file or
// embedded again); the same file twice stores nothing twice; a bad file
// stores nothing and names the line.
func TestExportImportCommands(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	run(t, src, "remember", "--ns", "alice", "--session-id", "s-may", "--session-date", "1:56 pm on 8 May, 2023", "--speaker", "Alice",
		"Yesterday I went to the Nordstrom friends and family sale.", "I bought a blue raincoat for Portland.")
	run(t, src, "remember", "--ns", "alice", "--session-id", "s-june", "--session-date", "2023-06-02", "My daughter started violin lessons with Mrs Lindqvist.")
	run(t, src, "remember", "--ns", "bob", "--session-id", "b1", "--session-date", "2023-01-15", "I adopted a cat named Pixel.")

	if out := run(t, src, "namespaces"); !strings.Contains(out, "alice      3         2         2023-05-08 Mon  2023-06-02 Fri") {
		t.Errorf("namespaces =\n%s", out)
	}
	if out := run(t, src, "sessions", "--ns", "alice"); strings.Index(out, "s-june") > strings.Index(out, "s-may") || !strings.Contains(out, "2023-05-08 Mon  s-may    2      Yesterday I went") {
		t.Errorf("sessions, newest first =\n%s", out)
	}
	if out := run(t, src, "--namespace", "alice", "show", "s-may"); !strings.Contains(out, "# Session s-may") || !strings.Contains(out, "**Alice (user)** · turn 1\n\n> I bought a blue raincoat") {
		t.Errorf("show =\n%s", out)
	}

	plain, withVectors := filepath.Join(dir, "plain.jsonl"), filepath.Join(dir, "vectors.jsonl")
	run(t, src, "export", "-o", plain)
	run(t, src, "export", "--vectors", "-o", withVectors)
	queries := [][]string{
		{"recall", "--json", "--ns", "alice", "When did Alice go to the sale?"},
		{"recall", "--json", "--ns", "alice", "what instrument does her kid play", "-k", "3"},
		{"recall", "--json", "--ns", "bob", "pet"},
		{"sessions", "--json", "--ns", "alice"},
		{"namespaces", "--json"},
	}
	var want []string
	for _, q := range queries {
		want = append(want, run(t, src, q...))
	}
	for _, file := range []string{plain, withVectors} {
		dst := filepath.Join(dir, "dst-"+filepath.Base(file))
		out := run(t, dst, "import", file)
		if !strings.Contains(out, "Imported 4 memories in 3 sessions") {
			t.Errorf("import %s: %s", filepath.Base(file), out)
		}
		for i, q := range queries {
			if got := run(t, dst, q...); got != want[i] {
				t.Errorf("after importing %s, %v =\n%s\nwant\n%s", filepath.Base(file), q, got, want[i])
			}
		}
		if out := run(t, dst, "import", file); !strings.Contains(out, "Imported 0 memories in 0 sessions (4 already stored") {
			t.Errorf("the same file again: %s", out)
		}
	}

	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	// cut inside a line, and between two lines (every line whole: only the
	// missing end line tells)
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	fresh := filepath.Join(dir, "fresh")
	for _, c := range []struct{ cut, says string }{
		{strings.Join(lines[:len(lines)-1], "")[:len(strings.Join(lines[:len(lines)-1], ""))-30], "line 5: not a whole JSON object"},
		{strings.Join(lines[:3], ""), "line 3: the file ends here without the export's end line"},
	} {
		truncated := filepath.Join(dir, "truncated.jsonl")
		if err := os.WriteFile(truncated, []byte(c.cut), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, errOut, err := try(t, fresh, "import", truncated); err == nil || !strings.Contains(errOut, c.says) {
			t.Errorf("import of a truncated file: %v, %s; want %q", err, errOut, c.says)
		}
		if out := run(t, fresh, "namespaces"); !strings.Contains(out, "No memories stored yet.") {
			t.Errorf("a failed import stored something:\n%s", out)
		}
	}
	if _, errOut, err := try(t, src, "export", "--ns", "nobody", "-o", filepath.Join(dir, "nobody.jsonl")); err == nil || !strings.Contains(errOut, `namespace "nobody" not found`) {
		t.Errorf("export of a namespace that does not exist: %v, %s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "nobody.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a failed export left a file: %v", err)
	}
	// the shell's recall refuses what the tool refuses, and reaches its
	// budget arguments
	if _, errOut, err := try(t, src, "recall", "--ns", "alice", "sale", "-k", "0"); err == nil || !strings.Contains(errOut, "agentmem: recall: invalid argument k: must be at least 1") {
		t.Errorf("recall -k 0: %v, %s", err, errOut)
	}
	whole := run(t, src, "recall", "--json", "--ns", "alice", "sale", "-k", "1", "--excerpt", "0", "--context", "1")
	if !strings.Contains(whole, `"hit": false`) {
		t.Errorf("recall --context 1 returned no context turn:\n%s", whole)
	}
}

// pinSession is a session file for remember -f whose first turn the user
// forgets.
const pinSession = `{"session_id": "bank-call", "session_date": "2024-03-02", "messages": [
 {"role": "user", "content": "My bank PIN is 4512, remind me if I forget it."},
 {"role": "assistant", "content": "Noted. I will remind you."},
 {"role": "user", "content": "Also, book the dentist for Friday."}]}`

// forgetPIN remembers pinSession in the data dir src, forgets its PIN and
// exports it to dir's all.jsonl, whose path it returns with the session
// file's, after checking what export says.
func forgetPIN(t *testing.T, dir, src string) (file, session string) {
	t.Helper()
	session, file = filepath.Join(dir, "session.json"), filepath.Join(dir, "all.jsonl")
	if err := os.WriteFile(session, []byte(pinSession), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, src, "--embedder", "none", "remember", "-f", session)
	run(t, src, "--embedder", "none", "forget", "bank-call:0")
	_, errOut, err := try(t, src, "--embedder", "none", "export", "-o", file)
	if err != nil || !strings.Contains(errOut, "exported 2 memories and 1 mark of a forgotten turn, of 1 namespace") {
		t.Fatalf("export: %v, %s", err, errOut)
	}
	return file, session
}

// A turn forgotten, then the memory moved to a new data dir with export
// and import: the session sent again there does not store the turn, and
// check finds the new store sound (the trial of a user who forgot a PIN
// before moving).
func TestForgottenTurnStaysForgottenAfterAMove(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	file, session := forgetPIN(t, dir, src)
	if out := run(t, dst, "--embedder", "none", "import", file); !strings.Contains(out, "Imported 2 memories in 1 session (0 already stored, skipped; 0 embedded again) and 1 mark of a forgotten turn (0 already held, skipped).") {
		t.Errorf("import: %s", out)
	}
	if out := run(t, dst, "--embedder", "none", "remember", "-f", session); !strings.Contains(out, "Stored 0 turns") || !strings.Contains(out, "1 turn forgotten before, not stored again") {
		t.Errorf("the session sent again after the move: %s", out)
	}
	if out := run(t, dst, "--embedder", "none", "show", "bank-call"); strings.Contains(out, "4512") {
		t.Errorf("the forgotten PIN is stored again:\n%s", out)
	}
	if out := run(t, dst, "--embedder", "none", "check"); !strings.Contains(out, "OK") {
		t.Errorf("check after the move:\n%s", out)
	}
	if out := run(t, dst, "--embedder", "none", "import", "--dry-run", file); !strings.Contains(out, "and 0 marks of forgotten turns (1 already held, to skip)") {
		t.Errorf("import --dry-run of the file again: %s", out)
	}
}

// import --dry-run of an export checks it against the store, says what
// would be imported, and stores nothing (it does not even create the data
// dir); the flags of --from alone are refused by name.
func TestImportDryRunCommand(t *testing.T) {
	dir := t.TempDir()
	src, dst, file := filepath.Join(dir, "src"), filepath.Join(dir, "dst"), filepath.Join(dir, "e.jsonl")
	run(t, src, "--embedder", "none", "remember", "--session-id", "s1", "I keep my bike in the shed.", "The shed key is blue.")
	run(t, src, "--embedder", "none", "export", "-o", file)
	if out := run(t, dst, "--embedder", "none", "import", "--dry-run", file); !strings.Contains(out, "Would import 2 memories in 1 session (") || !strings.Contains(out, "Nothing stored (--dry-run).") {
		t.Errorf("import --dry-run: %s", out)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("import --dry-run created the data dir: %v", err)
	}
	run(t, dst, "--embedder", "none", "import", file)
	if out := run(t, dst, "--embedder", "none", "import", "--dry-run", file); !strings.Contains(out, "Would import 0 memories in 0 sessions (2 already stored") {
		t.Errorf("import --dry-run of a file already imported: %s", out)
	}
	for _, flag := range []string{"--per-project", "--no-wait"} {
		if _, errOut, err := try(t, dst, "--embedder", "none", "import", flag, file); err == nil || !strings.Contains(errOut, flag+" is for --from") {
			t.Errorf("import %s without --from: %v, %s", flag, err, errOut)
		}
	}
}

// sessions shows a session resumed on a later day with the day of its
// last turn, and --after keeps it for that turn.
func TestSessionsShowResumedSessions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	run(t, dir, "remember", "--session-id", "trip", "--session-date", "2023-05-01", "Planning the Lisbon trip.")
	run(t, dir, "remember", "--session-id", "trip", "--session-date", "2023-05-09", "Booked the flights today.")
	out := run(t, dir, "sessions", "--after", "2023-05-05")
	if !strings.Contains(out, "2023-05-01 Mon – 2023-05-09 Tue  trip") {
		t.Errorf("sessions --after 2023-05-05 =\n%s\nwant the trip, begun 1 May and resumed 9 May", out)
	}
	if out := run(t, dir, "sessions", "--after", "2023-05-10"); out != "No sessions in namespace default with a turn on or after 2023-05-10 (it holds 1 session).\n" {
		t.Errorf("sessions --after 2023-05-10 = %q, want the bound said, without a table's header", out)
	}
}

// export from a data dir that holds no store (new, or mistyped) says so,
// and creates nothing there (it created a store and an embedding cache,
// then said the namespace was not found).
func TestExportFromNoStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	_, errOut, err := try(t, dir, "--embedder", "none", "export")
	if err == nil || !strings.Contains(errOut, "no store in "+dir+": nothing to export") {
		t.Errorf("export from %s: %v, %s", dir, err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); !os.IsNotExist(err) {
		t.Errorf("export created a store: %v", err)
	}
}

// An empty session id to show, or a listing's bounds the wrong way
// round, is an error that names the argument, as recall's are.
func TestShowAndSessionsBadArguments(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "remember", "--session-id", "s1", "--session-date", "2023-05-08", "I moved to Lisbon.")
	if _, errOut, err := try(t, dir, "show", ""); err == nil || !strings.Contains(errOut, "session id must not be empty") {
		t.Errorf("show \"\": %v, %q", err, errOut)
	}
	if _, errOut, err := try(t, dir, "sessions", "--after", "2023-06-01", "--before", "2023-05-01"); err == nil || !strings.Contains(errOut, "before") || !strings.Contains(errOut, "earlier than after") {
		t.Errorf("sessions with before earlier than after: %v, %q", err, errOut)
	}
}

// An empty --session-id is refused, as the tool refuses an empty
// session_id, not read as left out (a session id made from the content).
func TestRememberEmptySessionID(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, err := try(t, dir, "remember", "--session-id", "", "I moved to Lisbon."); err == nil || !strings.Contains(errOut, "--session-id must not be empty") {
		t.Errorf("remember --session-id \"\": %v, %q", err, errOut)
	}
	if out := run(t, dir, "remember", "I moved to Lisbon."); !strings.Contains(out, "Stored 1 turn") {
		t.Errorf("remember without --session-id: %q", out)
	}
}

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory/store/couchbase/cavestest"
)

// agentmem couchbase setup and the shell's tools with --store couchbase,
// against gocaves (cavestest): setup creates the scope and the collection
// and refuses the Search index cleanly, as the mock has no Search; then
// remember, sessions, show, export and forget run on the mock, and a
// missing bucket is an error that names it.
func TestCouchbaseCommands(t *testing.T) {
	dir := t.TempDir()
	cb := onMock(t)

	out, errOut, err := try(t, dir, cb("couchbase", "setup")...)
	if err == nil || !strings.Contains(out, "scope agentmem.agentmem: created") || !strings.Contains(out, "collection agentmem.agentmem.memories: created") {
		t.Fatalf("setup on a cluster without Search: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "Search index agentmem") || !strings.Contains(errOut, "Couchbase Server 7.6 or later") || strings.Contains(errOut, "panic") {
		t.Errorf("setup's refusal of the index:\n%s", errOut)
	}

	runOnMock(t, dir, cb("remember", "--ns", "alice", "--session-id", "s-may", "--session-date", "2023-05-08", "I adopted a dog named Biscuit.", "He chews shoes.")...)
	runOnMock(t, dir, cb("remember", "--ns", "alice", "--session-id", "s-june", "--session-date", "2023-06-02", "My sister visits Lisbon.")...)
	if out := runOnMock(t, dir, cb("sessions", "--ns", "alice")...); !strings.Contains(out, "s-june") || strings.Index(out, "s-june") > strings.Index(out, "s-may") {
		t.Errorf("sessions, newest first:\n%s", out)
	}
	if out := runOnMock(t, dir, cb("--namespace", "alice", "show", "s-may")...); !strings.Contains(out, "He chews shoes.") {
		t.Errorf("show:\n%s", out)
	}
	file := filepath.Join(dir, "export.jsonl")
	runOnMock(t, dir, cb("export", "-o", file)...)
	raw, err := os.ReadFile(file)
	if err != nil || strings.Count(string(raw), "\n") != 5 || !strings.Contains(string(raw), "Lisbon") {
		t.Errorf("export (%v):\n%s", err, raw)
	}
	runOnMock(t, dir, cb("forget", "--ns", "alice", "--session-id", "s-may")...)
	if out := runOnMock(t, dir, cb("sessions", "--ns", "alice")...); strings.Contains(out, "s-may") {
		t.Errorf("sessions after forgetting s-may:\n%s", out)
	}

	_, errOut, err = try(t, dir, cb("--couchbase-bucket", "nope", "--couchbase-connect-timeout", "2s", "sessions", "--ns", "alice")...)
	if err == nil || !strings.Contains(errOut, "bucket nope") {
		t.Errorf("a missing bucket: %v\n%s", err, errOut)
	}
}

// A turn forgotten in the embedded store stays forgotten once the memory
// moves to Couchbase: the export carries its mark, the import writes it
// into the session's manifest, and the session sent again there does not
// store it.
func TestCouchbaseImportKeepsForgottenTurnsForgotten(t *testing.T) {
	dir := t.TempDir()
	cb := onMock(t)
	file, session := forgetPIN(t, dir, filepath.Join(dir, "src"))
	if _, _, err := try(t, dir, cb("couchbase", "setup")...); err == nil {
		t.Fatal("setup on the mock created a Search index, which the mock has not")
	}
	if out := runOnMock(t, dir, cb("import", file)...); !strings.Contains(out, "Imported 2 memories in 1 session") || !strings.Contains(out, "and 1 mark of a forgotten turn") {
		t.Errorf("import into Couchbase: %s", out)
	}
	if out := runOnMock(t, dir, cb("remember", "-f", session)...); !strings.Contains(out, "Stored 0 turns") || !strings.Contains(out, "1 turn forgotten before, not stored again") {
		t.Errorf("the session sent again to Couchbase: %s", out)
	}
	if out := runOnMock(t, dir, cb("--namespace", "default", "show", "bank-call")...); strings.Contains(out, "4512") || !strings.Contains(out, "dentist") {
		t.Errorf("the session on Couchbase:\n%s", out)
	}
}

// runOnMock is run for a command against the mock: a command whose
// connection the mock left unanswered (it once did not answer a
// connection's first request for 30 s, in a fresh-clone CI run, while
// answering others; once its bucket was not ready within 15 s, with the
// dev evals running beside the tests) is run again, at most twice, on a
// new connection.
// Nothing is stored when the memory does not open, and none of these
// tests is about connecting.
func runOnMock(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		out, errOut, err := try(t, dataDir, args...)
		if err == nil {
			return out
		}
		connecting := strings.Contains(errOut, "could not open its memory") || strings.Contains(errOut, "connecting to bucket")
		if attempt == 3 || !connecting || !strings.Contains(errOut, "timed out") {
			t.Fatalf("agentmem %s: %v\n%s", strings.Join(args, " "), err, errOut)
		}
		t.Logf("the mock did not answer a connection (attempt %d); running the command again", attempt)
	}
}

// onMock starts gocaves and gives the command line of a command run on
// it: the global flags that reach the mock, then args.
func onMock(t *testing.T) func(args ...string) []string {
	c := cavestest.Start(t)
	return func(args ...string) []string {
		return append([]string{"--store", "couchbase", "--embedder", "none", "--couchbase-url", c.URL,
			"--couchbase-username", cavestest.Admin, "--couchbase-password", cavestest.Password,
			"--couchbase-durability", "none", "--couchbase-connect-timeout", "15s"}, args...)
	} // 15 s: on a loaded machine the mock's bootstrap has taken over 2 s, and once over 10 s (a full eval running beside the tests); a working mock answers at once
}

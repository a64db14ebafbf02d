package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// today prints the date from the clock alone: it opens no store, so it
// answers where opening one would fail (records made with another
// embedder) and creates no data dir.
func TestTodayOpensNoStore(t *testing.T) {
	const want = "Today is Thursday, 1 June 2023 (2023-06-01), 10:00 UTC."

	dir := t.TempDir()
	run(t, dir, "--embedder", "none", "remember", "--session-id", "s1", "My daughter started learning the violin.")
	if _, errOut, err := try(t, dir, "recall", "violin"); err == nil || !strings.Contains(errOut, "agentmem reindex") {
		t.Fatalf("recall with another embedder than the records': %v\n%s; want the store to refuse", err, errOut)
	}
	if got := strings.TrimSpace(run(t, dir, "today")); got != want {
		t.Errorf("today beside records of another embedder = %q, want %q", got, want)
	}

	missing := filepath.Join(t.TempDir(), "never-created")
	if got := strings.TrimSpace(run(t, missing, "today")); got != want {
		t.Errorf("today = %q, want %q", got, want)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("today created its data dir %s (%v): it opened the store", missing, err)
	}
}

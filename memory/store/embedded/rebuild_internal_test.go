package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

// RebuildText (what `agentmem reindex` runs) restores documents the index
// lost, whatever the open-time checks saw, and reports its progress.
func TestRebuildTextRestoresDocuments(t *testing.T) {
	ctx := context.Background()
	st := quokkas(t)
	count := func() int {
		hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "quokka", K: 100, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	if n := count(); n != 50 {
		t.Fatalf("found %d of 50 before the damage", n)
	}
	for n := range 30 {
		if err := st.indexOf(t, "default").Delete(key("default", memory.MemoryID("s", n))); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(); n != 20 {
		t.Fatalf("found %d after deleting 30 of 50 documents from the index", n)
	}
	var calls, last, total int
	if err := st.RebuildText(ctx, func(done, of int) { calls, last, total = calls+1, done, of }); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 50 {
		t.Errorf("found %d of 50 after RebuildText", n)
	}
	if calls == 0 || last != total || total != 50 { // 50 memories, no pages without context
		t.Errorf("progress: %d calls, last %d of %d", calls, last, total)
	}
}

// A rebuild cut short (its context cancelled) leaves no index that serves
// searches as if whole: the next search rebuilds it and finds every
// memory.
func TestRebuildCutShortIsNotServed(t *testing.T) {
	ctx := context.Background()
	st := quokkas(t)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	st.mu.Lock()
	err := st.rebuildStale(cancelled, map[string]string{"default": "a test"})
	st.mu.Unlock()
	if err == nil {
		t.Fatal("a rebuild with a cancelled context succeeded")
	}
	hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "quokka", K: 100, Fusion: memory.TextOnly})
	if err != nil || len(hits) != 50 {
		t.Errorf("after a rebuild cut short: %d of 50 found, %v", len(hits), err)
	}
}

// quokkas opens a store of 50 memories that say "quokka", closed when t
// ends.
func quokkas(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for n := range 50 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day,
			Turn: n, Role: "user", Text: fmt.Sprintf("the quokka number %d", n), Hash: fmt.Sprint(n), Created: day})
	}
	if err := st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	return st
}

// A search that fails on an index whose segments pass their checksums
// (bleve's merger can fold a damaged segment into one with a good
// checksum) rebuilds it from the records once and searches again; a
// failure that the rebuild does not cure is answered as an error, without
// rebuilding at every search.
func TestFailedSearchRebuildsOnce(t *testing.T) {
	ctx := context.Background()
	st := quokkas(t)
	var logs strings.Builder
	st.log = slog.New(slog.NewTextHandler(&logs, nil))
	count := func() (int, error) {
		hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "quokka", K: 100, Fusion: memory.TextOnly})
		return len(hits), err
	}
	if n, err := count(); n != 50 || err != nil {
		t.Fatalf("before: %d of 50, %v", n, err)
	}
	// the damage: the index's reads fail until it is rebuilt
	defer func() { textFault = nil }()
	rebuilt := func() int { return strings.Count(logs.String(), "rebuilding it from the records") }
	// the rebuild cures it (in the test: the fault ends when it starts)
	textFault = func() error {
		if rebuilt() == 0 {
			panic("runtime error: slice bounds out of range [:18446744073709551378]")
		}
		return nil
	}
	if n, err := count(); n != 50 || err != nil || rebuilt() != 1 {
		t.Fatalf("a failed search on good checksums: %d of 50, %v; %d rebuilds\n%s", n, err, rebuilt(), logs.String())
	}
	// a failure no rebuild cures: one more rebuild at most, then the error
	textFault = func() error { return errors.New("a fault the records do not cure") }
	for range 3 {
		if _, err := count(); err == nil || !strings.Contains(err.Error(), "a fault the records do not cure") {
			t.Fatalf("a failure the rebuild does not cure: %v", err)
		}
	}
	if n := rebuilt(); n != 1 {
		t.Errorf("%d rebuilds, want 1 (no second rebuild for a failure on good checksums)", n)
	}
}

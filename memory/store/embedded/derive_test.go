package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// The index's documents are derived at the flush from the records, once
// per flush however many writes touched them. Whatever the writes' grouping
// (whole sessions in one call, or turn by turn with searches, and so
// flushes, in between, and turns rewritten), the index ends up holding the
// same documents: every search ranks the same memories with the same
// scores, and check finds the index exactly what the records make.
func TestDocumentsIndependentOfWriteGrouping(t *testing.T) {
	ctx := context.Background()
	words := strings.Fields("Caroline Melanie adopted greyhound park morning pottery bowls market dollars camping storm dragons castles Paris Hamlet 3 May 2023 forty painting sister")
	rng := rand.New(rand.NewPCG(3, 5))
	text := func() string {
		var b []string
		for range 3 + rng.IntN(15) {
			b = append(b, words[rng.IntN(len(words))])
		}
		return strings.Join(b, " ")
	}
	var sessions [][]memory.Memory
	for s := range 8 {
		var ms []memory.Memory
		for n := range 5 + rng.IntN(70) {
			id := fmt.Sprintf("s%d", s)
			ms = append(ms, memory.Memory{ID: memory.MemoryID(id, n), Namespace: "default", SessionID: id, SessionDate: day0.AddDate(0, 0, s),
				Turn: n, Role: []string{"user", "assistant"}[n%2], Speaker: []string{"Caroline", "Melanie"}[n%2], Text: text(), Hash: fmt.Sprint(s, n), Created: day0})
		}
		sessions = append(sessions, ms)
	}
	queries := make([]memory.Query, 20)
	for i := range queries {
		queries[i] = memory.Query{Namespace: "default", Text: text(), K: 1000, Pool: 1000, Fusion: memory.TextOnly}
	}
	search := func(st *embedded.Store) []string {
		var out []string
		for _, q := range queries {
			hits, err := st.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, h := range hits {
				fmt.Fprintf(&b, "%s %.9g|", h.Memory.ID, h.Score)
			}
			out = append(out, b.String())
		}
		return out
	}

	// whole sessions
	wholeDir := t.TempDir()
	whole := openStore(t, wholeDir, nil)
	for _, ms := range sessions {
		if err := whole.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	// turn by turn, sessions interleaved, each turn first written with
	// another text and then rewritten, searches in between
	byTurnDir := t.TempDir()
	byTurn := openStore(t, byTurnDir, nil)
	for n := 0; ; n++ {
		wrote := false
		for s, ms := range sessions {
			if n >= len(ms) {
				continue
			}
			wrote = true
			draft := ms[n]
			draft.Text = "draft " + text()
			for _, m := range []memory.Memory{draft, ms[n]} {
				if err := byTurn.Put(ctx, []memory.Memory{m}); err != nil {
					t.Fatal(err)
				}
			}
			if (n+s)%17 == 0 {
				search(byTurn)
			}
		}
		if !wrote {
			break
		}
	}
	a, b := search(whole), search(byTurn)
	found := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("query %q ranks differently:\nwhole sessions %s\nturn by turn   %s", queries[i].Text, a[i], b[i])
		}
		found += strings.Count(a[i], "|")
	}
	if found < 100 {
		t.Fatalf("the queries found only %d memories", found)
	}
	for _, st := range []*embedded.Store{whole, byTurn} {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{wholeDir, byTurnDir} {
		r, err := embedded.Check(ctx, dir)
		if err != nil || !r.OK() {
			t.Fatalf("check: %v %+v", err, r)
		}
		if r.IndexDocuments != r.Memories {
			t.Errorf("check: %d documents for %d memories", r.IndexDocuments, r.Memories)
		}
	}
}

// A memory deleted while writes of its namespace wait for the flush
// leaves no document behind: documents are derived at the flush from the
// records, so a delete and the writes before it end as the records do.
func TestDeleteBeforeFlush(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for i, text := range []string{"the okapi is shy", "an okapi at the zoo", "okapis eat leaves"} {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", i), Namespace: "a", SessionID: "s", Turn: i,
			Role: "user", Text: text, SessionDate: day, Created: day})
	}
	// a second namespace keeps "a" from being emptied
	if err := s.Put(ctx, []memory.Memory{{ID: memory.MemoryID("t", 0), Namespace: "a", SessionID: "t", Role: "user", Text: "elsewhere", SessionDate: day, Created: day}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(ctx, memory.Query{Namespace: "a", Text: "elsewhere", K: 1, Fusion: memory.TextOnly}); err != nil {
		t.Fatal(err) // the index is open and flushed
	}
	if err := s.Put(ctx, ms); err != nil { // pending, not flushed
		t.Fatal(err)
	}
	if n, err := s.Delete(ctx, memory.Selector{Namespace: "a", IDs: []string{ms[1].ID}}); err != nil || n != 1 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	hits, err := s.Search(ctx, memory.Query{Namespace: "a", Text: "okapi", K: 10, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Errorf("%d hits, want 2", len(hits))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := embedded.Check(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Errorf("check after a delete before the flush: %+v", r)
	}
}

package embedded

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded/maxscore"
)

// decodedStore is a store of n turns in namespace "a" (words of a small
// vocabulary, so that every word has many postings), every segment on
// disk, with every word's postings decoded (DecodePostings 1) until the
// test ends.
func decodedStore(t *testing.T, n int) *Store {
	t.Helper()
	defer func(d uint64) { t.Cleanup(func() { maxscore.DecodePostings = d }) }(maxscore.DecodePostings)
	maxscore.DecodePostings = 1
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for b := 0; b < n; b += 500 {
		var ms []memory.Memory
		for i := b; i < min(b+500, n); i++ {
			w := make([]string, 3+r.IntN(12))
			for j := range w {
				w[j] = fmt.Sprintf("v%02d", r.IntN(60))
			}
			session := fmt.Sprint("s", i/10)
			ms = append(ms, memory.Memory{ID: memory.MemoryID(session, i%10), Namespace: "a", SessionID: session, Turn: i % 10,
				Role: "user", Text: strings.Join(w, " "), SessionDate: day.AddDate(0, 0, i/10)})
		}
		putFlushed(t, s, ms)
	}
	s = reopened(t, s, dir)
	t.Cleanup(func() { s.Close() })
	return s
}

// putFlushed stores ms and flushes the text indexes: a segment.
func putFlushed(t *testing.T, s *Store, ms []memory.Memory) {
	t.Helper()
	if err := s.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if err := flushAll(s); err != nil {
		t.Fatal(err)
	}
}

// reopened closes s, of dir, and opens it again: every segment on disk.
func reopened(t *testing.T, s *Store, dir string) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decodedQueries are questions of the store's words.
func decodedQueries() []memory.Query {
	var qs []memory.Query
	for i := range 20 {
		qs = append(qs, memory.Query{Namespace: "a", K: 10, Text: fmt.Sprintf("v%02d v%02d v%02d", i, (i*7)%60, (i*13+5)%60)})
	}
	return qs
}

// Recalls that decode the same words at the same moment keep one copy of
// each list and count it once: with the budget set to nothing afterwards,
// nothing is counted (a list counted twice would stay counted forever and
// leave the budget short). Their pools are bleve's. Run with -race too.
func TestDecodedAtOnce(t *testing.T) {
	s := decodedStore(t, 4000)
	defer maxscore.SetDecodedBytes(maxscore.DecodedBytes())
	maxscore.SetDecodedBytes(0)
	maxscore.SetDecodedBytes(64 << 20)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for range 4 {
		wg.Go(func() {
			for _, q := range decodedQueries() {
				ti, unlock, err := s.readText(context.Background(), "a")
				if err != nil {
					errs <- err.Error()
					return
				}
				_, err = ti.textTop(context.Background(), textQuery(q), q.PoolSize())
				unlock()
				if err != nil {
					errs <- err.Error()
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if maxscore.DecodedInUse() == 0 {
		t.Fatal("nothing decoded")
	}
	for _, q := range decodedQueries() {
		if got, want := bothRankings(t, s, "a", textQuery(q), q.PoolSize()); !sameRanking(got, want) {
			t.Errorf("%q: MaxScore %v, bleve %v", q.Text, got, want)
		}
	}
	maxscore.SetDecodedBytes(0)
	if n := maxscore.DecodedInUse(); n != 0 {
		t.Errorf("%d bytes of decoded postings counted with none kept", n)
	}
}

// Documents deleted after their words' postings were decoded are skipped
// in the decoded lists too.
func TestDecodedThenDeleted(t *testing.T) {
	s := decodedStore(t, 3000)
	check := func(when string) {
		t.Helper()
		var decoded int
		maxScoreTrace = func(res maxscore.Result) { decoded += res.Decoded }
		defer func() { maxScoreTrace = nil }()
		for _, q := range decodedQueries() {
			if got, want := bothRankings(t, s, "a", textQuery(q), q.PoolSize()); !sameRanking(got, want) {
				t.Errorf("%s, %q: MaxScore %v, bleve %v", when, q.Text, got, want)
			}
		}
		if decoded == 0 {
			t.Errorf("%s: no list walked decoded", when)
		}
	}
	check("before the deletions")
	for i := 0; i < 300; i += 3 { // every third session
		if _, err := s.Delete(context.Background(), memory.Selector{Namespace: "a", SessionID: fmt.Sprint("s", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := flushAll(s); err != nil {
		t.Fatal(err)
	}
	check("after the deletions")
}

// A memory longer than a decoded posting can say (65,535 tokens, or as
// many times one word) leaves its words' lists in zap's hands, and the
// pools are bleve's.
func TestDecodedLongMemory(t *testing.T) {
	defer func(d uint64) { maxscore.DecodePostings = d }(maxscore.DecodePostings)
	maxscore.DecodePostings = 1
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := []memory.Memory{{ID: memory.MemoryID("long", 0), Namespace: "a", SessionID: "long", Role: "user",
		Text: "harbour " + strings.Repeat("lantern ", 70000), SessionDate: day}}
	for i := range 50 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("short", i), Namespace: "a", SessionID: "short", Turn: i, Role: "user",
			Text: fmt.Sprintf("a lantern by the harbour, number %d", i), SessionDate: day})
	}
	putFlushed(t, s, ms)
	s = reopened(t, s, dir)
	var decoded int
	maxScoreTrace = func(res maxscore.Result) { decoded += res.Decoded }
	defer func() { maxScoreTrace = nil }()
	for range 2 { // the second time from what the first kept
		for _, text := range []string{"lantern", "harbour", "number"} {
			q := memory.Query{Namespace: "a", K: 10, Text: text}
			got, want := bothRankings(t, s, "a", textQuery(q), q.PoolSize())
			if !sameRanking(got, want) {
				t.Errorf("%q: MaxScore %v, bleve %v", text, got, want)
			}
		}
	}
	if decoded != 2 { // "number", twice: the others' lists hold the long memory
		t.Errorf("%d lists walked decoded, want 2", decoded)
	}
}

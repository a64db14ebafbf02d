package embedded

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory"
	"agentmem/memory/hybrid"
	"agentmem/memory/store/embedded/maxscore"
)

// MaxScore returns bleve's pool with bleve's scores: on a store of two
// namespaces whose words follow a Zipf law (a few words in most
// documents, as "like" or "time" in conversations), over several segments
// with deleted documents, for questions of common and rare words, entity
// phrases, more than ten words, and session and date filters; and it does skip documents (else it would test nothing of the
// pruning).
//
// With and without the priming walk, the scores memo (every word's,
// however few its postings) and the probes of the words not walked; and
// with the segments walked by two walkers at once (maxscore.Walkers: any
// index, here, however small); with and without window bounds (every word
// in windows of 16 documents, which walk fewer postings than the whole
// index's bounds do).
func TestMaxScoreRanksAsBleve(t *testing.T) {
	type setting struct {
		prime, probe, windows, decoded bool
		memo                           uint64
		walkers                        int
		budget                         int64 // of decoded postings; 0: the default
		oneAtATime                     bool  // documents walked one at a time (maxscore.Bulk off)
	}
	var cs []setting
	for _, prime := range []bool{true, false} {
		for _, memo := range []uint64{0, math.MaxUint64} {
			for _, probe := range []bool{true, false} {
				for _, windows := range []bool{true, false} {
					for _, decoded := range []bool{true, false} {
						cs = append(cs, setting{prime, probe, windows, decoded, memo, 1, 0, false})
						if memo == 0 {
							cs = append(cs, setting{prime, probe, windows, decoded, memo, 1, 0, true})
						}
					}
				}
			}
		}
		cs = append(cs, setting{prime, true, true, true, maxscore.MemoPostings, 2, 0, false}, setting{prime, true, true, false, maxscore.MemoPostings, 2, 0, false},
			setting{prime, true, true, true, maxscore.MemoPostings, 2, 0, true})
	}
	// decoded postings let go of while searching: a budget of a few lists
	cs = append(cs, setting{false, true, true, true, maxscore.MemoPostings, 1, 16 << 10, false})
	walked := map[setting]int{}
	for _, c := range cs {
		t.Run(fmt.Sprintf("prime=%v,memo=%v,probe=%v,windows=%v,decoded=%v,walkers=%d,budget=%d,oneAtATime=%v", c.prime, c.memo == 0, c.probe, c.windows, c.decoded, c.walkers, c.budget, c.oneAtATime), func(t *testing.T) {
			if c.walkers > runtime.GOMAXPROCS(0) {
				t.Skipf("%d walkers need GOMAXPROCS %d or more (it is %d)", c.walkers, c.walkers, runtime.GOMAXPROCS(0))
			}
			defer func(p, pr, wi bool, m uint64, w int, d, pd, wp uint64, wb uint, dp uint64) {
				maxscore.Prime, maxscore.Probe, maxscore.Windows, maxscore.MemoPostings, maxscore.Walkers, maxscore.WalkDocs, maxscore.PartDocs = p, pr, wi, m, w, d, pd
				maxscore.WindowPostings, maxscore.WindowBits, maxscore.DecodePostings = wp, wb, dp
			}(maxscore.Prime, maxscore.Probe, maxscore.Windows, maxscore.MemoPostings, maxscore.Walkers, maxscore.WalkDocs, maxscore.PartDocs, maxscore.WindowPostings, maxscore.WindowBits, maxscore.DecodePostings)
			maxscore.Prime, maxscore.Probe, maxscore.Windows, maxscore.MemoPostings, maxscore.Walkers = c.prime, c.probe, c.windows, c.memo, c.walkers
			maxscore.WalkDocs, maxscore.PartDocs = 0, 97 // several walkers on every index, in parts
			maxscore.WindowPostings, maxscore.WindowBits = 1, 4
			defer func(b bool) { maxscore.Bulk = b }(maxscore.Bulk)
			maxscore.Bulk = !c.oneAtATime
			maxscore.DecodePostings = 0 // off
			if c.decoded {
				maxscore.DecodePostings = 1 // every word decoded
			}
			if c.budget > 0 {
				defer maxscore.SetDecodedBytes(maxscore.DecodedBytes())
				maxscore.SetDecodedBytes(c.budget)
			}
			var decoded int
			walked[c], decoded = testMaxScoreRanksAsBleve(t)
			if c.decoded != (decoded > 0) {
				t.Errorf("decoded=%v: %d postings lists walked decoded", c.decoded, decoded)
			}
			if n := maxscore.DecodedInUse(); n > maxscore.DecodedBytes() {
				t.Errorf("%d bytes of decoded postings kept, over the budget of %d", n, maxscore.DecodedBytes())
			}
		})
	}
	for c, n := range walked {
		if !c.windows {
			continue
		}
		without := c
		without.windows = false
		if m, ok := walked[without]; ok && n >= m {
			t.Errorf("%+v: %d postings walked with window bounds, %d without", c, n, m)
		}
	}
}

// testMaxScoreRanksAsBleve checks MaxScore against bleve over a random
// store and returns how many postings MaxScore walked, and how many
// postings lists it walked decoded.
func testMaxScoreRanksAsBleve(t *testing.T) (walked, decoded int) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	r := rand.New(rand.NewPCG(7, 11))
	var vocab []string
	for i := range 400 {
		vocab = append(vocab, fmt.Sprintf("w%03dx", i))
	}
	names := strings.Fields("Paris Boston Tokyo Caroline Melanie Jon Gina")
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			if r.IntN(25) == 0 {
				w[i] = names[r.IntN(len(names))]
				continue
			}
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	put := func(from, to int) {
		var ms []memory.Memory
		for i := from; i < to; i++ {
			ns := []string{"a", "b"}[i%2]
			session := fmt.Sprint("s", i/20)
			// lengths from one word to long turns
			n := 1 + r.IntN(4)
			if r.IntN(3) == 0 {
				n = 5 + r.IntN(60)
			}
			ms = append(ms, memory.Memory{ID: memory.MemoryID(session, i%20), Namespace: ns, SessionID: session, Turn: i % 20,
				Role: "user", Text: sentence(n), SessionDate: day.AddDate(0, 0, i/20)})
		}
		putFlushed(t, s, ms)
	}
	// several batches: several segments
	for b := range 6 {
		put(b*1000, (b+1)*1000)
	}
	if _, err := s.Delete(context.Background(), memory.Selector{Namespace: "a", SessionID: "s4"}); err != nil {
		t.Fatal(err)
	}
	if err := flushAll(s); err != nil {
		t.Fatal(err)
	}
	// opened again: every segment on disk, as only those have window bounds
	s = reopened(t, s, dir)

	var postings, parallel int
	maxScoreTrace = func(res maxscore.Result) {
		walked += res.Walked
		decoded += res.Decoded
		postings += res.Postings
		if res.Walkers > 1 {
			parallel++
		}
	}
	defer func() { maxScoreTrace = nil }()
	maxExcluded := maxscore.MaxExcluded
	defer func() { maxscore.MaxExcluded = maxExcluded }()
	queries, exact := 0, 0
	for i := range 240 {
		words := 1 + r.IntN(8)
		if i%6 == 5 {
			words = 11 + r.IntN(8) // a heap disjunction in bleve
		}
		q := memory.Query{Namespace: "a", Text: sentence(words), K: 10}
		switch i % 8 {
		case 1:
			q.SessionID = fmt.Sprint("s", 2*r.IntN(150))
		case 2:
			q.After, q.Before = day.AddDate(0, 0, 30), day.AddDate(0, 0, 200)
		case 4:
			q.Namespace = "b"
			q.K = 3
		case 6: // a session left out: MaxScore's excluded documents
			q.ExcludeSession = fmt.Sprint("s", r.IntN(300))
		case 7: // and with a date bound: the shared filter's must-not
			q.ExcludeSession = fmt.Sprint("s", r.IntN(300))
			q.After = day.AddDate(0, 0, 10)
		}
		tq := textQuery(q)
		if tq == nil {
			continue
		}
		// every other session left out is more documents than MaxScore
		// reads up front: left out through its filter instead
		maxscore.MaxExcluded = cmp.Or(3*(i/8%2), maxExcluded)
		got, want := bothRankings(t, s, q.Namespace, tq, q.PoolSize())
		queries++
		bits := fmt.Sprint(got) == fmt.Sprint(want)
		if !sameRanking(got, want) {
			t.Errorf("%+v:\nMaxScore %v\nbleve    %v", q, got, want)
		}
		if bits {
			exact++
		} else if words <= 10 {
			t.Errorf("%+v: the scores differ from bleve's in the last bits:\nMaxScore %v\nbleve    %v", q, got, want)
		}
	}
	t.Logf("%d queries (%d by several walkers), %d with bleve's scores bit for bit; %d of their words' %d postings walked", queries, parallel, exact, walked, postings)
	if walked == 0 || walked > postings*3/4 {
		t.Errorf("MaxScore walked %d of %d postings", walked, postings)
	}
	if w := min(maxscore.Walkers, runtime.GOMAXPROCS(0)); (w > 1) != (parallel > 0) {
		t.Errorf("%d walkers: %d of %d queries walked by more than one", w, parallel, queries)
	}
	return walked, decoded
}

// A segment without window bounds after one with them is walked with the
// whole index's bounds, not the last window's of the segment before: at
// the default settings, segments in order A (300 turns "cword rword"), B
// (10,000 turns, half of them "cword" in long turns: windowed) and C (5
// short turns "cword cword rword": too few postings for windows). C's
// turns score best, and MaxScore must find them as bleve does.
func TestMaxScoreWindowsThenNone(t *testing.T) {
	// bleve's merger may fold the batches together on a loaded machine:
	// the index is built again, at most six times, until they stay apart
	var s *Store
	for try := 1; s == nil; try++ {
		s = threeSegments(t)
		if n := segmentsOf(t, s, "a"); n != 3 {
			s.Close()
			s = nil
			if try == 6 {
				t.Fatalf("the index held %d segments, six times, want the 3 batches (merged: the test needs them apart)", n)
			}
		}
	}
	defer s.Close()
	defer func(w bool) { maxscore.Windows = w }(maxscore.Windows)
	for _, win := range []bool{false, true} {
		maxscore.Windows = win
		q := memory.Query{Namespace: "a", Text: "cword rword", K: 10}
		got, want := bothRankings(t, s, "a", textQuery(q), q.PoolSize())
		if !sameRanking(got, want) {
			t.Errorf("windows=%v: MaxScore ranks\n%v\nbleve\n%v", win, got[:3], want[:3])
		}
	}
}

// threeSegments is a store whose namespace "a" holds the segments of
// TestMaxScoreWindowsThenNone, on disk: unless bleve merged them.
func threeSegments(t *testing.T) *Store {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	filler := func(i, n int) string {
		w := make([]string, n)
		for j := range w {
			w[j] = fmt.Sprintf("f%dx%dy", i, j)
		}
		return strings.Join(w, " ")
	}
	put := func(session string, texts []string) {
		var ms []memory.Memory
		for i, text := range texts {
			ms = append(ms, memory.Memory{ID: memory.MemoryID(session, i), Namespace: "a", SessionID: session, Turn: i, Role: "user", Text: text, SessionDate: day})
		}
		if err := s.Put(context.Background(), ms); err != nil {
			t.Fatal(err)
		}
		if err := flushAll(s); err != nil {
			t.Fatal(err)
		}
	}
	var a, b, c []string
	for i := range 300 {
		a = append(a, "cword rword "+filler(i, 3))
	}
	for i := range 10000 {
		if i%2 == 0 {
			b = append(b, "cword "+filler(1000+i, 39))
		} else {
			b = append(b, filler(1000+i, 40))
		}
	}
	for i := range 5 {
		c = append(c, "cword cword rword "+filler(100000+i, 2))
	}
	put("sa", a)
	put("sb", b)
	put("sc", c)
	// opened again: every segment on disk (only those have window bounds)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(context.Background(), dir, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	return s
}

// segmentsOf is how many segments namespace ns's text index holds.
func segmentsOf(t *testing.T, s *Store, ns string) int {
	t.Helper()
	adv, err := s.indexOf(t, ns).Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		t.Fatalf("the index reader is %T, not scorch's", r)
	}
	return len(snap.Segments())
}

// bothRankings is MaxScore's best n of tq in namespace ns, and bleve's.
// The read lock is released however it ends (a failure or a panic would
// otherwise hang the store's Close).
func bothRankings(t *testing.T, s *Store, ns string, tq query.Query, n int) (got, want []hybrid.Ranked) {
	t.Helper()
	ti, unlock, err := s.readText(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if want, err = ti.text(context.Background(), bleve.NewSearchRequestOptions(tq, n, 0, false)); err != nil {
		t.Fatal(err)
	}
	if got, err = ti.textTop(context.Background(), tq, n); err != nil {
		t.Fatal(err)
	}
	return got, want
}

// flushAll makes every write searchable.
func flushAll(s *Store) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

// sameRanking tells whether got is want up to the last bits of the
// scores: the same scores (relative 1e-12), the same ids but where two
// scores tie to those bits (bleve's heap disjunction sums in another order).
func sameRanking(got, want []hybrid.Ranked) bool {
	if len(got) != len(want) {
		return false
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b)) }
	at := map[string]float64{}
	for _, w := range want {
		at[w.ID] = w.Score
	}
	for i := range want {
		if !near(got[i].Score, want[i].Score) {
			return false
		}
		if got[i].ID == want[i].ID {
			continue
		}
		// another id: one of the same score, in want, or tied with
		// want's last (the pool's edge)
		if w, ok := at[got[i].ID]; !(ok && near(w, got[i].Score)) && !near(got[i].Score, want[len(want)-1].Score) {
			return false
		}
	}
	return true
}

// A query of another shape than hybrid.TextMatch's runs in bleve, with
// the same result.
func TestMaxScoreOtherShapes(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for i, text := range []string{"the greyhound ran on the beach", "a beach in Brighton", "greyhound racing"} {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", i), Namespace: "a", SessionID: "s", Turn: i, Role: "user", Text: text, SessionDate: day})
	}
	if err := s.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if err := flushAll(s); err != nil {
		t.Fatal(err)
	}
	fuzzy := bleve.NewMatchQuery("greyhund")
	fuzzy.SetField(hybrid.FieldText)
	fuzzy.SetFuzziness(1)
	for _, tq := range []query.Query{
		fuzzy,
		bleve.NewDisjunctionQuery(fuzzy),
		bleve.NewConjunctionQuery(hybrid.TextMatch(memory.Query{Namespace: "a", Text: "greyhound beach"})),
	} {
		got, want := bothRankings(t, s, "a", tq, 10)
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%T: got %v, want %v", tq, got, want)
		}
	}
}

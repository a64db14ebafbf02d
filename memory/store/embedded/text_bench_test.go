package embedded

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	"github.com/blevesearch/bleve/v2/search/query"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// BenchmarkTextSide takes the text side of a recall apart on a large store
// (AGENTMEM_BENCH_STORE: a store directory made by `agentmem-eval bench --keep
// --work DIR`, e.g. DIR/100000, namespace "bench"): the query tree as
// shared with Couchbase (the filter a boost-0 conjunct), the same with the
// filter as bleve's non-scoring filter clause, the match alone (no filter:
// what the filter costs, valid in a one-namespace store), the BM25 match on
// the text alone, the session-page request, and the store's MaxScore
// evaluation of the match without and with the filter clause (checked
// first to rank as bleve does). Queries are the first words of 200 random
// stored turns, or the lines of AGENTMEM_BENCH_QUERIES (e.g. LongMemEval's
// questions). AGENTMEM_BENCH_FORCEMERGE=1 merges the
// index into one segment first (in place), to see what segments cost.
func BenchmarkTextSide(b *testing.B) {
	s, texts := openBenchStore(b)
	defer s.Close()
	qs := benchQueries(b, texts)
	ti := benchIndex(b, s, len(texts))

	run := func(mk func(q memory.Query) *bleve.SearchRequest) func(b *testing.B) {
		return func(b *testing.B) {
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := ti.idx.Search(mk(qs[i%len(qs)])); err != nil {
					b.Fatal(err)
				}
				i++
			}
			// CPU per search: robust on a shared machine, where wall is not
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(i), "cpu-ms/op")
		}
	}
	req := func(tq query.Query, q memory.Query) *bleve.SearchRequest {
		r := bleve.NewSearchRequestOptions(tq, q.PoolSize(), 0, false)
		r.Score = ""
		return r
	}
	// the filter clause must rank exactly as the tree does
	for _, q := range qs[:min(50, len(qs))] {
		a, err := ti.text(context.Background(), hybrid.SearchRequest(q))
		if err != nil {
			b.Fatal(err)
		}
		c, err := ti.text(context.Background(), req(filtered(q), q))
		if err != nil {
			b.Fatal(err)
		}
		if !reflect.DeepEqual(a, c) {
			b.Fatalf("%q: the filter clause ranks\n%v\nthe tree\n%v", q.Text, c, a)
		}
	}
	// MaxScore must return bleve's pool with bleve's scores (to the last
	// bits with more than ten words: bleve's heap order); the CPU of the
	// two, one query after the other (robust to a load that changes
	// between the sub-benchmarks below)
	var cpuBleve, cpuMax [2]time.Duration
	for _, q := range qs {
		for i, tq := range []query.Query{hybrid.TextMatch(q), filtered(q)} {
			c0 := cpuTime()
			want, err := ti.text(context.Background(), req(tq, q))
			if err != nil {
				b.Fatal(err)
			}
			c1 := cpuTime()
			got, err := ti.textTop(context.Background(), tq, q.PoolSize())
			if err != nil {
				b.Fatal(err)
			}
			cpuBleve[i] += c1 - c0
			cpuMax[i] += cpuTime() - c1
			if !sameRanking(got, want) {
				b.Fatalf("%q: MaxScore ranks\n%v\nbleve\n%v", q.Text, got, want)
			}
		}
	}
	for i, name := range []string{"no filter", "filter clause"} {
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(len(qs)) }
		b.Logf("%s, %d queries, interleaved: bleve %.2f CPU ms, MaxScore %.2f (%.2fx), the same pools", name, len(qs), ms(cpuBleve[i]), ms(cpuMax[i]), float64(cpuMax[i])/float64(cpuBleve[i]))
	}
	runTop := func(mk func(q memory.Query) query.Query) func(b *testing.B) {
		return func(b *testing.B) {
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				q := qs[i%len(qs)]
				if _, err := ti.textTop(context.Background(), mk(q), q.PoolSize()); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(i), "cpu-ms/op")
		}
	}
	b.Run("tree", run(hybrid.SearchRequest))
	b.Run("filter-clause", run(func(q memory.Query) *bleve.SearchRequest { return req(filtered(q), q) }))
	b.Run("no-filter", run(func(q memory.Query) *bleve.SearchRequest { return req(hybrid.TextMatch(q), q) }))
	b.Run("bm25-text-only", run(func(q memory.Query) *bleve.SearchRequest {
		mq := bleve.NewMatchQuery(q.Text)
		mq.SetField(hybrid.FieldText)
		return req(mq, q)
	}))
	b.Run("maxscore-no-filter", runTop(hybrid.TextMatch))
	b.Run("maxscore-filter-clause", runTop(filtered))
	// the store's own call (textIndex.search: BM25 statistics, and equal
	// scores at the cut decided by id) against the bare search of the
	// same request with the same statistics
	ties := 0
	docs, err := ti.idx.DocCount()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range qs {
		r := req(textQuery(q), q)
		r.Size++
		res, err := ti.idx.SearchInContext(hybrid.BM25Context(context.Background(), docs), r)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Hits); n == r.Size && res.Hits[n-1].Score == res.Hits[n-2].Score {
			ties++
		}
	}
	b.Logf("%d of %d queries have equal scores across the pool's cut", ties, len(qs))
	store := func(tieCut bool) func(b *testing.B) {
		return func(b *testing.B) {
			n, err := ti.idx.DocCount()
			if err != nil {
				b.Fatal(err)
			}
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				q := qs[i%len(qs)]
				r := req(textQuery(q), q)
				if tieCut {
					_, err = ti.search(context.Background(), r)
				} else {
					_, err = ti.idx.SearchInContext(hybrid.BM25Context(context.Background(), n), r)
				}
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(i), "cpu-ms/op")
		}
	}
	b.Run("store-bare", store(false))
	b.Run("store-tie-cut", store(true))
}

// benchNS is the namespace agentmem bench stores its memories in.
const benchNS = "bench"

// openBenchStore opens the store AGENTMEM_BENCH_STORE names (the
// benchmark is skipped without it) and reads its memories' texts.
func openBenchStore(b *testing.B) (*Store, []string) {
	dir := os.Getenv("AGENTMEM_BENCH_STORE")
	if dir == "" {
		b.Skip("AGENTMEM_BENCH_STORE is not set: make a store with `agentmem-eval bench --sizes 100000 --keep --work DIR` and point it at DIR/100000/store")
	}
	s, err := Open(context.Background(), dir, Options{SkipEmbedderCheck: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMem).ForEach(func(k, v []byte) error {
			if m, err := decode(v); err == nil && m.Namespace == benchNS {
				texts = append(texts, m.Text)
			}
			return nil
		})
	})
	if len(texts) == 0 {
		b.Fatalf("no memories in namespace %s of %s", benchNS, dir)
	}
	return s, texts
}

// benchQueries are the lines of AGENTMEM_BENCH_QUERIES, or else the first
// words of 200 random texts.
func benchQueries(b *testing.B, texts []string) []memory.Query {
	r := rand.New(rand.NewPCG(1, 1))
	var qs []memory.Query
	if path := os.Getenv("AGENTMEM_BENCH_QUERIES"); path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.TrimSpace(line) != "" {
				qs = append(qs, memory.Query{Namespace: benchNS, Text: line, K: 10})
			}
		}
	}
	for len(qs) == 0 {
		for range 200 {
			w := strings.Fields(texts[r.IntN(len(texts))])
			qs = append(qs, memory.Query{Namespace: benchNS, Text: strings.Join(w[:min(len(w), 10)], " "), K: 10})
		}
	}
	return qs
}

// benchIndex is the bench namespace's text index, merged into one segment
// first with AGENTMEM_BENCH_FORCEMERGE, its statistics logged.
func benchIndex(b *testing.B, s *Store, memories int) *textIndex {
	s.indexOf(b, benchNS)
	ti := s.texts[benchNS]
	if os.Getenv("AGENTMEM_BENCH_FORCEMERGE") != "" {
		// what the segment count costs: merge into one first (this
		// rewrites the index in place)
		adv, err := ti.idx.Advanced()
		if err != nil {
			b.Fatal(err)
		}
		sc, ok := adv.(*scorch.Scorch)
		if !ok {
			b.Fatalf("the index is %T, not scorch", adv)
		}
		if err := sc.ForceMerge(context.Background(), &mergeplan.SingleSegmentMergePlanOptions); err != nil {
			b.Fatal(err)
		}
	}
	stats := ti.idx.StatsMap()
	var keys []string
	for k, v := range flatten("", stats) {
		if strings.Contains(strings.ToLower(k), "segment") || strings.Contains(k, "doc") {
			keys = append(keys, fmt.Sprintf("%s=%v", k, v))
		}
	}
	sort.Strings(keys)
	b.Logf("%d memories; index stats: %s", memories, strings.Join(keys, " "))
	return ti
}

// cpuTime is the process's CPU time (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for k2, v2 := range flatten(prefix+k+".", sub) {
				out[k2] = v2
			}
			continue
		}
		out[prefix+k] = v
	}
	return out
}

// The store's text query (the filter as a non-scoring clause) ranks
// exactly as the shared tree does, with and without session and date
// filters, in a namespace of a store of two.
func TestFilterClauseRanksAsTree(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	words := strings.Fields("garden museum concert hike trip beach city book movie song recipe dinner school work project meeting doctor birthday wedding gift Paris Boston Tokyo")
	r := rand.New(rand.NewPCG(2, 3))
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	var ms []memory.Memory
	for i := range 600 {
		ns := []string{"a", "b"}[i%2]
		session := fmt.Sprint("s", i/20)
		ms = append(ms, memory.Memory{ID: memory.MemoryID(session, i%20), Namespace: ns, SessionID: session, Turn: i % 20, Role: "user",
			Text: sentence(8), SessionDate: time.Date(2024, 1, 1+i/20, 0, 0, 0, 0, time.UTC)})
	}
	if err := s.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	s.indexOf(t, "a")
	for i := range 30 {
		q := memory.Query{Namespace: "a", Text: sentence(4), K: 10}
		switch i % 3 {
		case 1:
			q.SessionID = "s4"
		case 2:
			q.After, q.Before = time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC)
		}
		want, err := s.texts["a"].text(context.Background(), hybrid.SearchRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		r := bleve.NewSearchRequestOptions(filtered(q), q.PoolSize(), 0, false)
		got, err := s.texts["a"].text(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: the filter clause ranks\n%v\nthe tree\n%v", q, got, want)
		}
	}
}

// Each namespace has an index of its own, created by its first write,
// opened again at open, and removed with its last memory; no recall ever
// returns another namespace's memory.
func TestTextIndexPerNamespace(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	put := func(s *Store, ns string) {
		t.Helper()
		var ms []memory.Memory
		for i := range 5 {
			ms = append(ms, memory.Memory{ID: memory.MemoryID("s", i), Namespace: ns, SessionID: "s", Turn: i, Role: "user", Text: "the greyhound ran on the beach", SessionDate: day})
		}
		if err := s.Put(context.Background(), ms); err != nil {
			t.Fatal(err)
		}
	}
	search := func(s *Store, ns string, want int) {
		t.Helper()
		hits, err := s.Search(context.Background(), memory.Query{Namespace: ns, Text: "greyhound beach", K: 10, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("namespace %s: %d hits, want %d", ns, len(hits), want)
		}
		for _, h := range hits {
			if h.Memory.Namespace != ns {
				t.Errorf("namespace %s: a hit from namespace %s", ns, h.Memory.Namespace)
			}
		}
	}
	indexes := func(s *Store, want ...string) {
		t.Helper()
		if got := slices.Sorted(maps.Keys(s.texts)); !reflect.DeepEqual(got, want) {
			t.Errorf("indexes of namespaces %q, want %q", got, want)
		}
		dirs, _ := os.ReadDir(filepath.Join(dir, textDir))
		if len(dirs) != len(want) {
			t.Errorf("%d index directories for %d namespaces", len(dirs), len(want))
		}
	}
	put(s, "a")
	search(s, "a", 5)
	search(s, "b", 0)
	s.Close()
	if s, err = Open(context.Background(), dir, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	indexes(s, "a")
	search(s, "a", 5)
	put(s, "b")
	indexes(s, "a", "b")
	search(s, "a", 5)
	search(s, "b", 5)
	if _, err := s.Delete(context.Background(), memory.Selector{Namespace: "b", All: true}); err != nil {
		t.Fatal(err)
	}
	indexes(s, "a")
	search(s, "a", 5)
	search(s, "b", 0)
	put(s, "b")
	s.Close()
	if s, err = Open(context.Background(), dir, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	indexes(s, "a", "b")
	search(s, "a", 5)
	search(s, "b", 5)
}

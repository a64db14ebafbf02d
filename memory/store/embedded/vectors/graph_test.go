package vectors

import (
	"math/rand/v2"
	"testing"
)

func meanRecall(t *testing.T, x *Index, ref map[string]genMem, qs [][]float32, f Filter) float64 {
	t.Helper()
	var sum float64
	for _, q := range qs {
		got, err := x.Search(q, 30, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			m := ref[r.ID]
			if (f.After != 0 && m.date < f.After) || (f.Before != 0 && m.date > f.Before) || (f.Session != "" && m.session != f.Session) {
				t.Fatalf("result %s (session %s, date %d) is outside filter %+v", r.ID, m.session, m.date, f)
			}
		}
		want := brute(ref, q, 10, f)
		sum += recall(got[:min(10, len(got))], want)
	}
	return sum / float64(len(qs))
}

// checkGraph verifies the graph's structure: every live row is a node,
// lists hold no duplicates or self-links, and edges to freed rows (left by
// repairs, as in hnswlib; skipped by searches) stay a small minority.
func checkGraph(t *testing.T, x *Index) {
	t.Helper()
	g := x.graph
	pending := map[int32]bool{}
	for _, r := range x.pending {
		pending[r] = true
	}
	edges, dangling := 0, 0
	for r := range x.rows {
		live := x.rows[r].mem >= 0
		in := g.level[r] >= 0
		if live != (in || pending[int32(r)]) {
			t.Fatalf("row %d: live %v, in graph %v, pending %v", r, live, in, pending[int32(r)])
		}
		if !in {
			continue
		}
		for lc := 0; lc <= int(g.level[r]); lc++ {
			l := g.list(int32(r), lc)
			seen := map[int32]bool{}
			for _, n := range l[1 : 1+l[0]] {
				edges++
				if n == int32(r) || seen[n] {
					t.Fatalf("row %d layer %d: self-link or duplicate %d in %v", r, lc, n, l[1:1+l[0]])
				}
				seen[n] = true
				if int(g.level[n]) < lc {
					dangling++
				}
			}
		}
	}
	if dangling*10 > edges {
		t.Errorf("%d of %d edges dangle", dangling, edges)
	} else if dangling > 0 {
		t.Logf("%d of %d edges (%.1f%%) lead to freed rows", dangling, edges, 100*float64(dangling)/float64(edges))
	}
	if g.entry < 0 || int(g.level[g.entry]) != g.top {
		t.Errorf("entry %d at level %d, top %d", g.entry, g.level[g.entry], g.top)
	}
}

// The graph path keeps recall@10 >= 0.98 against the exact scan, through
// the build, batched inserts, deletes (repaired one by one), replacements,
// and filters that leave most rows; selective filters scan exactly.
func TestGraphRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a 10,000-row graph")
	}
	c := newCorpus(48, 60, 9)
	x := mustNew(t, 48, Options{GraphAt: 2500})
	ref := map[string]genMem{}
	ms := c.memories(6000, "")
	add(t, x, ref, ms...)
	if !x.HasGraph() {
		t.Fatal("no graph past GraphAt")
	}
	checkGraph(t, x)
	qs := c.queries(100)
	if r := meanRecall(t, x, ref, qs, Filter{}); r < 0.98 {
		t.Errorf("recall@10 after build: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 after build: %.3f", r)
	}

	rnd := rand.New(rand.NewPCG(9, 9))
	for i, m := range ms {
		switch {
		case i%7 == 0:
			x.Remove(m.id) // one at a time: the repair path
			delete(ref, m.id)
		case i%11 == 0:
			m.windows = c.memories(1, "r")[0].windows
			add(t, x, ref, m)
		}
	}
	add(t, x, ref, c.memories(1500, "new")...)
	checkGraph(t, x)
	if r := meanRecall(t, x, ref, qs, Filter{}); r < 0.98 {
		t.Errorf("recall@10 after deletes and replacements: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 after deletes and replacements: %.3f", r)
	}

	// a filter passing most rows goes through the graph
	var lo, hi int64
	for _, m := range ref {
		if lo == 0 || m.date < lo {
			lo = m.date
		}
		hi = max(hi, m.date)
	}
	wide := Filter{After: lo + (hi-lo)/4}
	cf, _ := x.compile(wide)
	if x.estimatePassing(&cf) < x.opts.GraphAt {
		t.Fatalf("the wide filter passes only ~%d rows", x.estimatePassing(&cf))
	}
	if r := meanRecall(t, x, ref, qs, wide); r < 0.98 {
		t.Errorf("recall@10 with a wide date filter: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 with a wide date filter: %.3f", r)
	}
	// selective filters (a session, a short date range) scan, exactly
	checkExact(t, x, ref, qs[:20], rnd)
	var sess string
	for _, m := range ref {
		sess = m.session
		break
	}
	for _, narrow := range []Filter{{After: lo + (hi-lo)/2, Before: lo + (hi-lo)/2 + (hi-lo)/50}, {Session: sess}} {
		for _, q := range qs[:20] {
			got, _ := x.Search(q, 30, narrow)
			if want := brute(ref, q, 30, narrow); !equal(got, want) {
				t.Fatalf("filter %+v: got %v, want %v", narrow, head(got), head(want))
			}
		}
	}

	// removing most memories drops the graph; what is left is exact
	var ids []string
	for id := range ref {
		if len(ids) < len(ref)-1000 {
			ids = append(ids, id)
		}
	}
	x.Remove(ids...)
	for _, id := range ids {
		delete(ref, id)
	}
	if x.HasGraph() {
		t.Fatalf("graph kept with %d rows, GraphAt %d", x.Rows(), x.opts.GraphAt)
	}
	checkExact(t, x, ref, qs[:20], rnd)
}

// Searches run concurrently with each other (the store holds a read lock):
// they share nothing mutable but pooled scratch space, and answer as they
// do alone.
func TestConcurrentSearch(t *testing.T) {
	c := newCorpus(32, 20, 13)
	x := mustNew(t, 32, Options{GraphAt: 1000})
	ref := map[string]genMem{}
	add(t, x, ref, c.memories(3000, "")...)
	if !x.HasGraph() || len(x.pending) == 0 {
		t.Fatalf("want a graph with pending rows: graph %v, pending %d", x.HasGraph(), len(x.pending))
	}
	qs := c.queries(30)
	fs := filters(rand.New(rand.NewPCG(13, 13)), ref)
	want := make([][]Result, len(qs))
	for i, q := range qs {
		want[i], _ = x.Search(q, 20, fs[i%len(fs)])
	}
	errs := make(chan string, 4)
	done := make(chan bool)
	for w := range 4 {
		go func() {
			defer func() { done <- true }()
			for rep := range 5 {
				for i := range qs {
					i := (i + w + rep) % len(qs)
					got, err := x.Search(qs[i], 20, fs[i%len(fs)])
					if err != nil || !equal(got, want[i]) {
						errs <- "concurrent search differs"
						return
					}
					if _, err := x.SearchExact(qs[i], 20, fs[i%len(fs)]); err != nil {
						errs <- err.Error()
						return
					}
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

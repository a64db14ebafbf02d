package vectors

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// go test -bench . ./memory/store/embedded/vectors/                  10k and 100k
// go test -bench . ./memory/store/embedded/vectors/ -sizes 1000000   1M (needs ~6 GB of RAM, ~10 min)
// go test -bench . -short ...                                        10k only
var benchSizes = flag.String("sizes", "", "comma-separated numbers of memories for the benchmarks (default 10000,100000; 10000 with -short)")

const benchDims = 512

func sizes() []int {
	s := *benchSizes
	if s == "" {
		s = "10000,100000"
		if testing.Short() {
			s = "10000"
		}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// fixture is one benchmark corpus: the index (graph built when large
// enough), a plain float32 copy for the reference scan, queries and the
// exact answers.
type fixture struct {
	n       int
	x       *Index
	plain   plainScan
	qs      [][]float32
	exact   [][]Result // by query, k=benchK, no filter
	addTime time.Duration
	graphT  time.Duration
	rssIdx  int64 // RSS growth while building the index, bytes
}

const benchK = 30 // the store's pool for k=10

var (
	fixtures   = map[int]*fixture{}
	fixturesMu sync.Mutex
)

func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func getFixture(b *testing.B, n int) *fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[n]; f != nil {
		return f
	}
	for k := range fixtures { // one at a time: the 1M one is large
		delete(fixtures, k)
	}
	runtime.GC()
	debug.FreeOSMemory()
	f := &fixture{n: n}
	c := newCorpus(benchDims, max(16, int(math.Sqrt(float64(n)))/2), uint64(n))
	x, err := New(benchDims, Options{GraphAt: -1})
	if err != nil {
		b.Fatal(err)
	}
	before := rss()
	for done := 0; done < n; {
		batch := c.memories(min(5000, n-done), fmt.Sprintf("b%d-", done))
		start := time.Now()
		for _, m := range batch {
			if err := x.Add(m.id, m.session, m.date, m.windows); err != nil {
				b.Fatal(err)
			}
		}
		f.addTime += time.Since(start)
		f.plain.add(batch)
		done += len(batch)
	}
	runtime.GC()
	debug.FreeOSMemory()
	f.rssIdx = rss() - before // includes the plain copy; subtracted below
	f.rssIdx -= int64(len(f.plain.data))*4 + int64(len(f.plain.mem))*4
	f.x = x
	f.qs = c.queries(200)
	f.exact = make([][]Result, len(f.qs))
	for i, q := range f.qs {
		f.exact[i] = f.plain.search(q, benchK)
	}
	if n >= 50_000 {
		start := time.Now()
		x.buildGraph()
		f.graphT = time.Since(start)
	}
	st := x.Stats()
	b.Logf("n=%d memories, %d windows: add %.1f µs/window, graph build %v; RSS +%.0f MB for the index (%.0f MB per million windows; vectors %.0f MB, codes %.0f MB, bookkeeping %.0f MB, graph %.0f MB)",
		n, st.Rows, float64(f.addTime.Microseconds())/float64(st.Rows), f.graphT.Round(time.Millisecond),
		float64(f.rssIdx)/1e6, float64(f.rssIdx)/1e6*1e6/float64(st.Rows),
		float64(st.VectorBytes)/1e6, float64(st.CodeBytes)/1e6, float64(st.BookBytes)/1e6, float64(st.GraphBytes)/1e6)
	fixtures[n] = f
	return f
}

// plainScan is the reference: a float32 dot product per window, one
// goroutine, windows of a memory contiguous, a small heap, nothing else.
type plainScan struct {
	dims int
	data []float32
	mem  []int32
	ids  []string
}

func (p *plainScan) add(ms []genMem) {
	for _, m := range ms {
		for _, w := range m.windows {
			p.data = append(p.data, w...)
			p.mem = append(p.mem, int32(len(p.ids)))
		}
		p.ids = append(p.ids, m.id)
		p.dims = len(m.windows[0])
	}
}

func (p *plainScan) search(q []float32, k int) []Result {
	var top []Result // sorted best first, at most k
	offer := func(m int32, s float64) {
		r := Result{p.ids[m], s}
		if len(top) == k && !(s > top[k-1].Score || (s == top[k-1].Score && r.ID < top[k-1].ID)) {
			return
		}
		i, _ := slices.BinarySearchFunc(top, r, func(a, b Result) int {
			if a.Score != b.Score {
				return cmp.Compare(b.Score, a.Score)
			}
			return cmp.Compare(a.ID, b.ID)
		})
		top = slices.Insert(top, i, r)
		if len(top) > k {
			top = top[:k]
		}
	}
	cur, best := int32(-1), math.Inf(-1)
	for r, m := range p.mem {
		s := float64(Dot(q, p.data[r*p.dims:(r+1)*p.dims]))
		if m != cur {
			if cur >= 0 {
				offer(cur, best)
			}
			cur, best = m, s
		} else {
			best = max(best, s)
		}
	}
	if cur >= 0 {
		offer(cur, best)
	}
	return top
}

// latencies runs search over the queries b.N times in all and reports
// p50/p95 in ms and, when want is set, recall@10 against it.
func latencies(b *testing.B, f *fixture, search func(q []float32) []Result, want [][]Result) {
	b.Helper()
	var ds []time.Duration
	var rec float64
	nrec := 0
	b.ResetTimer()
	for i := range b.N {
		qi := i % len(f.qs)
		start := time.Now()
		got := search(f.qs[qi])
		ds = append(ds, time.Since(start))
		if want != nil && i < len(f.qs) {
			rec += recall(got[:min(10, len(got))], want[qi][:min(10, len(want[qi]))])
			nrec++
		}
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	if nrec > 0 {
		b.ReportMetric(rec/float64(nrec), "recall@10")
	}
}

// BenchmarkSearch: per corpus size, the plain float32 scan (reference), the
// exact int8 scan, and (from 50k memories) the HNSW graph, k=30 (the
// store's pool for k=10), unit 512-d vectors with realistic structure.
func BenchmarkSearch(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.Run("plain-f32", func(b *testing.B) {
				f := getFixture(b, n)
				latencies(b, f, func(q []float32) []Result { return f.plain.search(q, benchK) }, nil)
			})
			b.Run("exact", func(b *testing.B) {
				f := getFixture(b, n)
				latencies(b, f, func(q []float32) []Result {
					rs, err := f.x.SearchExact(q, benchK, Filter{})
					if err != nil {
						b.Fatal(err)
					}
					return rs
				}, f.exact)
			})
			b.Run("graph", func(b *testing.B) {
				f := getFixture(b, n)
				if !f.x.HasGraph() {
					b.Skip("no graph below 50,000 memories")
				}
				latencies(b, f, func(q []float32) []Result {
					rs, err := f.x.Search(q, benchK, Filter{})
					if err != nil {
						b.Fatal(err)
					}
					return rs
				}, f.exact)
			})
		})
	}
}

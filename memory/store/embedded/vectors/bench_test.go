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

// fixture is one benchmark corpus: the index (inverted file from 50k
// memories), a plain float32 copy for the reference scan, queries and the
// exact answers.
type fixture struct {
	n     int
	x     *Index
	plain plainScan
	qs    [][]float32
	exact [][]Result // by query, k=benchK, no filter
	half  Filter     // a date filter passing about half the memories
	narr  Filter     // one passing about 2%
}

const benchK = 30 // the store's pool for k=10

var (
	fixtures   = map[int]*fixture{}
	fixturesMu sync.Mutex
)

// rssParts returns the process's resident anonymous and file-backed
// memory (RssAnon, RssFile of /proc/self/status), bytes; 0, 0 elsewhere.
// Mapped snapshot pages are file-backed: clean page cache, dropped under
// pressure, and on recent kernels mapped a whole large folio per fault, so
// RssFile overstates what a search really touched.
func rssParts() (anon, file int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "RssAnon:":
			anon = kb << 10
		case "RssFile:":
			file = kb << 10
		}
	}
	return anon, file
}

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

// approxFrom is where the benchmarks build the inverted file (whatever
// DefaultApproxAt says), so that both paths are measured at 100k.
const approxFrom = 50_000

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
	x, err := New(benchDims, Options{ApproxAt: -1})
	if err != nil {
		b.Fatal(err)
	}
	before := rss()
	// 90% exact, then the inverted file, then the last 10% into it
	var addWall, addCPU, lateWall, lateCPU, buildWall, buildCPU time.Duration
	var lateRows int
	var minDate, maxDate int64 = math.MaxInt64, math.MinInt64
	for done := 0; done < n; {
		if x.ivf == nil && n >= approxFrom && done >= n*9/10 {
			w, c0 := time.Now(), cpuTime()
			x.buildIVF()
			buildWall, buildCPU = time.Since(w), cpuTime()-c0
		}
		batch := c.memories(min(5000, n-done, max(1, n*9/10-done)), fmt.Sprintf("b%d-", done))
		late := x.ivf != nil
		w, c0 := time.Now(), cpuTime()
		for _, m := range batch {
			if err := x.Add(m.id, m.session, m.date, m.windows); err != nil {
				b.Fatal(err)
			}
			if late {
				lateRows += len(m.windows)
			}
			minDate, maxDate = min(minDate, m.date), max(maxDate, m.date)
		}
		if late {
			lateWall, lateCPU = lateWall+time.Since(w), lateCPU+cpuTime()-c0
		} else {
			addWall, addCPU = addWall+time.Since(w), addCPU+cpuTime()-c0
		}
		f.plain.add(batch)
		done += len(batch)
	}
	runtime.GC()
	debug.FreeOSMemory()
	grown := rss() - before - int64(len(f.plain.data))*4 - int64(len(f.plain.mem))*4 - int64(len(f.plain.ids))*40
	f.x = x
	// the threshold the filtered searches decide by (not reached again:
	// the inverted file is already there)
	x.opts.ApproxAt = approxFrom
	f.qs = c.queries(200)
	f.exact = make([][]Result, len(f.qs))
	for i, q := range f.qs {
		f.exact[i] = f.plain.search(q, benchK)
	}
	span := maxDate - minDate
	f.half = Filter{After: minDate + span/2}
	f.narr = Filter{After: minDate + span/2, Before: minDate + span/2 + span/50}
	st := x.Stats()
	early := st.Rows - lateRows
	b.Logf("n=%d memories, %d windows, dims %d, GOMAXPROCS %d", n, st.Rows, benchDims, runtime.GOMAXPROCS(0))
	b.Logf("  add, exact: %.1f µs/window wall, %.1f µs CPU (%d windows)", us(addWall, early), us(addCPU, early), early)
	if buildWall > 0 {
		b.Logf("  inverted file over %d windows (%d lists): %v wall, %v CPU", early, x.ivf.nlist, buildWall.Round(time.Millisecond), buildCPU.Round(time.Millisecond))
		b.Logf("  add into the inverted file: %.1f µs/window wall, %.1f µs CPU (%d windows)", us(lateWall, lateRows), us(lateCPU, lateRows), lateRows)
	}
	b.Logf("  RSS +%.0f MB (%.0f MB per million windows); held: vectors %.0f MB, codes %.0f MB, bookkeeping %.0f MB, inverted file %.0f MB",
		float64(grown)/1e6, float64(grown)/float64(st.Rows), float64(st.VectorBytes)/1e6, float64(st.CodeBytes)/1e6, float64(st.BookBytes)/1e6, float64(st.ApproxBytes)/1e6)
	fixtures[n] = f
	return f
}

func us(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(max(n, 1)) }

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
// p50/p95 wall time and mean process CPU time per search in ms, and, when
// want is set, recall@10 against it (want nil and exact set: against the
// exact filtered answer).
func latencies(b *testing.B, f *fixture, search func(q []float32) []Result, want func(qi int) []Result) {
	b.Helper()
	var ds []time.Duration
	var gots [][]Result
	b.ResetTimer()
	c0 := cpuTime()
	for i := range b.N {
		qi := i % len(f.qs)
		start := time.Now()
		got := search(f.qs[qi])
		ds = append(ds, time.Since(start))
		if i < len(f.qs) {
			gots = append(gots, got)
		}
	}
	cpu := cpuTime() - c0
	b.StopTimer()
	// recall against the reference, outside the measured time
	var rec float64
	nrec := 0
	for qi, got := range gots {
		if want != nil {
			w := want(qi)
			rec += recall(got[:min(10, len(got))], w[:min(10, len(w))])
			nrec++
		}
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms")
	if nrec > 0 {
		b.ReportMetric(rec/float64(nrec), "recall@10")
	}
}

// BenchmarkSearch: per corpus size, the plain float32 scan (the reference),
// the exact int8 scan and, from 50k memories, the inverted file; then both
// with a date filter passing half the memories, and with one passing 2%
// (which the approximate path hands to the exact scan). k=30, the store's pool
// for k=10; unit 512-d vectors with realistic structure (gen_test.go).
func BenchmarkSearch(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			search := func(b *testing.B, f *fixture, exact bool, flt Filter) func(q []float32) []Result {
				return func(q []float32) []Result {
					var rs []Result
					var err error
					if exact {
						rs, err = f.x.SearchExact(q, benchK, flt)
					} else {
						rs, err = f.x.Search(q, benchK, flt)
					}
					if err != nil {
						b.Fatal(err)
					}
					return rs
				}
			}
			b.Run("plain-f32", func(b *testing.B) {
				f := getFixture(b, n)
				latencies(b, f, func(q []float32) []Result { return f.plain.search(q, benchK) }, nil)
			})
			for _, exact := range []bool{true, false} {
				name := "exact"
				if !exact {
					name = "ivf"
				}
				for _, fl := range []string{"", "-date50", "-date2"} {
					b.Run(name+fl, func(b *testing.B) {
						f := getFixture(b, n)
						if !exact && !f.x.Approximate() {
							b.Skip("no inverted file below 50,000 memories")
						}
						flt := map[string]Filter{"": {}, "-date50": f.half, "-date2": f.narr}[fl]
						want := func(qi int) []Result { return f.exact[qi] }
						if fl != "" {
							// the exact filtered answer, from the exact path
							// (TestSearchExact shows it equals brute force)
							want = func(qi int) []Result {
								rs, _ := f.x.SearchExact(f.qs[qi], benchK, flt)
								return rs
							}
						}
						latencies(b, f, search(b, f, exact, flt), want)
					})
				}
			}
			// lists probed, as a share of them: recall and cost against
			// the exact scan's, which sets where the inverted file stops
			// paying (exactAbove)
			for _, div := range []int{64, 32, 16, 10, 7, 5, 3, 2} {
				b.Run(fmt.Sprintf("ivf-probe-1in%d", div), func(b *testing.B) {
					f := getFixture(b, n)
					if !f.x.Approximate() {
						b.Skip("no inverted file below 50,000 memories")
					}
					// fixed, so the searches' own checks neither run nor move it
					saved, savedOpt := f.x.ivf.getProbe(), f.x.opts.NProbe
					f.x.opts.NProbe = max(1, f.x.ivf.nlist/div)
					f.x.ivf.setProbe(f.x.opts.NProbe)
					defer func() { f.x.opts.NProbe = savedOpt }()
					defer func() { f.x.ivf.setProbe(saved) }()
					latencies(b, f, search(b, f, false, Filter{}), func(qi int) []Result { return f.exact[qi] })
				})
			}
		})
	}
}

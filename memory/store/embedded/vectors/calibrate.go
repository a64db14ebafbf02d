package vectors

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
)

// Calibration of the inverted file's probe count. How many lists a search
// must scan to find the true top ten depends on the data: embeddings of
// conversations form tight topics, whose neighbours share a list, while
// vectors without structure scatter a query's neighbours over many lists
// (probing 12 of 447 lists finds a third of them). So unless Options.NProbe
// fixes it, the index measures it on its own rows whenever the inverted
// file is built or loaded: for calibrationQueries sample queries it finds
// the exact top ten and, for each of them, the rank (by the query's
// similarity to the centroids) of the list that holds its best window; the
// probe count is the rank that covers calibrationTarget of them. A memory
// whose best window is probed gets its exact score, and every other memory
// at most its exact score, so it is then surely in the approximate top ten:
// the sample's recall@10 at that probe count is at least the target. When
// that takes more than half the lists, the inverted file does not pay and
// searches scan exactly (recall 1). The sample's probe count is saved in
// snapshots, so a load calibrates only a file that lacks it.
//
// The queries are not rows of the index (a row finds itself in the first
// list probed): each is a random row plus half of another, normalised,
// which lies between two topics as a question often does between what
// was said. Real questions can lie elsewhere (the benchmark's bag-of-words
// embedder makes a ten-word question a sparse vector unlike any mixture of
// rows: 51 probes of 894 lists found 0.705 of the true top ten at 1M), so
// the searches themselves keep the count honest: the first tuneMin
// unfiltered approximate searches after a build or load, and then every
// tuneEvery-th, run the exact scan instead, answer with it (a checked
// search is exact: the first searches after a load do not miss what the
// count has yet to learn) and record the ranks its true top ten needed;
// once tuneMin queries are recorded, the
// probe count is the rank covering calibrationTarget of the last tuneKeep
// of them (real queries only), never less than the sample's. A snapshot
// keeps the count the checks had set, and a load starts from it, but as
// where the searches begin, not as a floor: the first tuneMin checks after
// the load set it again, lower too. (Saved as the floor, as it once was,
// a few hard questions before one save would have raised the count for
// good: past half the lists, to the exact scan forever.) That costs
// tuneMin exact scans once and then one per tuneEvery searches (~3% of a
// plain float32 scan per search), and follows the queries the index is
// asked.

const (
	calibrationQueries = 128
	calibrationK       = 10
	// calibrationTarget is above the 0.98 promised, for the sample's noise
	// (1,280 neighbours).
	calibrationTarget = 0.99
)

// calibrate sets x.ivf's probe count from sample queries (see above).
func (x *Index) calibrate() {
	v := x.ivf
	if v == nil {
		return
	}
	if x.opts.NProbe > 0 || x.live == 0 {
		v.setProbe(x.defaultProbe())
		return
	}
	rng := rand.New(rand.NewPCG(x.opts.Seed^0xca11b, uint64(x.live)))
	liveRow := func() int32 {
		for {
			r := int32(rng.IntN(len(x.rows)))
			if x.rows[r].mem >= 0 {
				return r
			}
		}
	}
	var needs []int
	q := make([]float32, x.dims)
	for range calibrationQueries {
		ra, rb := liveRow(), liveRow()
		a, b := x.rowF32(ra), x.rowF32(rb)
		var n2 float64
		for d := range q {
			q[d] = a[d] + 0.5*b[d]
			n2 += float64(q[d]) * float64(q[d])
		}
		if n2 == 0 {
			continue
		}
		inv := float32(1 / math.Sqrt(n2))
		for d := range q {
			q[d] *= inv
		}
		// the two memories the query was made of are left out: they are
		// found in the first lists probed, as no question's answer is
		needs = x.needs(newQuantQuery(q, x.stride), q, needs, x.rows[ra].mem, x.rows[rb].mem)
	}
	if len(needs) == 0 {
		v.setFloor(DefaultNProbe)
		return
	}
	v.setFloor(probeFor(needs, v.nlist))
}

// needs appends, for each of q's exact top calibrationK memories (but the
// skipped ones), the rank (1 = most similar centroid) of the list holding
// its best window: the probe count that would surely find it.
func (x *Index) needs(qq *quantQuery, q []float32, out []int, skip ...int32) []int {
	all, _ := x.compile(Filter{})
	return x.needsOf(qq, q, x.scan(qq, q, min(calibrationK+len(skip), x.Len()), &all), out, skip...)
}

// needsOf is needs for tk, q's exact top memories, best first.
func (x *Index) needsOf(qq *quantQuery, q []float32, tk *topK, out []int, skip ...int32) []int {
	v := x.ivf
	order := v.byNearness(x, qq)
	rank := make([]int32, v.nlist)
	for i, l := range order {
		rank[l] = int32(i)
	}
	kept := 0
	for _, slot := range tk.slots {
		if slices.Contains(skip, slot) || kept == calibrationK {
			continue
		}
		kept++
		best, bestRow := float32(math.Inf(-1)), int32(-1)
		for r := x.mems[slot].first; r >= 0; r = x.rows[r].next {
			if s := dotF32(q, x.rowF32(r)); s > best {
				best, bestRow = s, r
			}
		}
		if bestRow >= 0 && v.of[bestRow] >= 0 {
			out = append(out, int(rank[v.of[bestRow]])+1)
		}
	}
	return out
}

// probeFor is the rank covering calibrationTarget of needs; past half the
// lists, all of them. Reading half the lists costs about half the exact
// scan since each list's rows lie in sequence (0.49x at 1M memories,
// BenchmarkSearch's ivf-probe-1in2; 0.8-0.9x when they were gathered from
// the row chunks), but a count past half comes from queries whose
// neighbours scatter over the lists, where a few dozen checked queries
// estimate the 99th percentile of their needs poorly: with the switch at
// three quarters, TestApproxTunesToQueries's checked queries tuned it to
// 62 of 126 lists, which found 0.964 of the top ten, where the needs of
// 100 of its queries put the 99th percentile at 97. The exact scan
// misses nothing.
func probeFor(needs []int, nlist int) int {
	s := slices.Clone(needs)
	slices.Sort(s)
	p := s[int(math.Ceil(calibrationTarget*float64(len(s))))-1]
	if p > nlist/2 {
		p = nlist
	}
	return min(max(1, p), nlist)
}

const (
	// tuneEvery is how many unfiltered approximate searches go by between
	// two that are checked against the exact scan.
	tuneEvery = 32
	// tuneMin is how many checked queries replace the sample's estimate;
	// tuneKeep, how many of the latest are kept.
	tuneMin  = 16
	tuneKeep = 200
)

// tuner records what checked searches needed.
type tuner struct {
	searches atomic.Uint64
	mu       sync.Mutex
	needs    []int // per checked query, calibrationK entries, oldest first
	queries  int
	floor    int // the probe count from the sample (or the snapshot)
}

// checks counts an unfiltered approximate search and says whether it is
// checked against the exact scan: each of the first tuneMin, so that the
// count follows real queries from the first few on, then one in
// tuneEvery. Searches run concurrently.
func (v *ivf) checks() bool {
	n := v.tune.searches.Add(1)
	return n <= tuneMin || n%tuneEvery == 0
}

// observe records what a checked search needed: exact is q's exact top
// memories, the search's answer (checked). A search is checked when
// checks says so, and every search is while the checks have sent searches
// to the exact scan: then the check costs almost nothing (the scan is
// done), so the count comes back from the exact scan as soon as the last
// tuneKeep queries say it may, rather than after tuneKeep·tuneEvery
// searches.
func (x *Index) observe(qq *quantQuery, q []float32, exact *topK) {
	v := x.ivf
	needs := x.needsOf(qq, q, exact, nil)
	v.tune.mu.Lock()
	defer v.tune.mu.Unlock()
	v.tune.needs = append(v.tune.needs, needs...)
	v.tune.queries++
	if n := len(v.tune.needs) - tuneKeep*calibrationK; n > 0 {
		v.tune.needs = append(v.tune.needs[:0], v.tune.needs[n:]...)
	}
	if v.tune.queries >= tuneMin && len(v.tune.needs) > 0 {
		// only ever more than the sample asked for: a few queries'
		// needs are a noisy estimate of a high quantile
		v.setProbe(max(v.tune.floor, probeFor(v.tune.needs, v.nlist)))
	}
}

func (v *ivf) getProbe() int { return int(v.probe.Load()) }

// stats are the probe count, how many searches were checked, and the
// share of the last tuneKeep checked searches' neighbours that count
// finds (1 at the exact scan or with no check yet).
func (v *ivf) stats() (probe, checked int, found float64) {
	v.tune.mu.Lock()
	defer v.tune.mu.Unlock()
	probe, found = v.getProbe(), 1
	if len(v.tune.needs) > 0 && probe < v.nlist {
		n := 0
		for _, need := range v.tune.needs {
			if need <= probe {
				n++
			}
		}
		found = float64(n) / float64(len(v.tune.needs))
	}
	return probe, v.tune.queries, found
}

// probes are the sample's probe count (the floor) and the one searches
// use now, for a snapshot.
func (v *ivf) probes() (floor, probe int) {
	v.tune.mu.Lock()
	defer v.tune.mu.Unlock()
	return v.tune.floor, v.getProbe()
}

func (v *ivf) setProbe(p int) { v.probe.Store(int32(min(max(1, p), v.nlist))) }

// setFloor sets the probe count and makes it the least tuning may set.
func (v *ivf) setFloor(p int) {
	v.setProbe(p)
	v.tune.mu.Lock()
	v.tune.floor = v.getProbe()
	v.tune.mu.Unlock()
}

// defaultProbe is the probe count a caller fixed, or DefaultNProbe.
func (x *Index) defaultProbe() int {
	if x.opts.NProbe > 0 {
		return x.opts.NProbe
	}
	return DefaultNProbe
}

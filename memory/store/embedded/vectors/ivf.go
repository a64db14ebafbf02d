package vectors

import (
	"cmp"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// ivf is the approximate index: an inverted file over the Index's rows.
// Spherical k-means on a sample gives nlist centroids (√rows of them);
// every row sits in the list of its most similar centroid. A search scores
// the centroids, scans the rows of the nprobe best lists with the exact
// scan's machinery (int8 kernel, proven intervals, float32 re-score), so
// within the probed lists the answer is exact; what it can miss is a row in
// a list it did not probe.
//
// Why not a graph: an HNSW graph (this package's first version, in the
// branch history) reached recall@10 0.99 at 300k windows and saturated at
// 0.955 at 1.4M on the benchmark's clustered vectors, whatever its beam:
// embeddings of a topic form a flat blob (every member within ±0.01 of the
// same score) whose top ten a greedy walk does not reliably reach. The
// inverted file scans the blob exhaustively: recall@10 1.000 at 300k
// probing 8 lists. It is also far cheaper to keep: an insert scores the
// centroids (~20 µs) where the graph took ~400 µs of CPU, a delete is O(1)
// where the graph repaired neighbour lists, and a build is a k-means on a
// sample plus one pass of assignment (seconds where the graph took
// minutes per million windows). Its cost is the scan of ~nprobe·√rows
// rows per search.
type ivf struct {
	nlist  int
	cent   []float32 // nlist × dims, unit length
	codes  []int8    // nlist × stride: the centroids quantised
	cscale []float32
	csum   []int32
	ptrs   []*int8 // into codes, for the kernel
	lists  [][]int32
	// each list's rows as a search reads them, in the list's order: their
	// int8 codes one after the other (stride each) and what scoring a
	// row needs, so probing reads memory in sequence instead of
	// gathering rows from wherever they lie (at 1M memories, probing 267
	// of 894 lists, 0.6x the CPU of reading them in row order through a
	// bitset; probing 100, 0.4x that of gathering them row by row)
	lcodes  [][]int8
	lmeta   [][]listRow
	m       *mapping   // the snapshot lcodes may lie in, kept mapped while used
	own     []*mapping // or by list, the room off the heap its codes lie in
	of      []int32    // by row: its list, -1 for none
	pos     []int32    // by row: its place in that list
	trained int        // live rows when trained
	// probe is how many lists a search scans; tune holds what searches
	// observed of it (calibrate.go)
	probe atomic.Int32
	tune  tuner
}

// nlistFor is the number of lists for n rows: √n, at least 16.
func nlistFor(n int) int {
	return max(16, int(math.Sqrt(float64(n))))
}

func (v *ivf) grow(rows int) {
	for len(v.of) < rows {
		v.of, v.pos = append(v.of, -1), append(v.pos, -1)
	}
}

// setCentroids installs cent (unit rows) and quantises them.
func (v *ivf) setCentroids(x *Index, cent []float32) {
	v.nlist = len(cent) / x.dims
	v.cent = cent
	v.codes = make([]int8, v.nlist*x.stride)
	v.cscale = make([]float32, v.nlist)
	v.csum = make([]int32, v.nlist)
	v.ptrs = make([]*int8, v.nlist)
	for i := range v.nlist {
		c := v.codes[i*x.stride : (i+1)*x.stride]
		v.cscale[i], _, _, v.csum[i] = quantize(cent[i*x.dims:(i+1)*x.dims], c)
		v.ptrs[i] = &c[0]
	}
}

// scores sets out[i] to the similarity of qq with centroid i.
func (v *ivf) scores(x *Index, qq *quantQuery, raw []int32, out []float64) {
	k := i8Kernel
	dotsI8(k, qq, x.stride, v.ptrs, raw)
	for i, d := range raw[:v.nlist] {
		if k == kernelVNNI {
			d -= v.csum[i] << 7
		}
		out[i] = float64(d) * qq.scale * float64(v.cscale[i])
	}
}

// byNearness is the lists, the one whose centroid is most similar to qq
// first.
func (v *ivf) byNearness(x *Index, qq *quantQuery) []int32 {
	raw, sims := make([]int32, v.nlist), make([]float64, v.nlist)
	v.scores(x, qq, raw, sims)
	order := make([]int32, v.nlist)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(sims[b], sims[a]) })
	return order
}

// nearest is the list whose centroid is most similar to row r.
func (v *ivf) nearest(x *Index, r int32, qq *quantQuery, raw []int32, sims []float64) int32 {
	codesQuery(x.rowI8(r), x.rows[r].scale, qq)
	v.scores(x, qq, raw, sims)
	best := 0
	for i, s := range sims[:v.nlist] {
		if s > sims[best] {
			best = i
		}
	}
	return int32(best)
}

// listRow is what scoring a row of a list needs (a copy of rowInfo's).
type listRow struct {
	mem                int32
	sum                int32
	scale, resid, norm float32
}

// initLists makes nlist empty lists, with room for sizes[l] rows each
// when sizes is given (a build or a load knows them: no regrowth). With
// mapped (a snapshot's lists' codes, list after list), each list's codes
// are its part of mapped, whole already (file then leaves them), its
// capacity ending where the next list's begin: an append past it copies
// the list to the heap, a remove writes a private copy of the page.
//
// Without mapped, each list's codes get their room off the Go heap, as the
// rows' chunks do (anonMapping), a mapping per list so that the room a
// list outgrows is given back when it moves: at 1M memories the lists'
// codes are half a gigabyte per million windows, which on the heap the
// collector's pacing would double.
func (v *ivf) initLists(nlist, stride int, sizes []int, mapped []int8) {
	v.lists = make([][]int32, nlist)
	v.lcodes = make([][]int8, nlist)
	v.lmeta = make([][]listRow, nlist)
	v.own = make([]*mapping, nlist)
	off := 0
	for l, n := range sizes {
		v.lists[l] = make([]int32, 0, n)
		v.lmeta[l] = make([]listRow, 0, n)
		if mapped != nil {
			end := off + n*stride
			v.lcodes[l] = mapped[off:end:end]
			off = end
		} else {
			v.lcodes[l] = v.room(int32(l), nil, n*stride)
		}
	}
}

// appendCodes appends a row's codes to list l's, which move to room half
// as large again when they outgrow theirs.
func (v *ivf) appendCodes(l int32, c []int8) []int8 {
	codes := v.lcodes[l]
	if len(codes)+len(c) > cap(codes) {
		codes = v.room(l, codes, max(cap(codes)+cap(codes)/2, 64*len(c)))
	}
	return append(codes, c...)
}

// room gives list l's codes (whole, moved there) room for n bytes off the
// heap, on it where the system has no anonymous mappings. The room they
// leave, if it was the list's own, is unmapped at once: safe because the
// callers (a build, a load, Add) have the index to themselves.
func (v *ivf) room(l int32, codes []int8, n int) []int8 {
	var m *mapping
	if n > 0 { // an empty list needs no room (and mmap refuses none)
		m = anonMapping(n)
	}
	if m == nil {
		codes = append(make([]int8, 0, n), codes...)
		v.own[l].release()
		v.own[l] = nil
		return codes
	}
	moved := sliceOf[int8](m.data)[:len(codes)]
	copy(moved, codes)
	v.own[l].release()
	v.own[l] = m
	return moved
}

// release unmaps the room off the heap v's lists lie in, when v is
// replaced or dropped (under the caller's exclusive access, as Add); a
// snapshot's mapping, which the rows' chunks may share, is left to the
// index's Release or the collector.
func (v *ivf) release() {
	if v == nil {
		return
	}
	for _, m := range v.own {
		m.release()
	}
	v.lcodes, v.own = nil, nil
}

// put files row r (its codes and scalars already set) under list l.
func (v *ivf) put(x *Index, r, l int32) { v.file(x, r, l, true) }

// file is put; without codes, the list's copy of r's codes is already in
// place (a load from a snapshot that has them).
func (v *ivf) file(x *Index, r, l int32, codes bool) {
	v.of[r], v.pos[r] = l, int32(len(v.lists[l]))
	v.lists[l] = append(v.lists[l], r)
	if codes {
		v.lcodes[l] = v.appendCodes(l, x.rowI8(r))
	}
	ri := &x.rows[r]
	v.lmeta[l] = append(v.lmeta[l], listRow{mem: ri.mem, sum: ri.sum, scale: ri.scale, resid: ri.resid, norm: ri.norm})
}

// add files a new row.
func (v *ivf) add(x *Index, r int32) {
	v.grow(len(x.rows))
	var qq quantQuery
	raw, sims := make([]int32, v.nlist), make([]float64, v.nlist)
	v.put(x, r, v.nearest(x, r, &qq, raw, sims))
}

// remove takes row r out of its list (the list's last row takes its
// place).
func (v *ivf) remove(r int32, stride int) {
	l := v.of[r]
	if l < 0 {
		return
	}
	list, codes, meta := v.lists[l], v.lcodes[l], v.lmeta[l]
	at, end := int(v.pos[r]), len(list)-1
	last := list[end]
	list[at] = last
	copy(codes[at*stride:(at+1)*stride], codes[end*stride:])
	meta[at] = meta[end]
	v.pos[last] = int32(at)
	v.lists[l], v.lcodes[l], v.lmeta[l] = list[:end], codes[:end*stride], meta[:end]
	v.of[r], v.pos[r] = -1, -1
}

// parallel runs f(w, from, to) over [0, n) split among the cores.
func parallel(n int, f func(from, to int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/1024))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { f(n*w/workers, n*(w+1)/workers) })
	}
	wg.Wait()
}

// buildIVF trains the centroids on a sample of the live rows (8 rounds of
// spherical k-means, assignments by the int8 kernel) and files every row.
func (x *Index) buildIVF() {
	live := make([]int32, 0, x.live)
	for r := range x.rows {
		if x.rows[r].mem >= 0 {
			live = append(live, int32(r))
		}
	}
	v := &ivf{trained: len(live)}
	nlist := min(nlistFor(len(live)), len(live))
	rng := rand.New(rand.NewPCG(x.opts.Seed, uint64(len(live))))
	sample := slices.Clone(live)
	rng.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
	sample = sample[:min(len(sample), 48*nlist)]

	v.setCentroids(x, x.trainCentroids(v, sample, nlist, rng))
	v.grow(len(x.rows))
	nearest := make([]int32, len(live))
	v.assign(x, live, nearest, nlist)
	sizes := make([]int, nlist)
	for _, l := range nearest {
		sizes[l]++
	}
	v.initLists(nlist, x.stride, sizes, nil)
	for j, r := range live {
		v.put(x, r, nearest[j])
	}
	x.ivf.release() // the lists trained before, if any
	x.ivf = v
	x.calibrate()
}

// trainCentroids runs buildIVF's 8 rounds of spherical k-means on the
// sample rows, from the first nlist of them: each round sets v's
// centroids, assigns the sample to them and moves them to the means. It
// returns the centroids of the last round.
func (x *Index) trainCentroids(v *ivf, sample []int32, nlist int, rng *rand.Rand) []float32 {
	dims := x.dims
	cent := make([]float32, nlist*dims)
	for i := range nlist {
		copy(cent[i*dims:], x.rowF32(sample[i]))
	}
	assign := make([]int32, len(sample))
	for round := 0; round < 8; round++ {
		v.setCentroids(x, cent)
		v.assign(x, sample, assign, nlist)
		cent = x.meanCentroids(sample, assign, nlist, rng)
	}
	return cent
}

// meanCentroids are the nlist centroids of the sample rows as assigned
// (assign[j] the list of sample[j]): each the unit-length mean of its
// rows; an empty cluster restarts on a random sample row.
func (x *Index) meanCentroids(sample, assign []int32, nlist int, rng *rand.Rand) []float32 {
	dims := x.dims
	sums := make([]float64, nlist*dims)
	count := make([]int, nlist)
	for j, r := range sample {
		a := int(assign[j])
		count[a]++
		s := sums[a*dims : (a+1)*dims]
		for d, f := range x.rowF32(r) {
			s[d] += float64(f)
		}
	}
	cent := make([]float32, nlist*dims)
	for i := range nlist {
		c := cent[i*dims : (i+1)*dims]
		if count[i] == 0 {
			// an empty cluster restarts on a random sample row
			copy(c, x.rowF32(sample[rng.IntN(len(sample))]))
			continue
		}
		var n2 float64
		for _, s := range sums[i*dims : (i+1)*dims] {
			n2 += s * s
		}
		inv := 1 / math.Sqrt(max(n2, 1e-300))
		for d, s := range sums[i*dims : (i+1)*dims] {
			c[d] = float32(s * inv)
		}
	}
	return cent
}

// assign sets out[j] to the list of the centroid nearest rows[j], among
// v's nlist, split among the cores.
func (v *ivf) assign(x *Index, rows, out []int32, nlist int) {
	parallel(len(rows), func(from, to int) {
		var qq quantQuery
		raw, sims := make([]int32, nlist), make([]float64, nlist)
		for j := from; j < to; j++ {
			out[j] = v.nearest(x, rows[j], &qq, raw, sims)
		}
	})
}

// searchIVF scans the lists of the centroids most similar to q (more of
// them when a filter lets only a share of the rows through) and re-scores;
// false when it found fewer than k memories (the caller then scans all).
func (x *Index) searchIVF(qq *quantQuery, q []float32, k int, f *filt) (*topK, bool) {
	v := x.ivf
	probe := v.getProbe()
	if f.active {
		if pass := x.estimatePassing(f); pass > 0 {
			probe = int(math.Ceil(float64(probe) * float64(x.live) / float64(pass)))
		}
	}
	probe = min(probe, v.nlist)
	order := v.byNearness(x, qq)
	return x.scanLists(qq, q, k, f, order[:probe])
}

// scanLists is the exact scan of the given lists' rows: on all cores
// past parallelRows rows (each goroutine a run of whole lists), merged as
// scan merges.
func (x *Index) scanLists(qq *quantQuery, q []float32, k int, f *filt, lists []int32) (*topK, bool) {
	v := x.ivf
	rows := 0
	for _, l := range lists {
		rows += len(v.lists[l])
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), (rows+parallelRows-1)/parallelRows))
	states := make([]scanState, workers)
	for w := range states {
		states[w].low.init(k)
	}
	if workers == 1 {
		for _, l := range lists {
			x.scanList(qq, f, l, &states[0])
		}
	} else {
		var wg sync.WaitGroup
		from, acc := 0, 0
		for w := range states {
			to := from
			for to < len(lists) && (w == workers-1 || acc < rows*(w+1)/workers) {
				acc += len(v.lists[lists[to]])
				to++
			}
			st, part := &states[w], lists[from:to]
			wg.Go(func() {
				for _, l := range part {
					x.scanList(qq, f, l, st)
				}
			})
			from = to
		}
		wg.Wait()
	}
	tk := x.merge(q, k, states)
	return tk, tk.full()
}

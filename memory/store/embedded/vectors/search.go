package vectors

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Filter restricts a search to one session and a session-date range; the
// zero value matches everything.
type Filter struct {
	// Session keeps only memories of this session ("" for any);
	// NotSession leaves out those of this one ("" for none).
	Session, NotSession string
	// After and Before bound the session date, inclusive, in Unix
	// nanoseconds; 0 leaves that side open (as the embedded store did).
	After, Before int64
}

// Result is one memory found by Search: its id and its best window's dot
// product with the query (computed in float32, as a plain scan would).
type Result struct {
	ID    string
	Score float64
}

// SessionDirect is the largest session, in windows, that a session filter
// scores directly in float32; larger ones go through the filtered scan.
const sessionDirect = 8192

// scanBlock is how many rows the scan hands the kernel at a time.
const scanBlock = 256

// parallelRows is the number of rows each scanning goroutine gets at least.
const parallelRows = 32768

// Search returns the k memories whose best window has the largest dot
// product with q among those f admits, best first; ties go to the smaller
// id. Below ApproxAt (and for filters that leave fewer rows than it) the
// result is exactly that of a float32 scan; above, it is approximate (see
// README.md for its recall). An error means q is unusable (wrong
// dimension, non-finite values).
func (x *Index) Search(q []float32, k int, f Filter) ([]Result, error) {
	return x.search(q, k, f, true)
}

// SearchExact is Search without the inverted file: always the exact
// result, at the cost of a full scan. Benchmarks and tests compare the two.
func (x *Index) SearchExact(q []float32, k int, f Filter) ([]Result, error) {
	return x.search(q, k, f, false)
}

func (x *Index) search(q []float32, k int, f Filter, approx bool) ([]Result, error) {
	if len(q) != x.dims {
		return nil, fmt.Errorf("%w: the query vector has %d dimensions; the index holds %d", ErrInvalid, len(q), x.dims)
	}
	for i, v := range q {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("%w: query vector value %d is %v, not a finite number", ErrInvalid, i, v)
		}
	}
	if k <= 0 || x.live == 0 {
		return nil, nil
	}
	k = min(k, x.Len())
	cf, ok := x.compile(f)
	if !ok {
		return nil, nil // an unknown session matches nothing
	}
	if cf.sess >= 0 && x.sess.rows[cf.sess] <= sessionDirect {
		return x.results(x.searchSession(q, k, &cf)), nil
	}
	qq := newQuantQuery(q, x.stride)
	tuned := approx && x.ivf != nil && !cf.active && x.opts.NProbe == 0
	if v := x.ivf; approx && v != nil && int(v.getProbe()) < v.nlist && (!cf.active || x.estimatePassing(&cf) >= x.opts.ApproxAt) {
		if tuned && v.checks() {
			// a checked search runs the exact scan for its check, so
			// that scan is its answer (observe)
			return x.checked(qq, q, k, &cf), nil
		}
		if tk, ok := x.searchIVF(qq, q, k, &cf); ok {
			return x.results(tk), nil
		}
	}
	if tuned {
		// the checks sent the search to the exact scan (or the lists
		// held too few memories): its answer checks the probe count
		return x.checked(qq, q, k, &cf), nil
	}
	return x.results(x.scan(qq, q, k, &cf)), nil
}

// checked is the exact scan's answer for q, which checks the probe count
// (observe) on the way.
func (x *Index) checked(qq *quantQuery, q []float32, k int, f *filt) []Result {
	tk := x.scan(qq, q, max(k, min(calibrationK, x.Len())), f)
	x.observe(qq, q, tk)
	out := x.results(tk)
	return out[:min(k, len(out))]
}

// filt is a compiled Filter.
type filt struct {
	active        bool
	sess          int32 // -1: any
	not           int32 // a session left out; -1: none
	after, before int64
}

func (x *Index) compile(f Filter) (filt, bool) {
	cf := filt{sess: -1, not: -1, after: math.MinInt64, before: math.MaxInt64}
	if f.Session != "" {
		o, ok := x.sess.ord[f.Session]
		if !ok {
			return cf, false
		}
		cf.sess, cf.active = o, true
	}
	if o, ok := x.sess.ord[f.NotSession]; ok && f.NotSession != "" {
		switch {
		case o == cf.sess:
			return cf, false // that session, without it: nothing
		case cf.sess < 0: // (within another session, nothing to leave out)
			cf.not, cf.active = o, true
		}
	}
	if f.After != 0 {
		cf.after, cf.active = f.After, true
	}
	if f.Before != 0 {
		cf.before, cf.active = f.Before, true
	}
	return cf, true
}

func (f *filt) pass(ri *rowInfo) bool {
	return (f.sess < 0 || ri.sess == f.sess) && ri.sess != f.not && ri.date >= f.after && ri.date <= f.before
}

// estimatePassing estimates how many live rows pass f, from a sample of
// rows spread over the index.
func (x *Index) estimatePassing(f *filt) int {
	if f.sess >= 0 && f.after == math.MinInt64 && f.before == math.MaxInt64 {
		return int(x.sess.rows[f.sess])
	}
	const samples = 4096
	step := max(1, len(x.rows)/samples)
	live, pass := 0, 0
	for r := 0; r < len(x.rows); r += step {
		ri := &x.rows[r]
		if ri.mem < 0 {
			continue
		}
		live++
		if f.pass(ri) {
			pass++
		}
	}
	if live == 0 {
		return 0
	}
	return int(int64(pass) * int64(x.live) / int64(live))
}

// searchSession scores a small session's windows directly in float32.
func (x *Index) searchSession(q []float32, k int, f *filt) *topK {
	tk := newTopK(x, k)
	for _, slot := range x.sess.members[f.sess] {
		m := &x.mems[slot]
		if m.date < f.after || m.date > f.before {
			continue
		}
		best := math.Inf(-1)
		for r := m.first; r >= 0; r = x.rows[r].next {
			best = max(best, float64(dotF32(q, x.rowF32(r))))
		}
		tk.offer(slot, best)
	}
	return tk
}

// cand is a row whose score interval reaches the running threshold.
type cand struct {
	row int32
	hi  float64 // upper end of its score interval
}

// scanState is one scanning goroutine's output: the rows that may belong
// to the top k, and the k memories with the best proven lower bounds.
type scanState struct {
	low   lowK
	cands []cand
}

// scan is the exact search: the int8 kernel gives every row an interval
// [lo, hi] that surely holds its float32 score. The k-th best lower bound
// over distinct memories (τ) is a floor under the k-th best exact memory
// score, so rows with hi < τ cannot matter; the rest are re-scored in float32
// in decreasing order of hi, stopping when hi falls below the k-th best
// exact score found. The result is the float32 scan's, however coarse the
// codes.
func (x *Index) scan(qq *quantQuery, q []float32, k int, f *filt) *topK {
	n := len(x.rows)
	workers := min(runtime.GOMAXPROCS(0), (n+parallelRows-1)/parallelRows)
	states := make([]scanState, max(1, workers))
	if workers <= 1 {
		states[0].low.init(k)
		x.scanRange(qq, f, 0, n, &states[0])
	} else {
		var wg sync.WaitGroup
		per := (n/workers + scanBlock - 1) / scanBlock * scanBlock
		for w := range states {
			from, to := w*per, min(n, (w+1)*per)
			if w == workers-1 {
				to = n
			}
			st := &states[w]
			st.low.init(k)
			wg.Go(func() { x.scanRange(qq, f, from, to, st) })
		}
		wg.Wait()
	}

	return x.merge(q, k, states)
}

// merge finishes a scan, split among workers or not: τ, the k-th best lower
// bound over distinct memories, all workers together, and the candidates
// that can still reach it re-scored in float32, best bound first.
func (x *Index) merge(q []float32, k int, states []scanState) *topK {
	// τ: the k-th best lower bound over distinct memories, all workers
	// together.
	tau := math.Inf(-1)
	if len(states) == 1 {
		tau = states[0].low.min
	} else {
		best := map[int32]float64{}
		for i := range states {
			l := &states[i].low
			for j, m := range l.mem {
				if v, ok := best[m]; !ok || l.lo[j] > v {
					best[m] = l.lo[j]
				}
			}
		}
		if len(best) >= k {
			los := make([]float64, 0, len(best))
			for _, v := range best {
				los = append(los, v)
			}
			slices.Sort(los)
			tau = los[len(los)-k]
		}
	}
	var cands []cand
	if len(states) == 1 {
		cands = states[0].cands[:0] // filtered in place
	}
	for i := range states {
		for _, c := range states[i].cands {
			if c.hi >= tau {
				cands = append(cands, c)
			}
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(b.hi, a.hi) })
	tk := newTopK(x, k)
	for _, c := range cands {
		if tk.full() && c.hi < tk.worst() {
			break
		}
		tk.offer(x.rows[c.row].mem, float64(dotF32(q, x.rowF32(c.row))))
	}
	return tk
}

// scanRange runs the int8 kernel over rows [from, to); from is a multiple
// of scanBlock, so no block straddles two chunks.
func (x *Index) scanRange(qq *quantQuery, f *filt, from, to int, st *scanState) {
	var rows [scanBlock]int32
	var ptrs [scanBlock]*int8
	var out [scanBlock]int32
	kern := i8Kernel
	var corr int32 // the VNNI kernel's offset: subtract 128·sum(codes)
	if kern == kernelVNNI {
		corr = 128
	}
	dates := f.after != math.MinInt64 || f.before != math.MaxInt64
	for start := from; start < to; start += scanBlock {
		end := min(start+scanBlock, to)
		if b := start / scanBlock; dates && (b >= len(x.zmin) || x.zmax[b] < f.after || x.zmin[b] > f.before) {
			continue // no live row of this block is in the date range
		}
		c := x.chunks[start>>chunkShift]
		codes := c.i8[:((end-1)&chunkMask+1)*x.stride] // bounds every row of the block
		n := 0
		for r := start; r < end; r++ {
			ri := &x.rows[r]
			if ri.mem < 0 || (f.active && !f.pass(ri)) {
				continue
			}
			rows[n] = int32(r)
			ptrs[n] = &codes[(r&chunkMask)*x.stride]
			n++
		}
		if n == 0 {
			continue
		}
		dotsI8(kern, qq, x.stride, ptrs[:n], out[:n])
		for j, r := range rows[:n] {
			ri := &x.rows[r]
			a := float64(out[j]-corr*ri.sum) * qq.scale * float64(ri.scale)
			e := (qq.norm*float64(ri.resid) + qq.err*float64(ri.norm) + qq.slack*float64(ri.norm+ri.resid)) * (1 + 1e-9)
			hi := a + e
			if hi < st.low.min {
				continue
			}
			st.cands = append(st.cands, cand{row: r, hi: hi})
			if lo := a - e; lo > st.low.min {
				st.low.offer(ri.mem, lo)
			}
		}
	}
}

// scanList is scanRange over inverted list l: its codes and scalars lie
// in sequence (ivf.lcodes, lmeta); only a filter reads the rows'
// bookkeeping.
func (x *Index) scanList(qq *quantQuery, f *filt, l int32, st *scanState) {
	var at [scanBlock]int32
	var ptrs [scanBlock]*int8
	var out [scanBlock]int32
	kern := i8Kernel
	var corr int32
	if kern == kernelVNNI {
		corr = 128
	}
	v := x.ivf
	list, codes, meta := v.lists[l], v.lcodes[l], v.lmeta[l]
	for start := 0; start < len(list); start += scanBlock {
		end := min(start+scanBlock, len(list))
		n := 0
		for j := start; j < end; j++ {
			if f.active && !f.pass(&x.rows[list[j]]) {
				continue
			}
			at[n] = int32(j)
			ptrs[n] = &codes[j*x.stride]
			n++
		}
		if n == 0 {
			continue
		}
		dotsI8(kern, qq, x.stride, ptrs[:n], out[:n])
		for i, j := range at[:n] {
			m := &meta[j]
			a := float64(out[i]-corr*m.sum) * qq.scale * float64(m.scale)
			e := (qq.norm*float64(m.resid) + qq.err*float64(m.norm) + qq.slack*float64(m.norm+m.resid)) * (1 + 1e-9)
			hi := a + e
			if hi < st.low.min {
				continue
			}
			st.cands = append(st.cands, cand{row: list[j], hi: hi})
			if lo := a - e; lo > st.low.min {
				st.low.offer(m.mem, lo)
			}
		}
	}
}

// lowK keeps the k best lower bounds of distinct memories in a min-heap;
// min is the k-th best, -Inf until there are k. A memory already kept is
// found by a linear search for small k, by a map past 64.
type lowK struct {
	k   int
	mem []int32
	lo  []float64
	pos map[int32]int
	min float64
}

func (l *lowK) init(k int) {
	l.k, l.min = k, math.Inf(-1)
	l.mem, l.lo = make([]int32, 0, min(k, 1024)), make([]float64, 0, min(k, 1024))
	if k > 64 {
		l.pos = map[int32]int{}
	}
}

func (l *lowK) offer(m int32, lo float64) {
	i := -1
	if l.pos == nil {
		i = slices.Index(l.mem, m)
	} else if j, ok := l.pos[m]; ok {
		i = j
	}
	switch {
	case i >= 0:
		if lo <= l.lo[i] {
			return
		}
		l.lo[i] = lo
		l.down(i)
	case len(l.mem) < l.k:
		l.mem, l.lo = append(l.mem, m), append(l.lo, lo)
		l.up(len(l.mem) - 1)
	default:
		if l.pos != nil {
			delete(l.pos, l.mem[0])
		}
		l.mem[0], l.lo[0] = m, lo
		l.set(0)
		l.down(0)
	}
	if len(l.mem) == l.k {
		l.min = l.lo[0]
	}
}

func (l *lowK) set(i int) {
	if l.pos != nil {
		l.pos[l.mem[i]] = i
	}
}

func (l *lowK) swap(i, j int) {
	l.mem[i], l.mem[j] = l.mem[j], l.mem[i]
	l.lo[i], l.lo[j] = l.lo[j], l.lo[i]
	l.set(i)
	l.set(j)
}

func (l *lowK) up(i int) {
	l.set(i)
	for i > 0 {
		p := (i - 1) / 2
		if l.lo[p] <= l.lo[i] {
			return
		}
		l.swap(i, p)
		i = p
	}
}

func (l *lowK) down(i int) {
	for {
		a, b, m := 2*i+1, 2*i+2, i
		if a < len(l.lo) && l.lo[a] < l.lo[m] {
			m = a
		}
		if b < len(l.lo) && l.lo[b] < l.lo[m] {
			m = b
		}
		if m == i {
			return
		}
		l.swap(i, m)
		i = m
	}
}

// topK keeps the k best memories by exact score, best first (ties: smaller
// id first), each memory once with its best score so far. For small k (the
// store asks for a pool of 30 to 300) a linear search finds a memory
// already kept; past 64 a map does.
type topK struct {
	x     *Index
	k     int
	slots []int32
	score []float64
	pos   map[int32]int // slot -> index, when k > 64
}

func newTopK(x *Index, k int) *topK {
	t := &topK{x: x, k: k, slots: make([]int32, 0, min(k, 1024)+1), score: make([]float64, 0, min(k, 1024)+1)}
	if k > 64 {
		t.pos = map[int32]int{}
	}
	return t
}

func (t *topK) index(slot int32) int {
	if t.pos == nil {
		return slices.Index(t.slots, slot)
	}
	if i, ok := t.pos[slot]; ok {
		return i
	}
	return -1
}

func (t *topK) full() bool { return len(t.slots) >= t.k }

// worst is the k-th best score (meaningful when full).
func (t *topK) worst() float64 { return t.score[len(t.score)-1] }

// before reports whether (s1, slot1) ranks before (s2, slot2).
func (t *topK) before(s1 float64, slot1 int32, s2 float64, slot2 int32) bool {
	if s1 != s2 {
		return s1 > s2
	}
	return t.x.mems[slot1].id < t.x.mems[slot2].id
}

func (t *topK) offer(slot int32, s float64) {
	i := t.index(slot)
	switch {
	case i >= 0:
		if s <= t.score[i] {
			return
		}
	case len(t.slots) < t.k:
		t.slots, t.score = append(t.slots, slot), append(t.score, s)
		i = len(t.slots) - 1
	case t.before(s, slot, t.worst(), t.slots[len(t.slots)-1]):
		i = len(t.slots) - 1
		if t.pos != nil {
			delete(t.pos, t.slots[i])
		}
	default:
		return
	}
	t.slots[i], t.score[i] = slot, s
	// move up to its place
	for ; i > 0 && t.before(s, slot, t.score[i-1], t.slots[i-1]); i-- {
		t.slots[i], t.score[i] = t.slots[i-1], t.score[i-1]
		t.slots[i-1], t.score[i-1] = slot, s
		if t.pos != nil {
			t.pos[t.slots[i]] = i
		}
	}
	if t.pos != nil {
		t.pos[slot] = i
	}
}

func (x *Index) results(t *topK) []Result {
	out := make([]Result, len(t.slots))
	for i, slot := range t.slots {
		out[i] = Result{ID: x.mems[slot].id, Score: t.score[i]}
	}
	return out
}

package maxscore

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/search"
	"golang.org/x/sync/errgroup"
)

// A large index is walked by several goroutines at once (walkers), each
// with its own iterators, pool and filter. Its segments are cut into parts
// of PartDocs documents (after merges one segment holds most of a large
// index), and each walker takes the next part in order when it is done
// with one: each walks its own parts in order, as the filter and the other
// disjuncts' documents need, and a word goes on through a segment from
// where its last part there ended. The priming walk (prime) is shared out
// the same way, each walker keeping the best partial scores of its parts.
//
// The walkers share the lowest score of a full pool (threshold): the n-th
// best score of the documents one walker has seen is at most the n-th best
// of all, so any walker's is a threshold every walker may skip by. Their
// pools are merged at the end into the best n and the documents that tie
// with the n-th: the pool one walk ends with, whatever order the parts
// were walked in (the order within the pool is decided by score and id
// after it). The walkers together walk a few more postings than one walk
// would, each skipping by a threshold that rises later, for less time;
// an evaluation takes a walker beyond its own goroutine only for a core
// no other evaluation's walker holds (spare).

// Walkers is how many goroutines walk an index of WalkDocs documents or
// more at most (never more than GOMAXPROCS, nor than its segments); 1
// walks every index in one goroutine.
var Walkers = 2

// WalkDocs is the fewest documents an index has for its segments to be
// walked by several walkers: below it, starting them costs more than it
// saves.
var WalkDocs uint64 = 32768

// PartDocs is how many documents of a segment a walker takes at a time.
var PartDocs uint64 = 16384

// spare holds a token for each core beside one (GOMAXPROCS - 1): a walker
// beyond an evaluation's own goroutine takes one, and an evaluation walks
// alone when none is free, so several recalls at once each walk in one
// goroutine rather than all splitting into more walkers than there are
// cores.
var spare = sync.OnceValue(func() chan struct{} {
	return make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0))
})

// threshold is the highest lowest score of a full pool any walker has had.
// Scores are not negative, so their bits order as the scores do.
type threshold struct{ bits atomic.Uint64 }

func (t *threshold) load() float64 { return math.Float64frombits(t.bits.Load()) }

func (t *threshold) raise(v float64) {
	nb := math.Float64bits(v)
	for {
		old := t.bits.Load()
		if old >= nb || t.bits.CompareAndSwap(old, nb) {
			return
		}
	}
}

// share publishes the lowest score of e's pool when full, and takes the
// walkers' threshold (e.outside), with several walkers: at the start of a
// part and at each document offered to the pool, not at each document
// tried (the threshold's cache line is written by the other cores).
func (e *evaluator) share() {
	if e.shared == nil {
		return
	}
	if len(e.pool.items) >= e.n && e.pool.items[0].score > e.outside {
		e.shared.raise(e.pool.items[0].score)
	}
	e.outside = e.shared.load()
}

// part is the documents lo to hi (excluded) of segment seg.
type part struct {
	seg    int
	lo, hi uint64
}

// team is the walkers of one evaluation (e first, then its forks) and the
// parts of the index they share out.
type team struct {
	ws     []*evaluator
	parts  []part
	tokens int // taken from spare
}

// team makes e's walkers: several where the index is large enough, e
// alone (each segment one part) otherwise. The forks copy e's plan, so
// they are made before prime walks any leaf.
func (e *evaluator) team() (*team, error) {
	t := &team{ws: []*evaluator{e}}
	if w := min(Walkers, runtime.GOMAXPROCS(0)); w >= 2 && e.total >= WalkDocs {
	take:
		for t.tokens < w-1 {
			select {
			case spare() <- struct{}{}:
				t.tokens++
			default:
				break take
			}
		}
	}
	size := uint64(math.MaxUint64) // alone: each segment one part
	if t.tokens > 0 {
		size = max(PartDocs, 1)
	}
	for si := range e.segs {
		count := e.offsets[si+1] - e.offsets[si]
		for lo := uint64(0); lo < count; lo += min(size, count-lo) {
			t.parts = append(t.parts, part{si, lo, lo + min(size, count-lo)})
		}
	}
	if t.tokens == 0 {
		return t, nil
	}
	e.shared = &threshold{}
	for range t.tokens {
		f, err := e.fork()
		if f != nil {
			t.ws = append(t.ws, f)
		}
		if err != nil {
			return t, err
		}
	}
	return t, nil
}

// each runs do on every part: e alone in order, or each walker taking the
// next part in order when it is done with one.
func (t *team) each(do func(wi int, w *evaluator, p part) error) error {
	if len(t.ws) == 1 {
		for _, p := range t.parts {
			if err := do(0, t.ws[0], p); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var g errgroup.Group
	for wi, w := range t.ws {
		g.Go(func() (err error) {
			// a damaged segment can make zap panic or fault: an error
			// here, as on the caller's goroutine (its caller recovers
			// there), never a crash of the process
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("walking the postings: %v", p)
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(t.parts) {
					return nil
				}
				if err := do(wi, w, t.parts[i]); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// merge gathers the forks' pools and walked postings into e's.
func (t *team) merge() {
	e := t.ws[0]
	e.walkers = len(t.ws)
	for _, f := range t.ws[1:] {
		for _, it := range f.pool.all() {
			e.pool.offer(it.score, it.id, e.n)
		}
		for i, l := range f.leaves {
			e.leaves[i].walked += l.walked
		}
	}
}

// close closes the forks and gives back the tokens.
func (t *team) close() {
	for _, f := range t.ws[1:] {
		f.close()
	}
	for range t.tokens {
		<-spare()
	}
}

// fork is a walker of the plan e holds, at the state e is in before its
// walk: the same leaves, bounds and floor, its own iterators, pool and
// filter.
func (e *evaluator) fork() (*evaluator, error) {
	f := &evaluator{ctx: e.ctx, im: e.im, stats: e.stats, r: e.r, segs: e.segs, offsets: e.offsets,
		total: e.total, n: e.n, t: e.t, invT: e.invT, filterQ: e.filterQ, excluded: e.excluded, pool: &pool{}, shared: e.shared,
		sctx:         &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(16, 0), IndexReader: e.r},
		doc:          make([]byte, 8),
		nonEssential: e.nonEssential, lastTheta: e.lastTheta, floor: e.floor}
	of := make(map[*leaf]*leaf, len(e.leaves))
	for _, l := range e.leaves {
		c := *l
		c.it, c.probe, c.p, c.dec, c.memo, c.walked, c.pos, c.seg, c.probeSeg = nil, nil, nil, nil, nil, 0, 0, -1, -1
		of[l] = &c
		f.leaves = append(f.leaves, &c)
	}
	remap := func(ls []*leaf) []*leaf {
		out := make([]*leaf, len(ls))
		for i, l := range ls {
			out[i] = of[l]
		}
		return out
	}
	for _, c := range e.children {
		cc := *c
		cc.leaves = remap(c.leaves)
		f.children = append(f.children, &cc)
	}
	f.bounded = remap(e.bounded)
	f.sums, f.neSums = make([]float64, len(e.children)), make([]float64, len(e.children))
	f.counts, f.neCounts = make([]int, len(e.children)), make([]int, len(e.children))
	f.splitEssential()
	return f, f.openFilter()
}

package maxscore

import (
	"cmp"
	"container/heap"
	"slices"
)

// primeShare bounds the postings the priming walk reads: the rarest
// leaves whose postings together are at most this share of all the
// leaves' postings.
const primeShare = 8

// prime sets floor, a lower bound of the lowest score the pool will end
// with, before the walk: MaxScore skips only once the pool is full, and
// the pool's lowest score rises slowly where the best documents come late
// in the walk (a large index, the same turn stored many times), so the
// walk scores most documents of the common words first.
//
// The rarest words (and the other disjuncts, whose documents are known)
// are walked alone, and each of their documents is scored on them only:
// a partial score, what the document would score if it matched nothing
// else. A document scores at least its partial score (a disjunction's
// score only grows with each child or word matched), so the n-th best
// partial score of distinct documents is at most the pool's final lowest
// score; any document whose bound is below it cannot enter the pool. The
// pool is then what it would have been without the floor, ties included.
//
// Not with a filter: a document the filter rejects may not lend its
// score.
func (e *evaluator) prime(t *team) error {
	if e.filter != nil {
		return nil
	}
	var total uint64
	for _, l := range e.leaves {
		total += l.count
	}
	byCount := make([]int, len(e.leaves))
	for i := range byCount {
		byCount[i] = i
	}
	slices.SortStableFunc(byCount, func(a, b int) int { return cmp.Compare(e.leaves[a].count, e.leaves[b].count) })
	var rare []int // indexes in leaves
	var sum uint64
	for _, i := range byCount {
		l := e.leaves[i]
		if l.count == 0 {
			continue
		}
		if (sum+l.count)*primeShare > total {
			break
		}
		rare = append(rare, i)
		sum += l.count
	}
	if len(rare) == 0 || len(rare) == len(e.leaves) || sum < uint64(e.n) {
		return nil // nothing rare enough, or too few documents to bound the pool
	}
	rares := make([][]*leaf, len(t.ws))
	for wi, w := range t.ws {
		for _, i := range rare {
			w.leaves[i].priming = true
			rares[wi] = append(rares[wi], w.leaves[i])
		}
	}
	bests := make([]floats, len(t.ws))
	if err := t.each(func(wi int, w *evaluator, p part) error { return w.primePart(p, rares[wi], &bests[wi]) }); err != nil {
		return err
	}
	best := &floats{}
	for wi := range t.ws {
		for _, v := range bests[wi] {
			best.keep(v, e.n)
		}
		for _, l := range rares[wi] {
			l.priming = false
			e.primed += l.walked
			// the walk starts again from the first document
			l.walked, l.pos, l.seg = 0, 0, -1
		}
	}
	if len(*best) == e.n {
		// room for rounding: the floor may only be lower than exact
		for _, w := range t.ws {
			w.floor = (*best)[0] * (1 - 1e-9)
		}
	}
	return nil
}

// primePart walks the rare leaves over part p, keeping the best partial
// scores of its documents in best.
func (e *evaluator) primePart(p part, rare []*leaf, best *floats) error {
	off := e.offsets[p.seg]
	end := off + p.hi
	for _, l := range rare {
		if err := l.enter(p.seg, off, p.lo, end); err != nil {
			return err
		}
	}
	for {
		id := uint64(done)
		for _, l := range rare {
			id = min(id, l.id)
		}
		if id >= p.hi {
			return nil
		}
		if !e.excluded[off+id] { // an excluded document lends no score
			best.keep(e.partial(id), e.n)
		}
		for _, l := range rare {
			if l.id == id {
				if err := l.next(end); err != nil {
					return err
				}
			}
		}
	}
}

// partial is document id's score on the priming leaves alone, as score
// computes it.
func (e *evaluator) partial(id uint64) float64 {
	sum, matched := 0.0, 0
	for _, c := range e.children {
		cs, m := 0.0, 0
		for _, l := range c.leaves {
			if l.priming && l.id == id {
				cs += l.score()
				m++
			}
		}
		if m == 0 {
			continue
		}
		if c.match {
			cs = cs * (float64(m) / float64(c.total))
		}
		sum += cs
		matched++
	}
	return sum * (float64(matched) / e.t)
}

// floats is a min-heap of the n greatest values kept.
type floats []float64

func (f floats) Len() int           { return len(f) }
func (f floats) Less(i, j int) bool { return f[i] < f[j] }
func (f floats) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *floats) Push(x any)        { *f = append(*f, x.(float64)) }
func (f *floats) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}

func (f *floats) keep(v float64, n int) {
	if len(*f) < n {
		heap.Push(f, v)
		return
	}
	if v > (*f)[0] {
		(*f)[0] = v
		heap.Fix(f, 0)
	}
}

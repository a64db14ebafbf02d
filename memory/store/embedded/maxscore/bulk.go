package maxscore

import (
	"math/bits"
	"sync"
)

// The walk a window at a time (Lucene's MaxScoreBulkScorer): walkTo
// takes the documents the walked words bring up one at a time, each time
// finding the least of their documents, adding up the words at it and
// moving them on, which at a million memories cost more than the test of
// whether the document can reach the pool (EVALS.md, "Decoded postings
// for the text side"). walkDocs instead runs each walked word through a
// window of BulkDocs documents at once, keeping, per document it holds,
// its score and the sums and counts per child, then tests the window's
// documents in order with those sums and the bounds of the words not
// walked (bulkReach), and scores the ones that pass as bleve sums them
// (bulkScore). Which words are walked is decided again between windows
// (demote), never within one, so a window's sums are of the words it
// walked.

// BulkDocs is how many documents bulkWindow takes at a time.
const BulkDocs = 1024

// bulk holds one window's walked scores: per document (d, its number
// less the window's first), whether a walked word holds it (touched), the
// sums and counts per child (at d*children+child), and per word (its
// index) whether it holds d (has) and its score there (scores).
type bulk struct {
	touched       [BulkDocs / 64]uint64
	sums          []float64
	counts        []int32
	has           []uint64
	scores        []float64
	children, per int
}

// bulkPool keeps buffers between evaluations: about 10 KB a word, which
// a recall of a small namespace would otherwise allocate every time.
var bulkPool sync.Pool

// buffers is e's window buffers, sized for its children and leaves (what
// an earlier window left in them is cleared before it is read).
func (e *evaluator) buffers() *bulk {
	if e.bulk != nil {
		return e.bulk
	}
	b, _ := bulkPool.Get().(*bulk)
	if b == nil {
		b = &bulk{per: BulkDocs / 64}
	}
	c, l := len(e.children), len(e.leaves)
	b.children = c
	b.sums = grown(b.sums, BulkDocs*c)
	b.counts = grown(b.counts, BulkDocs*c)
	b.has = grown(b.has, l*b.per)
	b.scores = grown(b.scores, l*BulkDocs)
	e.bulk = b
	return b
}

// grown is s with length n, reallocated when shorter.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// release gives e's buffers back to the pool.
func (e *evaluator) release() {
	if e.bulk != nil {
		bulkPool.Put(e.bulk)
		e.bulk = nil
	}
}

// walkDocs walks the documents of the part the walked words bring up, up
// to local document to (excluded), a window at a time or one at a time.
func (e *evaluator) walkDocs(off, to, end uint64) error {
	if !Bulk {
		return e.walkTo(off, to, end)
	}
	for {
		ws := e.nextWalked()
		if ws >= to {
			return nil
		}
		if err := e.bulkWindow(off, ws, min(ws+BulkDocs, to), end); err != nil {
			return err
		}
		e.demote()
	}
}

// bulkWindow walks local documents ws to we (excluded, at most BulkDocs).
func (e *evaluator) bulkWindow(off, ws, we, end uint64) error {
	b := e.buffers()
	clear(b.touched[:])
	for _, l := range e.walked {
		clear(b.has[l.index*b.per : (l.index+1)*b.per])
		for l.id < we {
			d := l.id - ws
			if b.touched[d>>6]&(1<<(d&63)) == 0 {
				b.touched[d>>6] |= 1 << (d & 63)
				clear(b.sums[int(d)*b.children : int(d+1)*b.children])
				clear(b.counts[int(d)*b.children : int(d+1)*b.children])
			}
			s := l.score()
			b.sums[int(d)*b.children+l.child] += s
			b.counts[int(d)*b.children+l.child]++
			b.has[l.index*b.per+int(d>>6)] |= 1 << (d & 63)
			b.scores[l.index*BulkDocs+int(d)] = s
			if err := l.next(end); err != nil {
				return err
			}
		}
	}
	for wi, word := range b.touched {
		for word != 0 {
			d := uint64(wi*64 + bits.TrailingZeros64(word))
			word &= word - 1
			reach, err := e.bulkReach(b, d, ws+d, end)
			if err != nil {
				return err
			}
			if !reach {
				continue
			}
			for _, l := range e.notWalk {
				if l.id == ws+d {
					if err := l.sync(); err != nil {
						return err
					}
				}
			}
			if err := e.admit(e.bulkScore(b, d, ws+d), off+ws+d); err != nil {
				return err
			}
		}
	}
	return nil
}

// bulkReach is canReach for document id (d in the window), with the
// walked words' sums and counts from the window.
func (e *evaluator) bulkReach(b *bulk, d, id, end uint64) (bool, error) {
	theta, known := e.theta()
	if !known || len(e.notWalk) == 0 {
		return true, e.advanceNotWalked(id, end)
	}
	at := int(d) * b.children
	for c := range e.sums {
		e.sums[c] = e.neSums[c] + b.sums[at+c]
		e.counts[c] = e.neCounts[c] + int(b.counts[at+c])
	}
	return e.reachRest(theta, id, end)
}

// bulkScore is score for document id (d in the window): the walked
// words' scores from the window, the others' at id, summed in bleve's
// order.
func (e *evaluator) bulkScore(b *bulk, d, id uint64) float64 {
	return e.sumScores(func(l *leaf) (float64, bool) {
		if l.essential {
			if b.has[l.index*b.per+int(d>>6)]&(1<<(d&63)) != 0 {
				return b.scores[l.index*BulkDocs+int(d)], true
			}
			return 0, false
		}
		if l.id == id {
			return l.score(), true
		}
		return 0, false
	})
}

package maxscore

import (
	"encoding/binary"
)

// walkPart walks the documents lo to hi (excluded) of segment si that an
// essential leaf brings up, in number order, as bleve's collector sees
// them (walkDocs: a window of BulkDocs at a time, or one by one); window
// by window of bounds (enterWindow) where a word has them in the segment.
func (e *evaluator) walkPart(si int, lo, hi uint64) error {
	off := e.offsets[si]
	end := off + hi
	for _, l := range e.leaves {
		if err := l.enter(si, off, lo, end); err != nil {
			return err
		}
	}
	e.share()
	if !Windows {
		return e.walkDocs(off, hi, end)
	}
	if !e.windowed(si) {
		if e.windowBounds {
			// the bounds are still the last window's of another
			// segment: back to the whole index's (no word has maxima here)
			if err := e.enterWindow(si, 0, lo, end); err != nil {
				return err
			}
		}
		return e.walkDocs(off, hi, end)
	}
	for w := lo >> WindowBits; w<<WindowBits < hi; w++ {
		if err := e.enterWindow(si, w, max(w<<WindowBits, lo), end); err != nil {
			return err
		}
		if err := e.walkDocs(off, min((w+1)<<WindowBits, hi), end); err != nil {
			return err
		}
	}
	return nil
}

// nextWalked is the next document a walked leaf is on (done when none is).
func (e *evaluator) nextWalked() uint64 {
	id := uint64(done)
	for _, l := range e.walked {
		id = min(id, l.id)
	}
	return id
}

// walkTo walks the documents the essential leaves bring up, up to local
// document to (excluded); the part's documents end at global number end.
func (e *evaluator) walkTo(off, to, end uint64) error {
	for {
		id := e.nextWalked()
		if id >= to {
			return nil
		}
		reach, err := e.canReach(id, end)
		if err != nil {
			return err
		}
		if !reach {
			if err := e.pass(e.walked, id, end); err != nil {
				return err
			}
			continue
		}
		for _, l := range e.notWalk {
			if l.id == id {
				if err := l.sync(); err != nil {
					return err
				}
			}
		}
		if err := e.admit(e.score(id), off+id); err != nil {
			return err
		}
		if err := e.pass(e.leaves, id, end); err != nil {
			return err
		}
		e.demote()
	}
}

// pass moves the leaves at document id past it.
func (e *evaluator) pass(leaves []*leaf, id, end uint64) error {
	for _, l := range leaves {
		if l.id == id {
			if err := l.next(end); err != nil {
				return err
			}
		}
	}
	return nil
}

// canReach advances the leaves not walked to document id and tells
// whether it can still enter a full pool: what the essential leaves
// found, with the bounds of the others; then the others, the greatest
// bound first, each found or not, until it cannot or all are known.
func (e *evaluator) canReach(id, end uint64) (bool, error) {
	theta, known := e.theta()
	if !known || len(e.notWalk) == 0 {
		return true, e.advanceNotWalked(id, end)
	}
	copy(e.sums, e.neSums)
	copy(e.counts, e.neCounts)
	for _, l := range e.walked {
		if l.id == id {
			e.sums[l.child] += l.score()
			e.counts[l.child]++
		}
	}
	return e.reachRest(theta, id, end)
}

// advanceNotWalked advances the leaves not walked to document id.
func (e *evaluator) advanceNotWalked(id, end uint64) error {
	for _, l := range e.notWalk {
		if l.id < id {
			if err := l.advance(id, end); err != nil {
				return err
			}
		}
	}
	return nil
}

// reachRest tells whether document id can still enter a pool of lowest
// score theta, from what e.sums and e.counts hold (the walked words'
// scores at it, the bounds of the others): the others are advanced to it,
// the greatest bound first, each found or not, until it cannot or all are
// known.
func (e *evaluator) reachRest(theta float64, id, end uint64) (bool, error) {
	if e.bound()*(1+1e-9) < theta {
		return false, nil
	}
	for j := len(e.notWalk) - 1; j >= 0; j-- {
		l := e.notWalk[j]
		if l.id < id {
			if err := l.advance(id, end); err != nil {
				return false, err
			}
		}
		if l.id != id {
			e.sums[l.child] -= l.ub
			e.counts[l.child]--
			if e.bound()*(1+1e-9) < theta {
				return false, nil
			}
		}
	}
	return true, nil
}

// theta is the least score a document needs to enter the pool once the
// walk is over: the pool's lowest when it is full, or the floor (prime)
// when higher; known is false while neither is.
func (e *evaluator) theta() (theta float64, known bool) {
	theta, known = e.floor, e.floor > 0
	if len(e.pool.items) >= e.n {
		theta, known = max(theta, e.pool.items[0].score), true
	}
	if e.outside > theta {
		theta, known = e.outside, true
	}
	return theta, known
}

// bound is the most a document can score that matches at most the words
// (their bounds or scores) and disjuncts in sums and counts.
func (e *evaluator) bound() float64 {
	total, matched := 0.0, 0
	for i, c := range e.children {
		if e.counts[i] > 0 {
			if c.match {
				total += e.sums[i] * float64(min(e.counts[i], c.total)) * c.inv
			} else {
				total += e.sums[i]
			}
			matched++
		}
	}
	// multiplied by reciprocals (4% of a long question's walk at 1M, where
	// a division each time cost that): within an ulp of the scores'
	// divisions, which the callers' margin of 1e-9 covers
	return total * float64(matched) * e.invT
}

// score is document id's score as bleve's disjunctions compute it
// (scorer.DisjunctionQueryScorer: the sum in their order, times
// matched/total).
func (e *evaluator) score(id uint64) float64 {
	return e.sumScores(func(l *leaf) (float64, bool) {
		if l.id == id {
			return l.score(), true
		}
		return 0, false
	})
}

// sumScores is a document's score as bleve's disjunctions compute it,
// from at: whether a leaf holds the document, and its score there.
func (e *evaluator) sumScores(at func(l *leaf) (float64, bool)) float64 {
	sum, matched := 0.0, 0
	for _, c := range e.children {
		cs, m := 0.0, 0
		for _, l := range c.leaves {
			if s, ok := at(l); ok {
				cs += s
				m++
			}
		}
		if m == 0 {
			continue
		}
		if c.match {
			coord := float64(m) / float64(c.total)
			cs = cs * coord
		}
		sum += cs
		matched++
	}
	coord := float64(matched) / e.t
	return sum * coord
}

// admit offers the document of global number global to the pool, when
// its score takes it there, it is not excluded, and the filter passes it.
func (e *evaluator) admit(score float64, global uint64) error {
	if score < e.floor || !e.pool.takes(score, e.n) || e.excluded[global] {
		return nil
	}
	if e.filter != nil {
		binary.BigEndian.PutUint64(e.doc, global)
		if e.ref != nil && e.ref.IndexInternalID.Compare(e.doc) < 0 {
			e.sctx.DocumentMatchPool.Put(e.ref)
			var err error
			if e.ref, err = e.filter.Advance(e.sctx, e.doc); err != nil {
				return err
			}
		}
		if e.ref == nil || !e.ref.IndexInternalID.Equals(e.doc) {
			return nil
		}
	}
	e.pool.offer(score, global, e.n)
	e.share()
	return nil
}

// demote stops walking the words that, with those already not walked,
// cannot lift a document above the lowest score of a full pool.
func (e *evaluator) demote() {
	theta, known := e.theta()
	if !known || e.nonEssential == len(e.bounded) || !(theta > e.lastTheta) {
		return
	}
	moved := false
	e.lastTheta = theta
	for e.nonEssential < len(e.bounded) {
		copy(e.sums, e.neSums)
		copy(e.counts, e.neCounts)
		l := e.bounded[e.nonEssential]
		e.sums[l.child] += l.ub
		e.counts[l.child]++
		if e.bound() >= theta {
			break
		}
		l.essential = false
		e.nonEssential++
		moved = true
		e.neSums[l.child] += l.ub
		e.neCounts[l.child]++
	}
	if moved {
		e.splitEssential()
	}
}

// splitEssential lists the leaves walked and those not (the least bound
// first), and the bounds of the latter per child.
func (e *evaluator) splitEssential() {
	e.walked = e.walked[:0]
	for _, l := range e.leaves {
		if l.essential {
			e.walked = append(e.walked, l)
		}
	}
	e.notWalk = e.bounded[:e.nonEssential]
	clear(e.neSums)
	clear(e.neCounts)
	for _, l := range e.notWalk {
		e.neSums[l.child] += l.ub
		e.neCounts[l.child]++
	}
}

// result is the pool with each document's id, and the postings walked.
func (e *evaluator) result() (Result, bool, error) {
	res := Result{Walked: e.primed, Walkers: e.walkers}
	for _, l := range e.leaves {
		if l.term {
			res.Walked += l.walked
			res.Postings += int(l.count)
			for _, pl := range l.pls {
				if _, ok := pl.(*decodedList); ok {
					res.Decoded++
				}
			}
		}
	}
	kept := e.pool.all()
	res.Hits = make([]Hit, 0, len(kept))
	for _, it := range kept {
		binary.BigEndian.PutUint64(e.doc, it.id)
		ext, err := e.r.ExternalID(e.doc)
		if err != nil {
			return res, false, err
		}
		res.Hits = append(res.Hits, Hit{ID: ext, Score: it.score})
	}
	return res, true, nil
}

package maxscore

import (
	"fmt"
	"math"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// leaf is one word of a match query, or one other disjunct (found by
// bleve beforehand: ids and scores).
type leaf struct {
	child int
	index int // in the evaluator's leaves
	term  bool
	// a word: its postings list in each segment, its iterator and
	// posting in the current one; idf, query weight and average length
	// as bleve's TermQueryScorer has them
	pls          []segment.PostingsList
	it           segment.PostingsIterator
	p            segment.Posting
	idf, qw, avg float64
	// a word not walked: its documents only (no frequencies or norms, so
	// advancing skips rather than steps where the segment has no deleted
	// documents, and decodes nothing where it has), in segment seg when
	// probing; it and p then follow only to the documents scored (sync)
	probe    segment.PostingsIterator
	probing  bool
	probeSeg int // the segment probe iterates (startProbe), -1: none
	seg      int
	// dec walks the current segment's postings when they are decoded
	// (decoded.go); it, probe and p are then unused: the word is at its
	// posting whether walked or not, so it needs no probe
	dec *decodedIterator
	// another disjunct: its documents (global numbers) and their scores
	ids    []uint64
	scores []float64
	pos    int
	off    uint64 // the current segment's first global number

	id        uint64  // the current document's number in the segment; done when MaxUint64
	sc        float64 // its score, when scored at id
	scored    bool
	ub        float64     // in the current window (enterWindow), else gub
	gub       float64     // over the whole index (termBound)
	wmax      [][]float32 // per segment: the window maxima (windowMaxima), or nil
	essential bool
	priming   bool // walked by prime
	count     uint64
	weight    float64
	walked    int
	// memo holds the scores computed so far, by frequency and length
	// (compute), 0 while not known; only for words with MemoPostings
	// postings or more, allocated at the first score
	memo    []float64
	memoize bool
}

// A word's score in a document depends only on the word (idf, query
// weight, average length) and on the posting's frequency and norm; the
// common words of a question score the same few frequencies and lengths
// over and over, so a word keeps the scores it computed (the same
// computation, so the same bits). The norm's key is the posting's
// NormUint64 (zap v15 and later: the field's length, of which Norm is a
// function); segments without it are scored every time.
const (
	memoFreqs   = 2    // frequencies 1 and 2
	memoLengths = 1024 // field lengths below this
)

// normBits is a posting that gives the bits its norm is computed from.
type normBits interface{ NormUint64() uint64 }

// done is a leaf's document number once it has no more.
const done = math.MaxUint64

// score is the leaf's score of its current document, computed as
// scorer.TermQueryScorer.Score computes it.
func (l *leaf) score() float64 {
	if l.scored {
		return l.sc
	}
	l.sc, l.scored = l.compute(), true
	return l.sc
}

func (l *leaf) compute() float64 {
	if !l.term {
		return l.scores[l.pos]
	}
	if l.dec != nil {
		return l.memoized(l.dec.posting())
	}
	freq := l.p.Frequency()
	nb, ok := l.p.(normBits)
	if !ok {
		return l.bm25(freq, l.p.Norm())
	}
	return l.memoized(freq, nb.NormUint64())
}

// memoized is the score of a posting of frequency freq in a field of
// bits tokens (zap's NormUint64), from the memo when known.
func (l *leaf) memoized(freq, bits uint64) float64 {
	if !l.memoize || freq == 0 || freq > memoFreqs || bits >= memoLengths {
		return l.bm25(freq, lengthNorm(bits))
	}
	if l.memo == nil {
		l.memo = make([]float64, memoFreqs*memoLengths)
	}
	k := (freq-1)*memoLengths + bits
	if s := l.memo[k]; s != 0 {
		return s
	}
	s := l.bm25(freq, lengthNorm(bits))
	l.memo[k] = s
	return s
}

// lengthNorm is the norm of a field of bits tokens, as zap's posting
// (v15 and later) computes it from its NormUint64.
func lengthNorm(bits uint64) float64 {
	return float64(float32(1.0 / math.Sqrt(float64(bits))))
}

// bm25 is the score of a posting of frequency freq and norm norm.
func (l *leaf) bm25(freq uint64, norm float64) float64 {
	var tf float64
	if freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[int(freq)]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	fieldLength := 1 / (norm * norm)
	score := l.idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/l.avg)))
	if l.qw != 1.0 {
		score = score * l.qw
	}
	return score
}

// setPosting moves the leaf to posting p (nil: no more), which it scores.
func (l *leaf) setPosting(p segment.Posting, err error) error {
	if err == nil {
		l.p = p
	}
	return l.land(p, err)
}

// landDecoded moves the leaf's current document to its decoded posting.
func (l *leaf) landDecoded() {
	l.id, l.scored = l.dec.doc(), false
}

// land moves the leaf's current document to p's (nil: no more).
func (l *leaf) land(p segment.Posting, err error) error {
	if err != nil {
		return err
	}
	l.id, l.scored = done, false
	if p != nil {
		l.id = p.Number()
	}
	return nil
}

func (l *leaf) setPos(end uint64) {
	l.id, l.scored = done, false
	if l.pos < len(l.ids) && l.ids[l.pos] < end {
		l.id = l.ids[l.pos] - l.off
	}
}

// start moves the leaf to segment i (global numbers [off, end)).
func (l *leaf) start(i int, off, end uint64) error {
	if !l.term {
		l.off = off
		for l.pos < len(l.ids) && l.ids[l.pos] < off {
			l.pos++
		}
		l.setPos(end)
		return nil
	}
	l.id, l.seg, l.probing, l.p, l.probeSeg = done, i, false, nil, -1
	if l.pls[i] == nil {
		l.dec = nil
		return nil
	}
	if dl, ok := l.pls[i].(*decodedList); ok {
		l.dec = dl.walk(l.dec)
		l.landDecoded()
		return nil
	}
	l.dec = nil
	l.it = l.pls[i].Iterator(true, true, false, l.it)
	if !l.essential && Probe {
		l.startProbe()
		return l.land(l.probe.Next())
	}
	return l.setPosting(l.it.Next())
}

// enter moves the leaf to the documents from lo of segment i (global
// numbers from off; the part ends at end). A word already in segment i
// goes on from where it is (it is at the first of its documents after
// some document before lo: its last part in i ended before lo), which
// spares a new iterator and its seek; anything else starts at i.
func (l *leaf) enter(i int, off, lo, end uint64) error {
	if !l.term || l.seg != i {
		if err := l.start(i, off, end); err != nil {
			return err
		}
	}
	if l.id < lo {
		return l.advance(lo, end)
	}
	return nil
}

// startProbe starts the word's documents-only iterator in its segment.
func (l *leaf) startProbe() {
	l.probe = l.pls[l.seg].Iterator(false, false, false, l.probe)
	l.probing, l.probeSeg = true, l.seg
}

// sync brings the posting of a probing word to its current document, to
// score it.
func (l *leaf) sync() error {
	if l.dec != nil || !l.probing || l.id == done || (l.p != nil && l.p.Number() == l.id) {
		return nil
	}
	p, err := l.it.Advance(l.id)
	if err != nil {
		return err
	}
	if p == nil || p.Number() != l.id {
		return fmt.Errorf("maxscore: the postings of a word disagree on document %d", l.id)
	}
	l.p = p
	return nil
}

// promote makes a probing word walked again (its window bound can lift a
// document into the pool): its posting follows to its current document.
func (l *leaf) promote() error {
	if !l.probing {
		return nil
	}
	if err := l.sync(); err != nil {
		return err
	}
	l.probing = false
	return nil
}

// next moves the leaf past its current document.
func (l *leaf) next(end uint64) error {
	l.walked++
	if !l.term {
		l.pos++
		l.setPos(end)
		return nil
	}
	if l.dec != nil {
		l.dec.step()
		l.landDecoded()
		return nil
	}
	if l.probing {
		return l.land(l.probe.Next())
	}
	return l.setPosting(l.it.Next())
}

// advance moves the leaf to its first document at or after local.
func (l *leaf) advance(local, end uint64) error {
	if !l.term {
		for l.pos < len(l.ids) && l.ids[l.pos]-l.off < local {
			l.pos++
		}
		l.setPos(end)
		return nil
	}
	if l.dec != nil {
		l.dec.seek(local)
		l.landDecoded()
		return nil
	}
	if !l.essential && !l.probing && Probe && l.pls[l.seg] != nil {
		if l.probeSeg == l.seg {
			l.probing = true // demoted again: its probe goes on from where it was
		} else {
			l.startProbe() // demoted in this segment
		}
	}
	if l.probing {
		return l.land(l.probe.Advance(local))
	}
	return l.setPosting(l.it.Advance(local))
}

// child is one disjunct of the top disjunction: a match query's words
// (total of them) or one other query.
type child struct {
	leaves []*leaf // in the order bleve sums them
	match  bool
	total  int
	inv    float64 // 1/total, for bounds
	count  uint64
	weight float64
}

// bound is the most the word scores where the middle factor of its score
// is at most m, with room for rounding.
func (l *leaf) bound(m float64) float64 {
	return l.idf * m * l.qw * (1 + 1e-9)
}

// termBound is the most the middle factor of bleve's BM25 term score can
// be in a field of average length avg (see the comment at the top).
func termBound(avg float64) float64 {
	k1, b := search.BM25_k1, search.BM25_b
	s := max(1, math.Sqrt((1-b)*avg/b))
	return k1 / (1 + k1*(1-b)/s + k1*b*s/avg)
}

package maxscore

import (
	"math"

	"github.com/blevesearch/bleve/v2/search"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	lru "github.com/hashicorp/golang-lru/v2"
)

// Window bounds (block-max MaxScore, as Lucene's MaxScoreBulkScorer): a
// word's bound over the whole index is what its best possible posting
// would score (termBound), but in most stretches of documents its
// postings score far less: a common word's best posting there is in a
// long turn, or it has none. A segment is cut into windows of
// 1<<WindowBits documents, and a word of WindowPostings postings or more
// in a segment keeps, per window, the most the middle factor of its
// score reaches there (windowMaxima). The walk goes window by window: at
// each, the words' bounds are their window's, and which words are walked
// and which only advanced to the documents the others bring up is decided
// again (enterWindow), so a word is walked only where it can lift a
// document into the pool. The pool is the same, as every bound still
// holds.
//
// A word's maxima depend only on its postings (deleted documents
// included, so they hold for every snapshot of the segment) and the
// field's average length, so they are kept (windowCache) for the segment,
// which never changes, and computed once: one walk of the word's postings
// in that segment, the first time a question asks for it. Only a segment
// on disk has them: the cache keeps its key's segment object alive, and an
// in-memory segment (a recent batch, small) would keep its bytes.
var (
	// WindowBits is the log2 of a window's documents.
	WindowBits uint = 10
	// WindowPostings is the fewest postings a word has in a segment for
	// its window bounds to be kept there: a rarer word costs little to
	// walk.
	WindowPostings uint64 = 4096
)

// windowKey names one word's maxima: its segment (the object, which the
// key keeps alive, so no other segment can take its address), field,
// term, the field's average length and the window size.
type windowKey struct {
	seg   segment.Segment
	field string
	term  string
	avg   float64
	bits  uint
}

// windowCache holds the maxima of the words asked for most recently:
// about 4 KB each for a segment of a million documents.
var windowCache, _ = lru.New[windowKey, []float32](4096)

// windowsOf gives word l its window maxima in each segment that has them
// (wmax stays nil for a word that has none).
func (e *evaluator) windowsOf(l *leaf, field string, term []byte) error {
	for i := range e.segs {
		m, err := e.windowMaxima(l, i, field, term)
		if err != nil {
			return err
		}
		if m == nil {
			continue
		}
		if l.wmax == nil {
			l.wmax = make([][]float32, len(e.segs))
		}
		l.wmax[i] = m
	}
	return nil
}

// windowMaxima is the most the middle factor of l's score (bleve's BM25
// term score without idf and query weight) reaches in each window of
// segment i, rounded up to a float32; nil when the word is too rare
// there for window bounds.
func (e *evaluator) windowMaxima(l *leaf, i int, field string, term []byte) ([]float32, error) {
	seg, onDisk := e.segs[i].Segment().(segment.PersistedSegment)
	if !onDisk || l.pls[i] == nil || l.pls[i].Count() < WindowPostings {
		return nil, nil
	}
	key := windowKey{seg, field, string(term), l.avg, WindowBits}
	if m, ok := windowCache.Get(key); ok {
		return m, nil
	}
	m := make([]float32, (seg.Count()+(1<<WindowBits)-1)>>WindowBits)
	put := func(doc, freq uint64, norm float64) {
		if f := roundUp(middle(freq, norm, l.avg)); f > m[doc>>WindowBits] {
			m[doc>>WindowBits] = f
		}
	}
	if dl, ok := l.pls[i].(*decodedList); ok {
		d := dl.d // every posting already
		for j, doc := range d.docs {
			put(uint64(doc), uint64(d.freqs[j]), lengthNorm(uint64(d.lens[j])))
		}
	} else if err := eachPosting(seg, field, term, func(p segment.Posting) { put(p.Number(), p.Frequency(), p.Norm()) }); err != nil {
		return nil, err
	}
	windowCache.Add(key, m)
	return m, nil
}

// allPostings is term's postings list in field of seg, deleted documents
// included (deletions only grow, so what is computed from them holds for
// every snapshot of the segment).
func allPostings(seg segment.Segment, field string, term []byte) (segment.PostingsList, error) {
	d, err := seg.Dictionary(field)
	if err != nil {
		return nil, err
	}
	return d.PostingsList(term, nil, nil)
}

// eachPosting calls f with every posting of term in field of seg,
// deleted documents included (allPostings).
func eachPosting(seg segment.Segment, field string, term []byte, f func(segment.Posting)) error {
	pl, err := allPostings(seg, field, term)
	if err != nil {
		return err
	}
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil || p == nil {
			return err
		}
		f(p)
	}
}

// middle is the factor of bleve's BM25 term score that depends on the
// posting (frequency and norm) and the field's average length. leaf.bm25
// multiplies by idf before it divides, so their last bits may differ: a
// bound (leaf.bound) has room for that.
func middle(freq uint64, norm, avg float64) float64 {
	tf := math.Sqrt(float64(freq))
	fieldLength := 1 / (norm * norm)
	return (tf * search.BM25_k1) / (tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/avg)))
}

// roundUp is v as a float32 no less than v.
func roundUp(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// windowed tells whether any word has window bounds in segment si.
func (e *evaluator) windowed(si int) bool {
	for _, l := range e.bounded {
		if l.wmax != nil && l.wmax[si] != nil {
			return true
		}
	}
	return false
}

// enterWindow gives each word its bound in window w of segment si (the
// whole index's where it has none there) and decides again which words
// are walked, from local document ws.
func (e *evaluator) enterWindow(si int, w, ws, end uint64) error {
	e.windowBounds = false
	for _, l := range e.bounded {
		l.ub = l.gub
		if l.wmax != nil && l.wmax[si] != nil {
			l.ub = min(l.gub, l.bound(float64(l.wmax[si][w])))
			e.windowBounds = e.windowBounds || l.ub != l.gub
		}
	}
	e.sortBounded()
	return e.redecide(ws, end)
}

// redecide decides again, from the bounds alone, which words are walked
// (demote), and brings every walked word to local document ws at least,
// a probing one back to its postings (promote).
func (e *evaluator) redecide(ws, end uint64) error {
	for _, l := range e.bounded {
		l.essential = true
	}
	e.nonEssential, e.lastTheta = 0, math.Inf(-1)
	clear(e.neSums)
	clear(e.neCounts)
	e.demote()
	e.splitEssential()
	for _, l := range e.walked {
		if l.id < ws {
			if err := l.advance(ws, end); err != nil {
				return err
			}
		}
		if err := l.promote(); err != nil {
			return err
		}
	}
	return nil
}

package maxscore

import (
	"math"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	lru "github.com/hashicorp/golang-lru/v2"
)

// Decoded postings: zap keeps a word's postings compressed (a roaring
// bitmap of documents, and chunks of uvarints for the frequencies and
// norms), and stepping through them was about half of the 135 ns a
// walked posting cost at a million memories (EVALS.md, "Decoded
// postings for the text side"). A word of DecodePostings postings or
// more in a segment on disk keeps them decoded (a document number, a
// frequency and a field length: 8 bytes a posting), so walking and
// advancing it is stepping and searching in arrays. A segment never
// changes, so they are decoded once, every posting (deleted ones
// included: the walk skips the documents deleted in its snapshot), and
// kept in an LRU of at most the budget (SetDecodedBytes). The same
// postings give the same scores: the frequency and the field length are
// what zap's posting gives.

// DecodePostings is the fewest postings of a word in a segment for it to
// be kept decoded; 0 turns decoding off (tests and benchmarks).
var DecodePostings uint64 = 128

// DefaultDecodedBytes is the budget of decoded postings until
// SetDecodedBytes sets another.
const DefaultDecodedBytes = 512 << 20

// SetDecodedBytes sets the most the decoded postings of all indexes take
// together, process-wide (0: decode nothing), and lets go of the ones
// decoded least recently until they fit.
func SetDecodedBytes(n int64) {
	budget.Store(max(n, 0))
	fit()
}

// DecodedBytes is the budget of decoded postings.
func DecodedBytes() int64 { return budget.Load() }

// DecodedInUse is how many bytes the decoded postings take now.
func DecodedInUse() int64 { return decodedSize.Load() }

// decoded is one word's postings in one segment, in document order; a
// list with a posting that does not fit has none (unfit), so that it is
// not decoded again.
type decoded struct {
	docs  []uint32
	freqs []uint16
	lens  []uint16 // the field's length (zap's NormUint64)
	unfit bool
}

func (d *decoded) bytes() int64 { return int64(cap(d.docs))*4 + int64(cap(d.freqs)+cap(d.lens))*2 }

// postingsKey names a word's postings in a segment (the object, which
// the key keeps alive, so no other segment can take its address).
type postingsKey struct {
	seg   segment.Segment
	field string
	term  string
}

// decodedCache holds the decoded postings asked for most recently; their
// bytes are decodedSize, kept within budget by fit.
var (
	decodedCache, _ = lru.NewWithEvict[postingsKey, *decoded](1<<20, func(_ postingsKey, d *decoded) {
		decodedSize.Add(-d.bytes())
	})
	decodedSize atomic.Int64
	budget      = func() (b atomic.Int64) { b.Store(DefaultDecodedBytes); return }()
)

// fit lets go of the postings decoded least recently until they fit the
// budget.
func fit() {
	for decodedSize.Load() > budget.Load() {
		if _, _, ok := decodedCache.RemoveOldest(); !ok {
			return
		}
	}
}

// decodedOf is the decoded postings of term in field of segment seg
// (every posting, deleted ones included), kept or decoded now; nil when
// the word is too rare there, the segment is not on disk, or a posting
// does not fit.
func decodedOf(seg segment.Segment, field string, term []byte, live uint64) (*decoded, error) {
	if DecodePostings == 0 || live < DecodePostings {
		return nil, nil
	}
	if _, onDisk := seg.(segment.PersistedSegment); !onDisk {
		return nil, nil
	}
	key := postingsKey{seg, field, string(term)}
	if d, ok := decodedCache.Get(key); ok {
		return usable(d), nil
	}
	pl, err := allPostings(seg, field, term) // deletions only grow
	if err != nil {
		return nil, err
	}
	n := pl.Count()
	if int64(n)*8 > budget.Load()/4 {
		return nil, nil
	}
	d, err := decode(pl, n)
	if err != nil {
		return nil, err
	}
	// two recalls may have decoded the same list at once: the first one
	// kept is the one kept, and counted once
	decodedSize.Add(d.bytes())
	if prev, found, _ := decodedCache.PeekOrAdd(key, d); found {
		decodedSize.Add(-d.bytes())
		d = prev
	}
	fit()
	return usable(d), nil
}

func usable(d *decoded) *decoded {
	if d.unfit {
		return nil
	}
	return d
}

// decode decodes the n postings of pl; unfit when one does not fit (or
// its segment has no lengths to read).
func decode(pl segment.PostingsList, n uint64) (*decoded, error) {
	d := &decoded{docs: make([]uint32, 0, n), freqs: make([]uint16, 0, n), lens: make([]uint16, 0, n)}
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return nil, err
		}
		if p == nil {
			return d, nil
		}
		nb, ok := p.(normBits)
		if !ok {
			return &decoded{unfit: true}, nil
		}
		doc, freq, length := p.Number(), p.Frequency(), nb.NormUint64()
		if doc > math.MaxUint32 || freq > math.MaxUint16 || length > math.MaxUint16 {
			return &decoded{unfit: true}, nil
		}
		d.docs = append(d.docs, uint32(doc))
		d.freqs = append(d.freqs, uint16(freq))
		d.lens = append(d.lens, uint16(length))
	}
}

// decodedList is a word's postings list in a snapshot's segment, which a
// leaf walks from its decoded postings (walk); Count and the rest, and
// an Iterator for anyone else, are zap's list's.
type decodedList struct {
	segment.PostingsList
	d       *decoded
	deleted *roaring.Bitmap // nil: none
}

func newDecodedList(pl segment.PostingsList, d *decoded, deleted *roaring.Bitmap) *decodedList {
	if deleted != nil && deleted.IsEmpty() {
		deleted = nil
	}
	return &decodedList{PostingsList: pl, d: d, deleted: deleted}
}

// walk is an iterator at the list's first live posting (prealloc reused
// when not nil).
func (l *decodedList) walk(prealloc *decodedIterator) *decodedIterator {
	it := prealloc
	if it == nil {
		it = &decodedIterator{}
	}
	*it = decodedIterator{d: l.d, deleted: l.deleted, i: -1}
	it.step()
	return it
}

// decodedIterator walks decoded postings (a leaf steps, seeks and reads
// it directly, without zap's interfaces), from the first live posting.
type decodedIterator struct {
	d       *decoded
	deleted *roaring.Bitmap
	i       int
}

// step moves to the next live posting.
func (it *decodedIterator) step() { it.from(it.i + 1) }

// seek moves to the first live posting at or after document n, ahead of
// the current one or at it.
func (it *decodedIterator) seek(n uint64) {
	docs := it.d.docs
	lo := max(it.i, 0)
	if lo >= len(docs) || uint64(docs[lo]) >= n {
		return
	}
	// gallop from the current posting, then search the last step
	step, hi := 1, lo+1
	for hi < len(docs) && uint64(docs[hi]) < n {
		lo = hi
		step *= 2
		hi = lo + step
	}
	hi = min(hi, len(docs))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if uint64(docs[m]) < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	it.from(lo)
}

// from moves to the first live posting at index i or after it.
func (it *decodedIterator) from(i int) {
	docs := it.d.docs
	if it.deleted != nil {
		for i < len(docs) && it.deleted.Contains(docs[i]) {
			i++
		}
	}
	it.i = min(i, len(docs))
}

// doc is the current posting's document, done after the last.
func (it *decodedIterator) doc() uint64 {
	if it.i >= len(it.d.docs) {
		return done
	}
	return uint64(it.d.docs[it.i])
}

// posting is the current posting's frequency and field length.
func (it *decodedIterator) posting() (freq, length uint64) {
	return uint64(it.d.freqs[it.i]), uint64(it.d.lens[it.i])
}

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
// norms), and stepping through them costs about 50 ns a posting, most
// of a common word's walk at a million memories (EVALS.md, "Decoded
// postings"). A word of DecodePostings postings or more in a segment on
// disk keeps them decoded (a document number, a frequency and a field
// length: 8 bytes a posting), so walking and advancing it is stepping
// and searching in arrays. A segment never changes, so they are decoded
// once, every posting (deleted ones included: the iterator skips the
// documents deleted in the snapshot it walks), and kept in an LRU of at
// most DecodedBytes. The same postings give the same scores: the
// frequency and the field length are what zap's posting gives.
var (
	// DecodePostings is the fewest postings of a word in a segment for it
	// to be kept decoded; 0 turns decoding off.
	DecodePostings uint64 = 128
	// DecodedBytes is the most the decoded postings of all indexes take
	// together, process-wide (SetDecodedBytes).
	DecodedBytes int64 = 512 << 20
)

// SetDecodedBytes sets DecodedBytes (0: decode nothing), and lets go of
// the postings decoded least recently until they fit.
func SetDecodedBytes(n int64) {
	DecodedBytes = max(n, 0)
	for decodedSize.Load() > DecodedBytes {
		if _, _, ok := decodedCache.RemoveOldest(); !ok {
			break
		}
	}
}

// decoded is one word's postings in one segment, in document order.
type decoded struct {
	docs  []uint32
	freqs []uint16
	lens  []uint16 // the field's length (zap's NormUint64)
}

func (d *decoded) bytes() int64 { return int64(len(d.docs)) * 8 }

// postingsKey names a word's postings in a segment (the object, which
// the key keeps alive, so no other segment can take its address).
type postingsKey struct {
	seg   segment.Segment
	field string
	term  string
}

// decodedCache holds the decoded postings asked for most recently, at
// most DecodedBytes of them (decodedSize).
var (
	decodedCache, _ = lru.NewWithEvict[postingsKey, *decoded](1<<20, func(_ postingsKey, d *decoded) {
		decodedSize.Add(-d.bytes())
	})
	decodedSize atomic.Int64
)

// decodedOf is the decoded postings of term in field of segment seg
// (every posting), kept or decoded now; nil when the word is too rare
// there, the segment is not on disk, or a posting does not fit.
func decodedOf(seg segment.Segment, field string, term []byte, count uint64) (*decoded, error) {
	if DecodePostings == 0 || count < DecodePostings || int64(count)*8 > DecodedBytes/4 {
		return nil, nil
	}
	if _, onDisk := seg.(segment.PersistedSegment); !onDisk {
		return nil, nil
	}
	key := postingsKey{seg, field, string(term)}
	if d, ok := decodedCache.Get(key); ok {
		return d, nil
	}
	d := &decoded{docs: make([]uint32, 0, count), freqs: make([]uint16, 0, count), lens: make([]uint16, 0, count)}
	fits := true
	err := eachPosting(seg, field, term, func(p segment.Posting) {
		nb, ok := p.(normBits)
		if !ok || !fits {
			fits = false
			return
		}
		doc, freq, length := p.Number(), p.Frequency(), nb.NormUint64()
		if doc > math.MaxUint32 || freq > math.MaxUint16 || length > math.MaxUint16 {
			fits = false
			return
		}
		d.docs = append(d.docs, uint32(doc))
		d.freqs = append(d.freqs, uint16(freq))
		d.lens = append(d.lens, uint16(length))
	})
	if err != nil || !fits {
		return nil, err
	}
	decodedSize.Add(d.bytes())
	decodedCache.Add(key, d)
	SetDecodedBytes(DecodedBytes)
	return d, nil
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

// DecodedInUse is how many bytes the decoded postings take now.
func DecodedInUse() int64 { return decodedSize.Load() }

// Package vectors is the embedded store's vector side: one Index per
// namespace, holding every memory's windows (a long memory is embedded as
// several windows; a memory scores as its best window) and answering
// top-k searches by dot product, optionally filtered by session and by
// session-date range.
//
// Below Options.ApproxAt live windows (200,000 by default) a search is an
// exact scan: int8 codes scanned with SIMD (AVX-512 VNNI or AVX2, chosen at
// run time, pure Go otherwise), then a float32 re-score of only the rows
// whose proven error interval reaches the k-th best (quant.go explains the
// bound), so results are exactly those of a float32 scan. At and above it
// the namespace also keeps an inverted file over the same codes (ivf.go):
// a search scans the lists of the centroids nearest the query, exactly, and
// can miss only what lies in lists it did not probe; filtered searches
// whose filter leaves fewer rows than ApproxAt still scan everything.
// README.md has the design, the measurements and the snapshot format.
//
// Thread-safety: Add, Remove, Save, Release and Bulk need exclusive
// access; Search, Len, Rows, Stats, Check, IDs and Memory may run
// concurrently with each other. The
// embedded store's RWMutex gives exactly that (writers under Lock, recalls
// under RLock). A search beside a writer is not only a data race: memory
// off the heap that a writer gives back is unmapped at once.
package vectors

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

const (
	chunkShift = 12
	chunkRows  = 1 << chunkShift // rows per storage chunk
	chunkMask  = chunkRows - 1
	// MaxDims bounds the dimension so integer dot products of int8 codes
	// (with the VNNI kernel's +128 offset) cannot overflow int32.
	MaxDims = 16384
	// DefaultApproxAt is the number of live windows in a namespace at which
	// it gets an approximate index: below it the exact scan costs under
	// ~0.3x a plain float32 scan of the same rows (README.md).
	DefaultApproxAt = 200_000
	// DefaultNProbe is how many inverted lists a search scans.
	DefaultNProbe = 12
)

// Options tune an Index; the zero value gives the defaults.
type Options struct {
	// ApproxAt is the number of live windows at which the index builds its
	// inverted file (0: DefaultApproxAt; negative: never). It is dropped
	// again below ApproxAt/2 and rebuilt when the rows have doubled since.
	ApproxAt int
	// NProbe is how many lists a search scans; 0 calibrates it on the
	// index's own rows whenever the inverted file is built or loaded, to
	// the fewest that keep recall@10 at 0.99 on a sample (calibrate.go).
	NProbe int
	// Seed makes the k-means sample reproducible (0: a fixed seed).
	Seed uint64
}

func (o Options) withDefaults() Options {
	o.ApproxAt = cmp.Or(o.ApproxAt, DefaultApproxAt)
	o.NProbe = max(o.NProbe, 0)
	o.Seed = cmp.Or(o.Seed, 0x5eed)
	return o
}

// Index holds one namespace's vectors. The zero value is not usable; call
// New.
type Index struct {
	dims   int
	stride int // bytes per int8 row: dims rounded up to a multiple of 64
	opts   Options

	chunks   []*chunk
	rows     []rowInfo // by row; len is the high-water mark
	freeRows []int32
	live     int // rows in use

	mems     []memInfo // by memory slot
	slots    map[string]int32
	freeMems []int32

	sess sessTable

	// zone maps: the session-date range of each scanBlock rows (widened
	// as rows come, never narrowed), so a date filter skips whole blocks
	zmin, zmax []int64

	ivf *ivf // nil below ApproxAt
	// bulk holds the inverted file's builds and retrains back (Bulk)
	bulk bool
}

// chunk stores chunkRows rows (fewer while the index is small: the last
// chunk grows by doubling).
type chunk struct {
	f32 []float32 // dims per row
	i8  []int8    // stride per row
	m   *mapping  // what f32 and i8 may lie in: a snapshot file, or memory off the heap
}

type rowInfo struct {
	date  int64
	mem   int32 // memory slot; -1 when the row is free
	next  int32 // the memory's next window, -1 at the last
	sess  int32 // session ordinal (copied from the memory: filters read rows only)
	scale float32
	resid float32 // ‖x − x̂‖, rounded up
	norm  float32 // ‖x̂‖, rounded up
	sum   int32   // sum of the codes (the VNNI kernel's offset correction)
}

type memInfo struct {
	id    string
	first int32 // first window row
	nwin  int32
	sess  int32
	spos  int32 // position in its session's member list
	date  int64
}

// sessTable gives sessions small ordinals and lists their memories, so a
// session filter reads only that session's rows.
type sessTable struct {
	ord     map[string]int32
	name    []string
	members [][]int32 // memory slots
	rows    []int32   // live windows per session
	free    []int32
}

// New returns an empty index of dims-dimensional vectors.
func New(dims int, opts Options) (*Index, error) {
	if dims <= 0 || dims > MaxDims {
		return nil, fmt.Errorf("vectors: dims is %d; it must be between 1 and %d", dims, MaxDims)
	}
	return &Index{
		dims:   dims,
		stride: (dims + 63) &^ 63,
		opts:   opts.withDefaults(),
		slots:  map[string]int32{},
		sess:   sessTable{ord: map[string]int32{}},
	}, nil
}

// Dims is the dimension of the index's vectors.
func (x *Index) Dims() int { return x.dims }

// Len is the number of memories in the index.
func (x *Index) Len() int { return len(x.slots) }

// Rows is the number of windows in the index.
func (x *Index) Rows() int { return x.live }

// Approximate reports whether the index currently keeps its inverted file
// (and so answers unfiltered searches approximately).
func (x *Index) Approximate() bool { return x.ivf != nil }

// ErrInvalid is wrapped by the errors of Add and Search on bad input.
var ErrInvalid = errors.New("invalid vector input")

// Add stores memory id's windows (replacing any it had), with its session
// and session date (Unix nanoseconds). A memory without windows is only
// removed. Windows are copied. It fails, changing nothing, if a window has
// the wrong dimension or a non-finite value, or id is empty.
func (x *Index) Add(id, session string, date int64, windows [][]float32) error {
	if id == "" {
		return fmt.Errorf("%w: memory id is empty", ErrInvalid)
	}
	for i, w := range windows {
		if len(w) != x.dims {
			return fmt.Errorf("%w: window %d of memory %q has %d dimensions; the index holds %d", ErrInvalid, i, id, len(w), x.dims)
		}
		for j, v := range w {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: window %d of memory %q: value %d is %v, not a finite number", ErrInvalid, i, id, j, v)
			}
		}
	}
	x.Remove(id)
	if len(windows) == 0 {
		return nil
	}
	so := x.sess.get(session)
	slot := x.newMem(memInfo{id: id, first: -1, nwin: int32(len(windows)), sess: so, date: date})
	x.sess.join(so, slot, &x.mems[slot], len(windows))
	prev := int32(-1)
	for _, w := range windows {
		r := x.newRow()
		c, off := x.chunks[r>>chunkShift], int(r&chunkMask)
		copy(c.f32[off*x.dims:(off+1)*x.dims], w)
		scale, resid, norm, sum := quantize(w, c.i8[off*x.stride:(off+1)*x.stride])
		x.rows[r] = rowInfo{mem: slot, next: -1, sess: so, scale: scale, resid: resid, norm: norm, sum: sum, date: date}
		x.zone(r, date)
		if prev < 0 {
			x.mems[slot].first = r
		} else {
			x.rows[prev].next = r
		}
		prev = r
		x.live++
		if x.ivf != nil {
			x.ivf.add(x, r)
		}
	}
	x.buildDue()
	return nil
}

// buildDue builds the inverted file when the live rows reach ApproxAt, and
// retrains it when they have doubled since it was trained, unless Bulk
// holds it back.
func (x *Index) buildDue() {
	if !x.bulk && ((x.ivf == nil && x.opts.ApproxAt > 0 && x.live >= x.opts.ApproxAt) || (x.ivf != nil && x.live >= 2*x.ivf.trained)) {
		x.buildIVF()
	}
}

// Bulk(true) holds back the inverted file's builds and retrains while many
// rows are added (a namespace loaded from its records); Bulk(false) builds
// it once, on all the rows, if it is due. Without it, loading rows one
// Add at a time builds it at ApproxAt and again at each doubling, and
// files every row added in between alone, on one core: at 855,492 windows,
// 35 s of an open from the records. Searches meanwhile scan exactly. The
// caller has the index to itself, as for Add.
func (x *Index) Bulk(on bool) {
	x.bulk = on
	if !on {
		x.buildDue()
	}
}

// Remove drops the given memories' windows; unknown ids are ignored.
func (x *Index) Remove(ids ...string) {
	for _, id := range ids {
		slot, ok := x.slots[id]
		if !ok {
			continue
		}
		m := &x.mems[slot]
		for r := m.first; r >= 0; {
			next := x.rows[r].next
			if x.ivf != nil {
				x.ivf.remove(r, x.stride)
			}
			x.rows[r] = rowInfo{mem: -1, next: -1, sess: -1}
			x.freeRows = append(x.freeRows, r)
			x.live--
			r = next
		}
		x.sess.leave(m.sess, m.spos, int(m.nwin), x.mems)
		delete(x.slots, id)
		*m = memInfo{first: -1}
		x.freeMems = append(x.freeMems, slot)
	}
	if x.ivf != nil && x.live < x.opts.ApproxAt/2 {
		x.ivf.release()
		x.ivf = nil
	}
	if x.live == 0 {
		x.Release() // an emptied namespace gives its memory back
	}
}

// zone widens row r's block's date range to hold date.
func (x *Index) zone(r int32, date int64) {
	b := int(r) / scanBlock
	for len(x.zmin) <= b {
		x.zmin, x.zmax = append(x.zmin, date), append(x.zmax, date)
	}
	x.zmin[b], x.zmax[b] = min(x.zmin[b], date), max(x.zmax[b], date)
}

func (x *Index) newMem(m memInfo) int32 {
	var slot int32
	if n := len(x.freeMems); n > 0 {
		slot = x.freeMems[n-1]
		x.freeMems = x.freeMems[:n-1]
		x.mems[slot] = m
	} else {
		slot = int32(len(x.mems))
		x.mems = append(x.mems, m)
	}
	x.slots[m.id] = slot
	return slot
}

// newRow returns a free row, reusing freed ones first.
func (x *Index) newRow() int32 {
	if n := len(x.freeRows); n > 0 {
		r := x.freeRows[n-1]
		x.freeRows = x.freeRows[:n-1]
		return r
	}
	r := int32(len(x.rows))
	x.rows = append(x.rows, rowInfo{mem: -1, next: -1, sess: -1})
	ci, off := int(r>>chunkShift), int(r&chunkMask)
	if ci == len(x.chunks) {
		x.chunks = append(x.chunks, &chunk{})
	}
	c := x.chunks[ci]
	if off*x.dims >= len(c.f32) {
		// grow by doubling up to a full chunk, which lies off the heap;
		// past the first chunk, a chunk is full-sized from its first row
		// (its pages are only resident once written)
		n := min(chunkRows, max(16, 2*len(c.f32)/x.dims))
		if ci > 0 {
			n = chunkRows
		}
		if n < chunkRows || !c.offHeap(x.dims, x.stride) {
			c.f32 = grow(c.f32, n*x.dims)
			c.i8 = grow(c.i8, n*x.stride)
		}
	}
	if x.ivf != nil {
		x.ivf.grow(len(x.rows))
	}
	return r
}

// Release gives the index's memory back to the system now, rather than
// when the collector finds the index unreachable: the rows' chunks and the
// inverted lists off the heap, and the snapshot it was loaded from while
// its rows or lists lie in it (once they have all moved off it, the
// collector unmaps it). The index is empty after, as a new one; the caller
// has it to itself, as for Add.
func (x *Index) Release() {
	ms := []*mapping{}
	for _, c := range x.chunks {
		ms = append(ms, c.m)
	}
	if v := x.ivf; v != nil {
		ms = append(ms, v.m)
		v.release()
	}
	for _, m := range ms {
		m.release() // shared ones once: a second release does nothing
	}
	*x = Index{dims: x.dims, stride: x.stride, opts: x.opts, slots: map[string]int32{}, sess: sessTable{ord: map[string]int32{}}, bulk: x.bulk}
}

// offHeap moves c's rows into a full chunk's room outside the Go heap
// (anonMapping); false if there is none.
func (c *chunk) offHeap(dims, stride int) bool {
	nf := chunkRows * dims * 4
	m := anonMapping(nf + chunkRows*stride)
	if m == nil {
		return false
	}
	f32, i8 := sliceOf[float32](m.data[:nf:nf]), sliceOf[int8](m.data[nf:])
	copy(f32, c.f32)
	copy(i8, c.i8)
	c.f32, c.i8, c.m = f32, i8, m
	return true
}

func grow[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	t := make([]T, n)
	copy(t, s)
	return t
}

// rowF32 and rowI8 return a row's float32 values and int8 codes.
func (x *Index) rowF32(r int32) []float32 {
	c, off := x.chunks[r>>chunkShift], int(r&chunkMask)
	return c.f32[off*x.dims : (off+1)*x.dims : (off+1)*x.dims]
}

func (x *Index) rowI8(r int32) []int8 {
	c, off := x.chunks[r>>chunkShift], int(r&chunkMask)
	return c.i8[off*x.stride : (off+1)*x.stride : (off+1)*x.stride]
}

func (t *sessTable) get(name string) int32 {
	if o, ok := t.ord[name]; ok {
		return o
	}
	var o int32
	if n := len(t.free); n > 0 {
		o = t.free[n-1]
		t.free = t.free[:n-1]
		t.name[o] = name
	} else {
		o = int32(len(t.name))
		t.name = append(t.name, name)
		t.members = append(t.members, nil)
		t.rows = append(t.rows, 0)
	}
	t.ord[name] = o
	return o
}

func (t *sessTable) join(o, slot int32, m *memInfo, rows int) {
	m.spos = int32(len(t.members[o]))
	t.members[o] = append(t.members[o], slot)
	t.rows[o] += int32(rows)
}

func (t *sessTable) leave(o, pos int32, rows int, mems []memInfo) {
	list := t.members[o]
	last := list[len(list)-1]
	list[pos] = last
	mems[last].spos = pos
	t.members[o] = list[:len(list)-1]
	t.rows[o] -= int32(rows)
	if len(t.members[o]) == 0 {
		delete(t.ord, t.name[o])
		t.name[o] = ""
		t.members[o] = nil
		t.free = append(t.free, o)
	}
}

// Stats describes an index's size.
type Stats struct {
	Memories, Rows int
	Approximate    bool
	// Lists and Probe are the inverted file's lists and how many of them
	// a search scans (0 without one); Checked, how many searches since the
	// inverted file was built or loaded were checked against the exact
	// scan: the probe count follows the last 200 of them (calibrate.go),
	// so a count read from a few has yet to meet the rarer questions.
	// Found is the share of those checked searches' exact top ten that
	// Probe lists find (1 at the exact scan, or with no check yet).
	Lists, Probe, Checked int
	Found                 float64
	// Trained is how many rows the lists were trained on (the inverted
	// file is retrained when the rows have doubled since).
	Trained int
	// Bytes held, by part: the float32 copy (for re-scoring), the int8
	// codes (scanned), per-row and per-memory bookkeeping, the inverted
	// file.
	VectorBytes, CodeBytes, BookBytes, ApproxBytes int64
}

// Stats reports the index's size.
func (x *Index) Stats() Stats {
	st := Stats{Memories: x.Len(), Rows: x.live, Approximate: x.ivf != nil}
	for _, c := range x.chunks {
		st.VectorBytes += int64(cap(c.f32)) * 4
		st.CodeBytes += int64(cap(c.i8))
	}
	st.BookBytes = int64(cap(x.rows))*int64(unsafe.Sizeof(rowInfo{})) + int64(cap(x.mems))*int64(unsafe.Sizeof(memInfo{})) + int64(len(x.slots))*48
	for _, m := range x.mems {
		st.BookBytes += int64(len(m.id))
	}
	if v := x.ivf; v != nil {
		st.Lists, st.Trained = v.nlist, v.trained
		st.Probe, st.Checked, st.Found = v.stats()
		st.ApproxBytes = int64(len(v.cent))*4 + int64(len(v.codes)) + int64(cap(v.of)+cap(v.pos))*4
		for _, l := range v.lists {
			st.ApproxBytes += int64(cap(l))*4 + 24
		}
	}
	return st
}

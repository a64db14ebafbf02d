package vectors

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func mustNew(t testing.TB, dims int, o Options) *Index {
	t.Helper()
	x, err := New(dims, o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func add(t testing.TB, x *Index, ref map[string]genMem, ms ...genMem) {
	t.Helper()
	for _, m := range ms {
		if err := x.Add(m.id, m.session, m.date, m.windows); err != nil {
			t.Fatal(err)
		}
		if len(m.windows) == 0 {
			delete(ref, m.id)
		} else {
			ref[m.id] = m
		}
	}
}

func equal(got, want []Result) bool {
	return slices.Equal(got, want) || (len(got) == 0 && len(want) == 0)
}

// filters returns a spread of filters over the reference's sessions and
// dates: none, a session, date ranges of various widths, both.
func filters(r *rand.Rand, ref map[string]genMem) []Filter {
	var ms []genMem
	for _, m := range ref {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b genMem) int { return int(a.date - b.date) })
	fs := []Filter{{}, {Session: "no-such-session"}}
	if len(ms) == 0 {
		return fs
	}
	pick := func() genMem { return ms[r.IntN(len(ms))] }
	lo, hi := ms[0].date, ms[len(ms)-1].date
	fs = append(fs,
		Filter{Session: pick().session},
		Filter{Session: pick().session, After: pick().date},
		Filter{After: lo + (hi-lo)/2},
		Filter{Before: lo + (hi-lo)/3},
		Filter{After: lo + (hi-lo)/3, Before: lo + (hi-lo)/3 + (hi-lo)/20},
		Filter{After: hi + 1},
	)
	return fs
}

// checkExact checks that x answers exactly as brute force, through Search
// (SearchExact when x is approximate).
func checkExact(t *testing.T, x *Index, ref map[string]genMem, qs [][]float32, r *rand.Rand) {
	t.Helper()
	checkExactK(t, x, ref, qs, r, []int{1, 10, 30, len(ref) + 5})
}

func checkExactK(t *testing.T, x *Index, ref map[string]genMem, qs [][]float32, r *rand.Rand, ks []int) {
	t.Helper()
	search := x.Search
	if x.Approximate() {
		search = x.SearchExact
	}
	fs := filters(r, ref)
	for qi, q := range qs {
		for _, k := range ks {
			f := fs[(qi+k)%len(fs)]
			got, err := search(q, k, f)
			if err != nil {
				t.Fatal(err)
			}
			want := brute(ref, q, k, f)
			if !equal(got, want) {
				t.Fatalf("query %d, k=%d, filter %+v: got %d results, want %d\n got %v\nwant %v", qi, k, f, len(got), len(want), head(got), head(want))
			}
		}
	}
}

func head(rs []Result) []Result { return rs[:min(5, len(rs))] }

// The exact path returns exactly the brute-force float32 result, through
// adds, replacements, deletes and filters, with every int8 kernel.
func TestSearchExact(t *testing.T) {
	withKernels(t, func(t *testing.T, _ kernel) {
		for _, dims := range []int{3, 64, 100} {
			t.Run(fmt.Sprint("dims", dims), func(t *testing.T) {
				r := rand.New(rand.NewPCG(4, uint64(dims)))
				c := newCorpus(dims, 12, uint64(dims))
				x := mustNew(t, dims, Options{ApproxAt: -1})
				ref := map[string]genMem{}
				ms := c.memories(3000, "")
				add(t, x, ref, ms...)
				qs := c.queries(40)
				checkExact(t, x, ref, qs, r)

				// replace a third (new windows, sometimes another count or none)
				for i := 0; i < len(ms); i += 3 {
					m := ms[i]
					m.windows = c.memories(1, "x")[0].windows
					if i%9 == 0 {
						m.windows = nil
					}
					add(t, x, ref, m)
				}
				// delete some one by one and some in a batch
				var batch []string
				for i := 1; i < len(ms); i += 5 {
					if i%2 == 0 {
						x.Remove(ms[i].id)
					} else {
						batch = append(batch, ms[i].id)
					}
					delete(ref, ms[i].id)
				}
				x.Remove(batch...)
				add(t, x, ref, c.memories(500, "new")...)
				if x.Len() != len(ref) {
					t.Fatalf("Len = %d, want %d", x.Len(), len(ref))
				}
				checkExact(t, x, ref, qs, r)
			})
		}
	})
}

// Ties (identical windows under different ids) come out by id, as the
// store's order has always been.
func TestSearchTiesByID(t *testing.T) {
	c := newCorpus(32, 3, 5)
	x := mustNew(t, 32, Options{ApproxAt: -1})
	w := c.unit()
	for _, id := range []string{"d", "b", "e", "a", "c"} {
		if err := x.Add(id, "s", 1, [][]float32{w}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := x.Search(w, 3, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "a" || got[1].ID != "b" || got[2].ID != "c" || got[0].Score != got[2].Score {
		t.Fatalf("got %v, want a, b, c with equal scores", got)
	}
}

// The scan splits across goroutines past parallelRows rows; the split must
// not change the result.
func TestSearchExactParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds 70,000 rows")
	}
	c := newCorpus(16, 40, 6)
	x := mustNew(t, 16, Options{ApproxAt: -1})
	ref := map[string]genMem{}
	add(t, x, ref, c.memories(2*parallelRows+3000, "")...)
	if len(x.rows) <= parallelRows {
		t.Fatalf("only %d rows", len(x.rows))
	}
	checkExactK(t, x, ref, c.queries(16), rand.New(rand.NewPCG(6, 6)), []int{30})
}

func TestBadInput(t *testing.T) {
	if _, err := New(0, Options{}); err == nil {
		t.Error("New(0) succeeded")
	}
	if _, err := New(MaxDims+1, Options{}); err == nil {
		t.Error("New(MaxDims+1) succeeded")
	}
	x := mustNew(t, 4, Options{})
	for _, tc := range []struct {
		id string
		w  [][]float32
	}{
		{"", [][]float32{{1, 2, 3, 4}}},
		{"a", [][]float32{{1, 2, 3}}},
		{"a", [][]float32{{1, 2, 3, 4}, {1, float32(math.NaN()), 3, 4}}},
		{"a", [][]float32{{float32(math.Inf(1)), 2, 3, 4}}},
	} {
		if err := x.Add(tc.id, "s", 0, tc.w); !errors.Is(err, ErrInvalid) {
			t.Errorf("Add(%q, %v) = %v, want ErrInvalid", tc.id, tc.w, err)
		}
	}
	if x.Len() != 0 || x.Rows() != 0 {
		t.Fatalf("failed adds left %d memories, %d rows", x.Len(), x.Rows())
	}
	if err := x.Add("a", "s", 0, [][]float32{{1, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Search([]float32{1, 0}, 3, Filter{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Search of a 2-d query: %v, want ErrInvalid", err)
	}
	if _, err := x.Search([]float32{1, 0, float32(math.NaN()), 0}, 3, Filter{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Search of a NaN query: %v, want ErrInvalid", err)
	}
	if rs, err := x.Search([]float32{1, 0, 0, 0}, 0, Filter{}); err != nil || rs != nil {
		t.Errorf("k=0: %v, %v", rs, err)
	}
	// a zero vector is valid, and scores 0
	if err := x.Add("z", "s", 0, [][]float32{{0, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	rs, err := x.Search([]float32{0, 1, 0, 0}, 5, Filter{})
	if err != nil || len(rs) != 2 || rs[0].Score != 0 || rs[1].Score != 0 || rs[0].ID != "a" {
		t.Fatalf("got %v, %v", rs, err)
	}
}

// Removing everything gives the memory back; the index stays usable.
func TestEmptyAndReuse(t *testing.T) {
	c := newCorpus(8, 2, 7)
	x := mustNew(t, 8, Options{ApproxAt: -1})
	ref := map[string]genMem{}
	ms := c.memories(100, "")
	add(t, x, ref, ms...)
	for _, m := range ms {
		x.Remove(m.id)
	}
	if x.Len() != 0 || x.Rows() != 0 || len(x.rows) != 0 || len(x.chunks) != 0 {
		t.Fatalf("after removing all: %d memories, %d rows, %d row slots, %d chunks", x.Len(), x.Rows(), len(x.rows), len(x.chunks))
	}
	ref = map[string]genMem{}
	add(t, x, ref, ms[:10]...)
	checkExact(t, x, ref, c.queries(5), rand.New(rand.NewPCG(7, 7)))
}

// A full chunk's rows lie outside the Go heap (anonMapping), so the
// collector's pacing does not double the memory of a large index; the
// answers are the same, through growth, a snapshot and a load.
func TestFullChunksLieOffTheHeap(t *testing.T) {
	if anonMapping(4096) == nil {
		t.Skip("no anonymous mappings on this system: chunks stay on the heap")
	}
	const dims = 512
	c := newCorpus(dims, 20, 12)
	ms := c.memories(2*chunkRows+500, "")
	x := mustNew(t, dims, Options{ApproxAt: -1})
	ref := map[string]genMem{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	add(t, x, ref, ms...)
	runtime.GC()
	runtime.ReadMemStats(&after)
	full := len(x.rows) / chunkRows
	if full < 2 {
		t.Fatalf("only %d rows", len(x.rows))
	}
	vecs := uint64(len(x.rows) * (dims*4 + x.stride))
	if grew := after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc); grew > vecs/4 {
		t.Fatalf("the heap grew by %d bytes for %d bytes of vectors in %d rows", grew, vecs, len(x.rows))
	}
	// a few rows into the next chunk: past the first, a chunk starts
	// full-sized, off the heap
	for len(x.rows)%chunkRows == 0 || len(x.rows)%chunkRows > chunkRows/2 {
		add(t, x, ref, c.memories(1, fmt.Sprint("p", len(x.rows)))...)
	}
	for i, ch := range x.chunks {
		if ch.m == nil || len(ch.f32) != chunkRows*dims || len(ch.i8) != chunkRows*x.stride {
			t.Fatalf("chunk %d: mapping %v, %d floats, %d codes", i, ch.m != nil, len(ch.f32), len(ch.i8))
		}
	}
	r := rand.New(rand.NewPCG(12, 12))
	qs := c.queries(8)
	checkExact(t, x, ref, qs, r)

	path := filepath.Join(t.TempDir(), "vectors.snap")
	if err := x.Save(path, 1, ""); err != nil {
		t.Fatal(err)
	}
	y, _, err := Load(path, Options{ApproxAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	file := y.chunks[0].m
	last := len(y.chunks) - 1
	more := c.memories(chunkRows, "n")
	add(t, y, map[string]genMem{}, more...) // the loaded last chunk fills up
	add(t, x, ref, more...)
	if ch := y.chunks[last]; ch.m == nil || ch.m == file || len(ch.f32) != chunkRows*dims {
		t.Fatalf("the loaded last chunk, full: mapping %v (the file's: %v), %d floats", ch.m != nil, ch.m == file, len(ch.f32))
	}
	sameResults(t, x, y, qs, filters(r, ref))
	checkExact(t, y, ref, qs, r)
}

// Release gives the memory off the heap back at once, leaves an empty
// index that works as a new one, and releases a loaded snapshot's mapping
// too; a retrain gives back the old lists' rooms (TestListCodesMove: a
// list's old room when it moves).
func TestReleaseGivesMemoryBack(t *testing.T) {
	if !offHeapHere() {
		t.Skip("no anonymous mappings on this system: nothing lies off the heap")
	}
	c := newCorpus(32, 20, 13)
	x := mustNew(t, 32, Options{ApproxAt: 3000})
	add(t, x, map[string]genMem{}, c.memories(9000, "")...)
	v := x.ivf
	var rooms []*mapping
	for _, m := range v.own {
		if m != nil {
			rooms = append(rooms, m)
		}
	}
	if len(rooms) < len(v.own)/2 {
		t.Fatalf("%d of %d lists in a room off the heap", len(rooms), len(v.own))
	}
	add(t, x, map[string]genMem{}, c.memories(12000, "n")...) // the rows double: a retrain
	if x.ivf == v {
		t.Fatal("no retrain")
	}
	for i, m := range rooms {
		if m.data != nil {
			t.Fatalf("after the retrain, the old lists' room %d is still mapped", i)
		}
	}
	checkIVF(t, x)

	path := filepath.Join(t.TempDir(), "vectors.snap")
	if err := x.Save(path, 1, ""); err != nil {
		t.Fatal(err)
	}
	y, _, err := Load(path, Options{ApproxAt: 3000})
	if err != nil {
		t.Fatal(err)
	}
	chunk, file := x.chunks[0].m, y.chunks[0].m
	x.Release()
	y.Release()
	if chunk.data != nil || file.data != nil {
		t.Fatalf("after Release: a chunk still mapped %v, the snapshot %v", chunk.data != nil, file.data != nil)
	}
	q := c.queries(1)[0]
	for _, z := range []*Index{x, y} {
		if rs, err := z.Search(q, 10, Filter{}); err != nil || len(rs) != 0 || z.Len() != 0 || z.Rows() != 0 {
			t.Fatalf("released index: %d results (%v), %d memories, %d rows", len(rs), err, z.Len(), z.Rows())
		}
		ref := map[string]genMem{}
		add(t, z, ref, c.memories(50, "again")...)
		checkExact(t, z, ref, c.queries(3), rand.New(rand.NewPCG(13, 13)))
	}
}

package vectors

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func sameResults(t *testing.T, a, b *Index, qs [][]float32, fs []Filter) {
	t.Helper()
	for i, q := range qs {
		f := fs[i%len(fs)]
		ra, err := a.Search(q, 30, f)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.Search(q, 30, f)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(ra, rb) {
			t.Fatalf("query %d filter %+v: before save %v, after load %v", i, f, head(ra), head(rb))
		}
	}
}

// A saved index loads back identical (same answers, inverted file
// included), and keeps working: adds (into reused, mapped rows), removes, a
// new save.
func TestSaveLoad(t *testing.T) {
	t.Run("lists' codes in the file", func(t *testing.T) { testSaveLoad(t, true) })
	t.Run("lists' codes copied at load (older files)", func(t *testing.T) { testSaveLoad(t, false) })
}

func testSaveLoad(t *testing.T, listCodes bool) {
	saveListCodes = listCodes
	defer func() { saveListCodes = true }()
	for _, approxAt := range []int{-1, 1500} {
		c := newCorpus(40, 20, 11)
		x := mustNew(t, 40, Options{ApproxAt: approxAt})
		ref := map[string]genMem{}
		ms := c.memories(3000, "")
		add(t, x, ref, ms...)
		for i := 0; i < len(ms); i += 4 {
			x.Remove(ms[i].id)
			delete(ref, ms[i].id)
		}
		add(t, x, ref, c.memories(300, "n")...) // some reuse freed rows
		if (approxAt > 0) != x.Approximate() {
			t.Fatalf("ApproxAt %d: approximate %v", approxAt, x.Approximate())
		}
		path := filepath.Join(t.TempDir(), "vectors.snap")
		if err := x.Save(path, 42, "uselite-v1/512"); err != nil {
			t.Fatal(err)
		}
		y, info, err := Load(path, Options{ApproxAt: approxAt})
		if err != nil {
			t.Fatal(err)
		}
		if info.Stamp != 42 || info.Tag != "uselite-v1/512" {
			t.Fatalf("info %+v", info)
		}
		if y.Len() != x.Len() || y.Rows() != x.Rows() || y.Approximate() != x.Approximate() {
			t.Fatalf("loaded %d memories %d rows approximate %v; saved %d %d %v", y.Len(), y.Rows(), y.Approximate(), x.Len(), x.Rows(), x.Approximate())
		}
		qs := c.queries(40)
		rnd := rand.New(rand.NewPCG(11, 11))
		sameResults(t, x, y, qs, filters(rnd, ref))
		checkExact(t, y, ref, qs[:10], rnd)
		if approxAt > 0 {
			checkIVF(t, y)
			if mapped := y.ivf.m != nil; mapped != listCodes {
				t.Fatalf("lists' codes mapped %v, want %v", mapped, listCodes)
			}
		}

		// keep using the loaded index (a mapped list's codes are written
		// in place by removes and copied to the heap by appends)
		more := c.memories(500, "m")
		for i := 1; i < len(ms); i += 4 {
			x.Remove(ms[i].id)
			y.Remove(ms[i].id)
			delete(ref, ms[i].id)
		}
		add(t, x, ref, more...)
		add(t, y, map[string]genMem{}, more...)
		sameResults(t, x, y, qs, filters(rnd, ref))
		checkExact(t, y, ref, qs[:10], rnd)
		if approxAt > 0 {
			checkIVF(t, y)
		}
		if err := y.Save(path, 43, ""); err != nil {
			t.Fatal(err)
		}
		z, info, err := Load(path, Options{ApproxAt: approxAt})
		if err != nil || info.Stamp != 43 {
			t.Fatal(err, info)
		}
		sameResults(t, y, z, qs, filters(rnd, ref))
		if approxAt > 0 {
			checkIVF(t, z)
		}
	}
}

// A damaged file is an error wrapping ErrCorrupt, whatever was damaged; a
// missing one wraps os.ErrNotExist.
func TestLoadDamaged(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Load(filepath.Join(dir, "none"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	c := newCorpus(16, 4, 12)
	x := mustNew(t, 16, Options{ApproxAt: 200})
	add(t, x, map[string]genMem{}, c.memories(400, "")...)
	path := filepath.Join(dir, "v.snap")
	if err := x.Save(path, 1, "t"); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damage := func(name string, b []byte) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Load(p, Options{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Load = %v, want ErrCorrupt", name, err)
		}
	}
	damage("short", good[:100])
	damage("truncated", good[:len(good)-1])
	damage("not-a-snapshot", make([]byte, 8192))
	for i := range nSections {
		o := hSections + 20*i
		off, n := binary.LittleEndian.Uint64(good[o:]), binary.LittleEndian.Uint64(good[o+8:])
		if n == 0 {
			continue
		}
		b := append([]byte(nil), good...)
		b[off+n/2] ^= 0x10
		damage("section"+string(rune('0'+i)), b)
	}
	b := append([]byte(nil), good...)
	b[hRows] ^= 1
	damage("header", b)
}

package cache

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory/embedder"
)

// counter is a fake embedder that records every call. Its vector for a
// text depends on the text and the ID, so a cross-ID hit would show.
type counter struct {
	id   string
	dims int
	err  error

	mu    sync.Mutex
	calls [][]string
}

func (c *counter) ID() string { return c.id }
func (c *counter) Dims() int  { return c.dims }

func (c *counter) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.calls = append(c.calls, slices.Clone(texts))
	c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = vec(c.id, t, 0, c.dims)
	}
	return out, nil
}

func (c *counter) Calls() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls)
}

// windowed is a DocumentEmbedder with one window per word.
type windowed struct{ counter }

func (w *windowed) EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error) {
	w.mu.Lock()
	w.calls = append(w.calls, slices.Clone(texts))
	w.mu.Unlock()
	out := make([][][]float32, len(texts))
	for i, t := range texts {
		for j := range strings.Fields(t) {
			out[i] = append(out[i], vec(w.id, t, j+1, w.dims))
		}
	}
	return out, nil
}

func vec(id, text string, window, dims int) []float32 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", id, text, window)
	s := h.Sum64()
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(int64(s>>(i%60))&0xff) - 127.5
	}
	return v
}

func open(t testing.TB, path string, e embedder.Embedder) *Embedder {
	t.Helper()
	c, err := Open(path, e)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func embed(t *testing.T, c *Embedder, texts ...string) [][]float32 {
	t.Helper()
	vs, err := c.Embed(t.Context(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if want := vec(c.ID(), texts[i], 0, c.Dims()); !slices.Equal(v, want) {
			t.Fatalf("vector for %q = %v, want %v", texts[i], v, want)
		}
	}
	return vs
}

func TestMissesThenHits(t *testing.T) {
	f := &counter{id: "fake:a", dims: 8}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)

	embed(t, c, "Caroline went to the LGBTQ support group", "Melanie painted a sunrise")
	embed(t, c, "Melanie painted a sunrise", "new text", "Caroline went to the LGBTQ support group", "new text", "other")
	embed(t, c, "other", "new text", "Melanie painted a sunrise")

	want := [][]string{
		{"Caroline went to the LGBTQ support group", "Melanie painted a sunrise"},
		{"new text", "other"}, // only the misses, once each, in order
	}
	if got := f.Calls(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("wrapped calls = %q, want %q", got, want)
	}
	if s := c.Stats(); s != (Stats{Hits: 6, Misses: 4}) {
		t.Errorf("Stats = %+v, want 6 hits, 4 misses", s)
	}
	if _, err := c.Embed(t.Context(), nil); err != nil || len(f.Calls()) != 2 {
		t.Errorf("Embed(nil) = %v, or called the wrapped embedder", err)
	}
}

func TestReopenKeepsHits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	f := &counter{id: "fake:a", dims: 8}
	c, err := Open(path, f)
	if err != nil {
		t.Fatal(err)
	}
	embed(t, c, "one", "two")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c = open(t, path, f)
	embed(t, c, "two", "one")
	if n := len(f.Calls()); n != 1 {
		t.Errorf("wrapped embedder called %d times across reopen, want 1", n)
	}
	if s := c.Stats(); s.Hits != 2 || s.Misses != 0 {
		t.Errorf("Stats after reopen = %+v, want 2 hits", s)
	}
}

func TestIDsAreSeparate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.db")
	a := &counter{id: "fake:a", dims: 8}
	ca, err := Open(path, a)
	if err != nil {
		t.Fatal(err)
	}
	embed(t, ca, "same text")
	ca.Close()

	for _, b := range []*counter{
		{id: "fake:b", dims: 8},
		{id: "fake:a@4", dims: 4},
	} {
		cb := open(t, path, b)
		embed(t, cb, "same text") // checks the vector is b's, not a's
		if n := len(b.Calls()); n != 1 {
			t.Errorf("%s: wrapped embedder called %d times, want 1 (hit another ID's entry?)", b.id, n)
		}
		cb.Close()
	}
}

func TestCorruptValuesAreMisses(t *testing.T) {
	good := encode([][]float32{vec("fake:a", "x", 0, 8)})
	tests := []struct {
		name  string
		value []byte
	}{
		{"empty", []byte{}},
		{"short", good[:3]},
		{"truncated", good[:len(good)-5]},
		{"bit flip", func() []byte { b := slices.Clone(good); b[9] ^= 0x10; return b }()},
		{"wrong dims", encode([][]float32{make([]float32, 7)})},
		{"two vectors", encode([][]float32{make([]float32, 8), make([]float32, 8)})},
		{"huge count", hugeCount(8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &counter{id: "fake:a", dims: 8}
			c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
			embed(t, c, "x")
			err := c.db.Update(func(tx *bolt.Tx) error {
				return c.bucketIn(tx).Put(key(kindVector, "x"), tt.value)
			})
			if err != nil {
				t.Fatal(err)
			}
			embed(t, c, "x") // must re-embed, not crash or return garbage
			embed(t, c, "x") // and the rewrite must make it a hit again
			if n := len(f.Calls()); n != 2 {
				t.Errorf("wrapped embedder called %d times, want 2", n)
			}
			if s := c.Stats(); s != (Stats{Hits: 1, Misses: 2}) {
				t.Errorf("Stats = %+v", s)
			}
		})
	}
}

// hugeCount is a value with a valid checksum whose window count (2^64-1)
// does not match its one-vector payload.
func hugeCount(dims int) []byte {
	b := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	b = append(b, make([]byte, 4*dims)...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func TestDecode(t *testing.T) {
	ws := [][]float32{{1, -2, 3.5}, {0, 1e-30, -7}}
	if got := decode(encode(ws), 3, kindWindows); !slices.EqualFunc(got, ws, slices.Equal) {
		t.Errorf("round trip = %v, want %v", got, ws)
	}
	if got := decode(encode(nil), 3, kindWindows); got == nil || len(got) != 0 {
		t.Errorf("zero windows decode to %v, want empty non-nil", got)
	}
	for _, bad := range [][]byte{nil, {1}, hugeCount(3), encode(ws)[:20]} {
		if got := decode(bad, 3, kindWindows); got != nil {
			t.Errorf("decode(%v) = %v, want nil", bad, got)
		}
	}
}

func TestDocuments(t *testing.T) {
	f := &windowed{counter{id: "fake:win", dims: 4}}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
	texts := []string{"a b c", "d", "a b c"}

	for range 2 {
		got, err := embedder.EmbedDocuments(t.Context(), c, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, ws := range got {
			n := len(strings.Fields(texts[i]))
			if len(ws) != n {
				t.Fatalf("%q: %d windows, want %d", texts[i], len(ws), n)
			}
			for j, v := range ws {
				if !slices.Equal(v, vec(f.id, texts[i], j+1, 4)) {
					t.Fatalf("%q window %d wrong", texts[i], j)
				}
			}
		}
	}
	if got := f.Calls(); len(got) != 1 || !slices.Equal(got[0], []string{"a b c", "d"}) {
		t.Errorf("wrapped calls = %q, want one with the two distinct texts", got)
	}
	// Embed of a windowed embedder is a different vector: not served from
	// the window entries.
	embed(t, c, "a b c")
	if n := len(f.Calls()); n != 2 {
		t.Errorf("Embed after EmbedDocuments made %d wrapped calls in all, want 2", n)
	}
}

func TestDocumentsOfPlainEmbedder(t *testing.T) {
	f := &counter{id: "fake:a", dims: 4}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
	embed(t, c, "hello")
	got, err := c.EmbedDocuments(t.Context(), []string{"hello", "world"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 1 || !slices.Equal(got[0][0], vec(f.id, "hello", 0, 4)) ||
		len(got[1]) != 1 || !slices.Equal(got[1][0], vec(f.id, "world", 0, 4)) {
		t.Errorf("EmbedDocuments = %v", got)
	}
	// "hello" came from Embed's entry.
	if calls := f.Calls(); len(calls) != 2 || !slices.Equal(calls[1], []string{"world"}) {
		t.Errorf("wrapped calls = %q", calls)
	}
}

func TestResultsAreIndependent(t *testing.T) {
	f := &counter{id: "fake:a", dims: 4}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
	vs := embed(t, c, "dup", "dup")
	vs[0][0] = 999
	if vs[1][0] == 999 {
		t.Error("repeated text shares its vector with the first occurrence")
	}
	embed(t, c, "dup") // checks the stored value was not changed either
}

func TestWrappedErrors(t *testing.T) {
	boom := errors.New("model unavailable")
	f := &counter{id: "fake:a", dims: 4, err: boom}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
	if _, err := c.Embed(t.Context(), []string{"x"}); !errors.Is(err, boom) {
		t.Fatalf("error = %v, want the wrapped embedder's", err)
	}
	f.err = nil
	embed(t, c, "x") // nothing was cached by the failed call
	if n := len(f.Calls()); n != 2 {
		t.Errorf("%d wrapped calls, want 2", n)
	}

	bad := &lying{counter{id: "fake:liar", dims: 4}}
	c = open(t, filepath.Join(t.TempDir(), "cache.db"), bad)
	if _, err := c.Embed(t.Context(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "3-dim") {
		t.Errorf("error = %v, want a dims complaint", err)
	}
}

// lying claims 4 dims but returns 3.
type lying struct{ counter }

func (l *lying) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, _ := l.counter.Embed(ctx, texts)
	for i := range vs {
		vs[i] = vs[i][:3]
	}
	return vs, nil
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, e := range []embedder.Embedder{nil, &counter{id: "x", dims: 0}, &counter{id: "", dims: 3}} {
		if c, err := Open(filepath.Join(dir, "c.db"), e); err == nil {
			c.Close()
			t.Errorf("Open with %v succeeded", e)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing", "dir", "c.db"), &counter{id: "x", dims: 3}); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

func TestConcurrent(t *testing.T) {
	f := &counter{id: "fake:a", dims: 16}
	c := open(t, filepath.Join(t.TempDir(), "cache.db"), f)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				texts := []string{fmt.Sprint("text ", i), fmt.Sprint("text ", (i+g)%50)}
				vs, err := c.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for k, v := range vs {
					if !slices.Equal(v, vec(f.id, texts[k], 0, 16)) {
						t.Errorf("wrong vector for %q", texts[k])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	s := c.Stats()
	if s.Hits+s.Misses != 8*50*2 || s.Misses < 50 || s.Errors != 0 {
		t.Errorf("Stats = %+v, want %d inputs, at least 50 misses, no errors", s, 8*50*2)
	}
}

// BenchmarkHit measures a fully cached batch of 32 turn-sized texts of a
// 384-dim model, the common case on reindex.
func BenchmarkHit(b *testing.B) {
	for _, dims := range []int{384, 1536} {
		b.Run(fmt.Sprint(dims, "d"), func(b *testing.B) {
			f := &counter{id: "fake:a", dims: dims}
			c := open(b, filepath.Join(b.TempDir(), "cache.db"), f)
			texts := make([]string, 32)
			for i := range texts {
				texts[i] = fmt.Sprintf("%d: Yesterday I went to the Nordstrom friends and family sale and bought a coat for $120; %s",
					i, strings.Repeat("it was a long day ", 12))
			}
			ctx := context.Background()
			if _, err := c.Embed(ctx, texts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
			if n := len(f.Calls()); n != 1 {
				b.Fatalf("%d wrapped calls", n)
			}
		})
	}
}

func key(kind byte, text string) []byte { return appendKey(nil, kind, text) }

// A damaged cache file is never a panic or a fault: Open says ErrDamaged
// (and Discard makes room for a new one), or, for damage only a read
// meets, the cache tells OnDamage once and embeds without it.
func TestDamagedFile(t *testing.T) {
	fill := func(t *testing.T) (string, *counter) {
		path := filepath.Join(t.TempDir(), "cache.db")
		f := &counter{id: "fake:a", dims: 8}
		c, err := Open(path, f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			embed(t, c, fmt.Sprintf("text number %d", i))
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		return path, f
	}
	size := func(t *testing.T, path string) int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	overwrite := func(t *testing.T, path string, from, to int64) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(to-from)), from); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"truncated to two pages", func(t *testing.T, path string) { os.Truncate(path, 8192) }},
		{"truncated to half", func(t *testing.T, path string) { os.Truncate(path, size(t, path)/2) }},
		{"its meta pages overwritten", func(t *testing.T, path string) { overwrite(t, path, 0, 8192) }},
		{"its pages overwritten", func(t *testing.T, path string) { overwrite(t, path, 8192, size(t, path)) }},
		{"its leaf pages overwritten", func(t *testing.T, path string) {
			// the pages that hold entries, the freelist and the branches
			// left whole: Open reads those, a Get these
			db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
			if err != nil {
				t.Fatal(err)
			}
			var leaves []int64
			var psize int64
			db.View(func(tx *bolt.Tx) error {
				psize = int64(tx.DB().Info().PageSize)
				for id := 2; ; id++ {
					p, err := tx.Page(id)
					if err != nil || p == nil {
						return nil
					}
					if p.Type == "leaf" && p.Count > 1 { // not the root bucket's
						leaves = append(leaves, int64(id))
					}
				}
			})
			db.Close()
			if len(leaves) < 2 {
				t.Fatalf("%d leaf pages", len(leaves))
			}
			for _, id := range leaves {
				overwrite(t, path, id*psize, (id+1)*psize)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, f := fill(t)
			c.damage(t, path)
			cache, err := Open(path, f)
			if err != nil {
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
					t.Fatalf("Open of a damaged file: %v; want ErrDamaged naming the file", err)
				}
				if _, err := Discard(path); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(path + ".damaged"); err != nil {
					t.Errorf("Discard left no %s.damaged: %v", path, err)
				}
				t.Logf("Open: %v", err)
				cache = open(t, path, f) // a new one
				embed(t, cache, "text number 1", "a new text")
				return
			}
			// damage Open could not see: reads meet it
			t.Log("opened")
			var told []error
			cache.OnDamage = func(err error) { told = append(told, err) }
			defer cache.Close()
			calls := len(f.Calls())
			embed(t, cache, "text number 1", "text number 2")
			embed(t, cache, "text number 3")
			if len(told) != 1 || !errors.Is(told[0], ErrDamaged) {
				t.Errorf("OnDamage told %v, want one ErrDamaged", told)
			}
			if got := len(f.Calls()) - calls; got != 2 {
				t.Errorf("%d calls of the wrapped embedder after the damage, want 2 (the cache bypassed)", got)
			}
		})
	}
}

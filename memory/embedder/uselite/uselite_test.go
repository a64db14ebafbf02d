package uselite

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"agentmem/memory/embedder"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s // both are unit vectors
}

func vecNorm(v []float32) float64 { return math.Sqrt(cosine(v, v)) }

func TestIdentity(t *testing.T) {
	m := testModel(t)
	if m.ID() != "builtin:use-lite-en@1" || m.Dims() != 512 {
		t.Fatalf("ID %q, Dims %d", m.ID(), m.Dims())
	}
	m2, err := New()
	if err != nil || m2 != m {
		t.Fatalf("New again: %p, %v; want the same model %p", m2, err, m)
	}
	var _ embedder.DocumentEmbedder = m
}

func TestEmptyInput(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	for _, texts := range [][]string{nil, {}} {
		vs, err := m.Embed(ctx, texts)
		if err != nil || vs == nil || len(vs) != 0 {
			t.Fatalf("Embed(%#v) = %v, %v; want an empty slice", texts, vs, err)
		}
		ds, err := m.EmbedDocuments(ctx, texts)
		if err != nil || ds == nil || len(ds) != 0 {
			t.Fatalf("EmbedDocuments(%#v) = %v, %v; want an empty slice", texts, ds, err)
		}
	}
}

func TestVectorsAreNormalised(t *testing.T) {
	m := testModel(t)
	texts := []string{"", " ", "a", "🚀", strings.Repeat("long text ", 200), "Hello, world!"}
	docs, err := m.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, ws := range docs {
		for k, v := range ws {
			if len(v) != m.Dims() || math.Abs(vecNorm(v)-1) > 1e-5 {
				t.Errorf("text %d window %d: %d dims, norm %v", i, k, len(v), vecNorm(v))
			}
		}
	}
}

func TestWindows(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 200, 224, 225, 320, 321, 1000, 1068} {
		ws := Windows(n)
		want := 1
		if n > Window {
			want = 1 + (n-Window+Stride-1)/Stride
		}
		if len(ws) != want {
			t.Errorf("n=%d: %d windows, want %d", n, len(ws), want)
		}
		if ws[0][0] != 0 || ws[len(ws)-1][1] != n {
			t.Errorf("n=%d: windows %v do not span the text", n, ws)
		}
		for k, w := range ws {
			if w[1]-w[0] > Window || w[0] != k*Stride || w[1] <= w[0] && n > 0 {
				t.Errorf("n=%d: window %d is %v", n, k, w)
			}
			if k > 0 && ws[k-1][1]-w[0] != Window-Stride {
				t.Errorf("n=%d: windows %d and %d overlap by %d", n, k-1, k, ws[k-1][1]-w[0])
			}
		}
	}
}

// TestLongTextTail checks what the windows are for: a fact that only the tail
// of a long memory states is found through the memory's best window, where
// its first window (all that Embed reads) would miss it.
func TestLongTextTail(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	filler := "The build pipeline compiles the services, runs the unit tests, and publishes container images to the registry. " +
		"Release notes are drafted from merged pull requests and reviewed before each deployment. "
	tail := "Unrelated personal note: my sister's dog is a golden retriever named Biscuit who loves swimming in the lake."
	doc := strings.Repeat(filler, 6) + tail
	query := "What is the name of my sister's dog?"

	n := len(m.Tokenize(doc))
	if n <= 2*Window {
		t.Fatalf("document has only %d tokens", n)
	}
	docs, err := m.EmbedDocuments(ctx, []string{doc})
	if err != nil {
		t.Fatal(err)
	}
	ws := docs[0]
	if len(ws) < 2 || len(ws) != len(Windows(n)) {
		t.Fatalf("%d tokens gave %d windows", n, len(ws))
	}
	q, err := m.Embed(ctx, []string{query})
	if err != nil {
		t.Fatal(err)
	}
	first := cosine(q[0], ws[0])
	best, bestK := -2.0, -1
	for k, w := range ws {
		if c := cosine(q[0], w); c > best {
			best, bestK = c, k
		}
	}
	t.Logf("%d tokens, %d windows; query vs first window %.3f, best window %d: %.3f", n, len(ws), first, bestK, best)
	if bestK != len(ws)-1 {
		t.Errorf("best window is %d, want the last (%d), which holds the tail", bestK, len(ws)-1)
	}
	if best < first+0.1 {
		t.Errorf("best window scores %.3f, first window %.3f: the tail is not found", best, first)
	}
	plain, err := m.Embed(ctx, []string{doc})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain[0], ws[0]) {
		t.Error("Embed of a long text differs from its first window")
	}
}

// TestSemanticSanity checks that related sentences are closer than unrelated
// ones (a smoke test of the whole pipeline, not of model quality).
func TestSemanticSanity(t *testing.T) {
	m := testModel(t)
	vs, err := m.Embed(context.Background(), []string{
		"The user prefers dark mode in the editor.",
		"Which colour theme does the user like?",
		"The invoice is due on the first of the month.",
	})
	if err != nil {
		t.Fatal(err)
	}
	related, unrelated := cosine(vs[0], vs[1]), cosine(vs[1], vs[2])
	if related <= unrelated {
		t.Errorf("related %.3f <= unrelated %.3f", related, unrelated)
	}
}

// TestConcurrent runs Embed and EmbedDocuments from several goroutines at
// once (run it with -race) and checks that every result equals the one
// computed alone: results do not depend on batching or parallelism.
func TestConcurrent(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	texts := []string{"alpha", "the second memory is a little longer than the first one", "",
		strings.Repeat("windows ", 150), "ünïcödé 🚀", "x"}
	want := make([][][]float32, len(texts))
	for i, s := range texts {
		d, err := m.EmbedDocuments(ctx, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = d[0]
	}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				// Rotate the batch so that goroutines differ.
				batch := append(slices.Clone(texts[g%len(texts):]), texts[:g%len(texts)]...)
				vs, err := m.Embed(ctx, batch)
				if err != nil {
					errs <- err
					return
				}
				ds, err := m.EmbedDocuments(ctx, batch)
				if err != nil {
					errs <- err
					return
				}
				for i := range batch {
					j := (i + g) % len(texts)
					if !slices.Equal(vs[i], want[j][0]) {
						errs <- fmt.Errorf("goroutine %d: Embed of text %d differs", g, j)
					}
					if len(ds[i]) != len(want[j]) {
						errs <- fmt.Errorf("goroutine %d: text %d has %d windows, want %d", g, j, len(ds[i]), len(want[j]))
						continue
					}
					for k := range ds[i] {
						if !slices.Equal(ds[i][k], want[j][k]) {
							errs <- fmt.Errorf("goroutine %d: window %d of text %d differs", g, k, j)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCanceledContext(t *testing.T) {
	m := testModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, []string{"a", "b"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed: %v, want context.Canceled", err)
	}
	if _, err := m.EmbedDocuments(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedDocuments: %v, want context.Canceled", err)
	}
}

// TestInvalidUTF8 checks that bytes JavaScript could not hold are read as
// U+FFFD rather than failing.
func TestInvalidUTF8(t *testing.T) {
	m := testModel(t)
	if got, want := m.Tokenize("a\xffb"), m.Tokenize("a\uFFFDb"); !slices.Equal(got, want) {
		t.Errorf("tokens %v, want %v", got, want)
	}
	if _, err := m.Embed(context.Background(), []string{"\xff\xfe\xfd"}); err != nil {
		t.Error(err)
	}
}

// copyModel returns a writable copy of the embedded model directory.
func copyModel(t *testing.T) fstest.MapFS {
	t.Helper()
	src := embeddedModel()
	dst := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		dst[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestLoadChecksWeights checks that damaged or missing model files are an
// error from load, not a panic or a wrong model.
func TestLoadChecksWeights(t *testing.T) {
	if _, err := load(copyModel(t), haveVNNI); err != nil {
		t.Fatalf("intact copy: %v", err)
	}
	for name, damage := range map[string]func(fstest.MapFS){
		"flipped shard byte": func(f fstest.MapFS) { f["group1-shard3of7"].Data[12345] ^= 1 },
		"missing shard":      func(f fstest.MapFS) { delete(f, "group1-shard7of7") },
		"edited vocab":       func(f fstest.MapFS) { f["vocab.json"].Data[10] = ' ' },
		"no SHA256SUMS":      func(f fstest.MapFS) { delete(f, "SHA256SUMS") },
	} {
		f := copyModel(t)
		damage(f)
		if _, err := load(f, haveVNNI); err == nil {
			t.Errorf("%s: load succeeded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestIDPinsModelAndWindows fails when the weights or the windowing change
// without a new ID: stores compare vectors only under the same ID. If you
// change either on purpose, bump the "@N" of ID and update the pins here.
func TestIDPinsModelAndWindows(t *testing.T) {
	sums, err := fs.ReadFile(embeddedModel(), "SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s window=%d stride=%d sums=%x", ID, Window, Stride, sha256.Sum256(sums))
	const want = "builtin:use-lite-en@1 window=128 stride=96 sums=8edbcc40938f585387aca4b77e3fa01151e8e1bbb17373c07c36ee2c125c7647"
	if got != want {
		t.Errorf("model identity is\n%s\nwant\n%s\n(bump ID when the weights or the windowing change)", got, want)
	}
}

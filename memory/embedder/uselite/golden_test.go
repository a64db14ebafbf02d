package uselite

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

type goldenCase struct {
	Name      string    `json:"name"`
	Text      string    `json:"text"`
	Tokens    []int     `json:"tokens"`
	Embedding []float32 `json:"embedding"`
	Windows   []struct {
		Start     int       `json:"start"`
		End       int       `json:"end"`
		Embedding []float32 `json:"embedding"`
	} `json:"windows"`
}

type goldenFile struct {
	Window int          `json:"window"`
	Stride int          `json:"stride"`
	Cases  []goldenCase `json:"cases"`
}

func readGolden(t testing.TB) goldenFile {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func testModel(t testing.TB) *Model {
	t.Helper()
	m, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tolerance is the largest difference allowed per component between the Go
// vectors and the TF.js reference.
const tolerance = 1e-5

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

func TestGoldenTokens(t *testing.T) {
	g := readGolden(t)
	m := testModel(t)
	if len(g.Cases) < 30 {
		t.Fatalf("only %d golden cases", len(g.Cases))
	}
	for _, c := range g.Cases {
		got := m.Tokenize(c.Text)
		if !slices.Equal(got, c.Tokens) {
			t.Errorf("%s: tokens\n got %v\nwant %v", c.Name, got, c.Tokens)
		}
	}
}

// pathModel loads a model that runs the float32 path (int8 false) or the
// int8 path (on the VNNI kernel where the CPU has it, else on the portable
// int8 kernel).
func pathModel(t testing.TB, int8 bool) *Model {
	t.Helper()
	m, err := load(embeddedModel(), int8)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGoldenVectors checks the float32 path (the only one on CPUs without
// AVX-512 VNNI) against the TF.js reference, component by component.
func TestGoldenVectors(t *testing.T) {
	g := readGolden(t)
	if g.Window != Window || g.Stride != Stride {
		t.Fatalf("fixture windows %d/%d, package %d/%d", g.Window, g.Stride, Window, Stride)
	}
	goldenExact(t, pathModel(t, false), g.Cases)
}

// embedGolden embeds the cases' texts with Embed and EmbedDocuments.
func embedGolden(t *testing.T, m *Model, cases []goldenCase) (vs [][]float32, docs [][][]float32) {
	t.Helper()
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	ctx := context.Background()
	vs, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	docs, err = m.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	return vs, docs
}

// goldenExact checks m's vectors for cases against the reference to within
// tolerance per component.
func goldenExact(t *testing.T, m *Model, cases []goldenCase) {
	t.Helper()
	vs, docs := embedGolden(t, m, cases)
	worst := 0.0
	windows := 0
	for i, c := range cases {
		d := maxDiff(vs[i], c.Embedding)
		worst = max(worst, d)
		if d > tolerance {
			t.Errorf("%s: max component difference %.3g", c.Name, d)
		}
		want := len(c.Windows)
		if want == 0 {
			want = 1
		}
		if len(docs[i]) != want {
			t.Errorf("%s: %d windows, want %d", c.Name, len(docs[i]), want)
			continue
		}
		if d := maxDiff(docs[i][0], vs[i]); d != 0 {
			t.Errorf("%s: first window differs from Embed by %.3g", c.Name, d)
		}
		for k, w := range c.Windows {
			windows++
			if got := Windows(len(c.Tokens))[k]; got != [2]int{w.Start, w.End} {
				t.Errorf("%s: window %d is %v, fixture has [%d %d]", c.Name, k, got, w.Start, w.End)
			}
			d := maxDiff(docs[i][k], w.Embedding)
			worst = max(worst, d)
			if d > tolerance {
				t.Errorf("%s: window %d: max component difference %.3g", c.Name, k, d)
			}
		}
	}
	t.Logf("%d texts, %d extra windows: worst component difference %.3g", len(cases), windows, worst)
}

// int8Cosine is the least cosine similarity allowed between the int8 path's
// vectors and the TF.js reference.
const int8Cosine = 0.99

// TestGoldenVectorsInt8 checks the int8 path against the same reference, by
// cosine similarity: every vector, Embed's and each window's.
func TestGoldenVectorsInt8(t *testing.T) {
	g := readGolden(t)
	cases, least := g.Cases, 60
	if !haveVNNI {
		// The portable int8 kernel is slow; it is there to test the fast one.
		t.Log("no AVX-512 VNNI here (or -tags purego): the int8 path runs its portable kernel, on the cases of at most 8 tokens")
		cases, least = slices.DeleteFunc(slices.Clone(cases), func(c goldenCase) bool { return len(c.Tokens) > 8 }), 6
	}
	if n := goldenCosine(t, pathModel(t, true), cases); n < least {
		t.Fatalf("only %d vectors compared", n)
	}
}

// goldenCosine checks m's vectors for cases against the reference to
// within cosine int8Cosine, and returns how many it compared.
func goldenCosine(t *testing.T, m *Model, cases []goldenCase) int {
	t.Helper()
	vs, docs := embedGolden(t, m, cases)
	worst, sum, n := 1.0, 0.0, 0
	check := func(name string, got, want []float32) {
		c := cosine(got, want)
		worst, sum, n = min(worst, c), sum+c, n+1
		if c < int8Cosine || math.Abs(vecNorm(got)-1) > 1e-5 {
			t.Errorf("%s: cosine %.5f to the reference (want >= %v), norm %v", name, c, int8Cosine, vecNorm(got))
		}
	}
	for i, c := range cases {
		check(c.Name, vs[i], c.Embedding)
		if len(c.Windows) > 0 && len(docs[i]) != len(c.Windows) {
			t.Errorf("%s: %d windows, want %d", c.Name, len(docs[i]), len(c.Windows))
			continue
		}
		for k, w := range c.Windows {
			check(fmt.Sprintf("%s window %d", c.Name, k), docs[i][k], w.Embedding)
		}
	}
	t.Logf("int8 path (VNNI kernel: %v): %d vectors, cosine to the reference: worst %.5f, mean %.5f", haveVNNI, n, worst, sum/float64(n))
	return n
}

// TestTokenizerFixture checks the tokenizer on 400 more texts (random code
// points from many scripts, emoji, controls; runs of vocabulary pieces)
// against the reference tokenizer's output in testdata/tokens.json.
func TestTokenizerFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Text   string `json:"text"`
			Tokens []int  `json:"tokens"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	m := testModel(t)
	bad := 0
	for i, c := range f.Cases {
		if got := m.Tokenize(c.Text); !slices.Equal(got, c.Tokens) {
			bad++
			if bad <= 5 {
				t.Errorf("case %d %q:\n got %v\nwant %v", i, c.Text, got, c.Tokens)
			}
		}
	}
	if bad > 0 || len(f.Cases) < 100 {
		t.Errorf("%d of %d cases differ", bad, len(f.Cases))
	}
}

package uselite

import (
	"context"
	"encoding/json"
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

func TestGoldenVectors(t *testing.T) {
	g := readGolden(t)
	m := testModel(t)
	if g.Window != Window || g.Stride != Stride {
		t.Fatalf("fixture windows %d/%d, package %d/%d", g.Window, g.Stride, Window, Stride)
	}
	texts := make([]string, len(g.Cases))
	for i, c := range g.Cases {
		texts[i] = c.Text
	}
	ctx := context.Background()
	vs, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := m.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	windows := 0
	for i, c := range g.Cases {
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
	t.Logf("%d texts, %d extra windows: worst component difference %.3g", len(g.Cases), windows, worst)
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

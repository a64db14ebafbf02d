package memory

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"agentmem/memory/embedder/fake"
)

func TestSentences(t *testing.T) {
	long := strings.Repeat("word ", SentenceTurnWords) + "end. More."
	many := strings.Repeat("Yes! ", MaxSentences+3)
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Woah, Maria, that sounds cool! I'm doing kickboxing and it's giving me so much energy.",
			[]string{"Woah, Maria, that sounds cool!", "I'm doing kickboxing and it's giving me so much energy."}},
		{"One sentence only.", []string{"One sentence only."}},
		{"no end at all", []string{"no end at all"}},
		{"It cost 3.50 at the fair... really?! Yes", []string{"It cost 3.50 at the fair...", "really?!", "Yes"}},
		{"a list:\n- eggs\n- milk\n\n", []string{"a list:", "- eggs", "- milk"}},
		{"Great!!! :) !!! ok.\tNext", []string{"Great!!!", "ok.", "Next"}}, // ":) !!!" holds no letter
		{"!!! ... ?", nil},
		{"", nil},
		{long, nil},
		{many, slices.Repeat([]string{"Yes!"}, MaxSentences)},
	} {
		if got := sentences(c.text); !slices.Equal(got, c.want) {
			t.Errorf("sentences(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// Under the contextual recipe a short turn of several sentences gets one
// window per sentence after its own: the sentence, led by the speaker,
// blended with the turn's vector. A turn of one sentence, a long turn and
// the plain recipe get none.
func TestSentenceWindows(t *testing.T) {
	base := &fake.Embedder{Name: "s"}
	e := Contextual(base)
	ms := []Memory{
		{ID: "a", Speaker: "John", Text: "Woah, Maria, that sounds cool! I'm doing kickboxing. So much energy."},
		{ID: "b", Text: "Just one sentence here."},
		{ID: "c", Speaker: "John", Text: strings.Repeat("kickboxing is fun. ", SentenceTurnWords/3+1)},
	}
	if err := vectorize(bg, e, ms, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(ms[0].Vectors); n != 4 {
		t.Fatalf("a turn of 3 sentences has %d windows, want 4", n)
	}
	whole := ms[0].Vectors[0]
	for i, s := range []string{"John: Woah, Maria, that sounds cool!", "John: I'm doing kickboxing.", "John: So much energy."} {
		sv, err := base.Embed(bg, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		got := ms[0].Vectors[1+i]
		var norm, cosSent, cosWhole float64
		for d := range got {
			norm += float64(got[d]) * float64(got[d])
			cosSent += float64(got[d]) * float64(sv[0][d])
			cosWhole += float64(got[d]) * float64(whole[d])
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Errorf("window %d has length %v", 1+i, math.Sqrt(norm))
		}
		want, _ := blend(sv[0], whole, SentenceShare)
		for d := range got {
			if math.Abs(float64(got[d]-want[d])) > 1e-6 {
				t.Fatalf("window %d is not the blend of %q and the turn", 1+i, s)
			}
		}
		if cosSent < 0.5 || cosWhole < 0.3 {
			t.Errorf("window %d: cosine %.2f with its sentence, %.2f with its turn", 1+i, cosSent, cosWhole)
		}
	}
	if n := len(ms[1].Vectors); n != 1 {
		t.Errorf("a turn of one sentence has %d windows, want 1", n)
	}
	if n := len(ms[2].Vectors); n != 1 {
		t.Errorf("a turn of more than %d words has %d windows, want 1", SentenceTurnWords, n)
	}
	if field, msg := vetVectors(ms[0].Text, ms[0].Vectors); field != "" {
		t.Errorf("vetVectors refuses a turn's sentence windows: %s %s", field, msg)
	}

	plain := []Memory{{ID: "a", Text: ms[0].Text}}
	if err := vectorize(bg, base, plain, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(plain[0].Vectors); n != 1 {
		t.Errorf("the plain recipe made %d windows, want 1", n)
	}
}

// A turn of several windows (its text led by a long end of the turn
// before it) blends its sentences with its windows' normalised mean; an
// embedder of zero vectors gets no sentence windows, and no error.
func TestSentenceWindowsOfOddTurns(t *testing.T) {
	two := &windows{Embedder: &fake.Embedder{Name: "w"}}
	e := Contextual(two)
	ms := []Memory{{ID: "a", Speaker: "Sam", Text: "Hi. I went kayaking."}}
	if err := vectorize(bg, e, ms, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(ms[0].Vectors); n != 4 {
		t.Fatalf("%d windows, want 2 of the text and 2 of its sentences", n)
	}
	turn := mean(ms[0].Vectors[:2])
	sv, _ := two.Embed(bg, []string{"Sam: I went kayaking."})
	want, _ := blend(sv[0], turn, SentenceShare)
	for d, x := range ms[0].Vectors[3] {
		if math.Abs(float64(x-want[d])) > 1e-6 {
			t.Fatal("a sentence is not blended with the mean of its turn's windows")
		}
	}

	zero := []Memory{{ID: "z", Text: "Nothing here. Nothing there."}}
	if err := vectorize(bg, Contextual(zeros{&fake.Embedder{Name: "z"}}), zero, nil); err != nil {
		t.Fatalf("an embedder of zero vectors: %v", err)
	}
	if n := len(zero[0].Vectors); n != 1 {
		t.Errorf("an embedder of zero vectors gave %d windows, want its own 1", n)
	}
}

// windows embeds every document as two windows: the text and its reverse.
type windows struct{ *fake.Embedder }

func (w *windows) EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error) {
	out := make([][][]float32, len(texts))
	for i, t := range texts {
		r := []rune(t)
		slices.Reverse(r)
		vs, err := w.Embed(ctx, []string{t, string(r)})
		if err != nil {
			return nil, err
		}
		out[i] = vs
	}
	return out, nil
}

// zeros embeds every text as the zero vector.
type zeros struct{ *fake.Embedder }

func (z zeros) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, z.Dims())
	}
	return out, nil
}

// Import allows the windows of a short text led by the end of a long turn
// before it, and its sentences, whatever a later version's splitter makes
// of them; it still refuses windows no embedder makes.
func TestVetAllowsLeadAndSentences(t *testing.T) {
	unit := make([]float32, 4)
	unit[0] = 1
	for _, c := range []struct {
		n    int
		want bool
	}{{8, true}, {1 + (7+leadBytes)/minWindowBytes + MaxSentences, true}, {2 + (7+leadBytes)/minWindowBytes + MaxSentences, false}} {
		field, _ := vetVectors("Hi. Ok.", slices.Repeat([][]float32{unit}, c.n))
		if ok := field == ""; ok != c.want {
			t.Errorf("%d windows for %q: accepted %v, want %v", c.n, "Hi. Ok.", ok, c.want)
		}
	}
}

func TestBlendRefusesWhatItCannotNormalise(t *testing.T) {
	if _, ok := blend([]float32{1, 0}, []float32{-1.5, 0}, SentenceShare); ok {
		t.Error("a blend of length 0 normalised")
	}
	if v, ok := blend([]float32{1, 0}, []float32{0, 1}, SentenceShare); !ok || math.Abs(float64(v[0]*v[0]+v[1]*v[1])-1) > 1e-6 || v[0] <= v[1] {
		t.Errorf("blend of two unit vectors = %v, %v", v, ok)
	}
}

// moreWords counts words as strings.Fields does.
func TestMoreWords(t *testing.T) {
	for _, text := range []string{"", " ", "one", " one  two\tthree\n", "a\u00a0b c", strings.Repeat("w ", 81), strings.Repeat("w ", 80), "é è\u2028x"} {
		for _, n := range []int{0, 1, 2, 3, 80} {
			if got, want := moreWords(text, n), len(strings.Fields(text)) > n; got != want {
				t.Errorf("moreWords(%q, %d) = %v, want %v", text, n, got, want)
			}
		}
	}
}

package memory

import (
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

func TestBlendRefusesWhatItCannotNormalise(t *testing.T) {
	if _, err := blend([]float32{1, 0}, []float32{1}, SentenceShare); err == nil {
		t.Error("vectors of different dimensions blended")
	}
	if _, err := blend([]float32{1, 0}, []float32{-1.5, 0}, SentenceShare); err == nil {
		t.Error("a blend of length 0 normalised")
	}
}

package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Sentence windows. A short turn embedded whole is a blur of its
// sentences: in "Woah, Maria, that sounds cool! I'm doing kickboxing and
// it's giving me so much energy." the greeting weighs as much as the
// kickboxing that "What martial arts has John done?" asks about. So under
// the server's recipe (Contextual) a turn of SentenceTurnWords words or
// fewer and two sentences or more also gets one window per sentence, after
// its text's windows: the sentence led by the speaker's name, embedded
// alone, then blended with the turn's own vector (SentenceShare of it the
// sentence's, the rest the whole turn's, context included) and normalised.
// The store ranks a memory by its best window, so a question that matches
// one sentence finds its turn, and the blend keeps what the turn is about
// in every window: a sentence embedded alone ("Such a special memory!")
// matches too much.
//
// Measured on the three dev sets (EVALS.md, "Sentence windows"): LoCoMo
// dev7 recall_all 67.9% -> 71.4%; windows of the sentences alone (no
// blend) gained less and cost adversarial questions, a blend with more of
// the sentence (0.8) or less (0.5) gained less.
const (
	// SentenceShare is the sentence's share of a sentence window's vector.
	SentenceShare = 0.6
	// SentenceTurnWords: a longer turn gets no sentence windows (its
	// text's windows are already sentence-sized for the model).
	SentenceTurnWords = 80
	// MaxSentences caps a memory's sentence windows; the rest of its
	// sentences are read by its whole window only.
	MaxSentences = 8
)

// sentenceInputs returns the texts of m's sentence windows under e's
// recipe: none unless e is contextual and m's text is short and holds two
// sentences or more.
func sentenceInputs(e Embedder, m Memory) []string {
	if prevWords(e) == 0 {
		return nil
	}
	ss := sentences(m.Text)
	if len(ss) < 2 {
		return nil
	}
	lead := ""
	if m.Speaker != "" {
		lead = m.Speaker + ": "
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = lead + s
	}
	return out
}

// sentences splits a text of at most SentenceTurnWords words after each
// run of '.', '!' or '?' followed by white space, and at each line break,
// keeping the first MaxSentences parts that hold a letter or a digit. A
// longer text gives none.
func sentences(text string) []string {
	if len(strings.Fields(text)) > SentenceTurnWords {
		return nil
	}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(out) < MaxSentences && strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			out = append(out, s)
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			add(text[start:i])
			start = i + 1
		case (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' || text[i+1] == '\r' || text[i+1] == '\n'):
			add(text[start : i+1])
			start = i + 1
		}
	}
	add(text[start:])
	return out
}

// addSentenceWindows appends to each memory of ms its sentence windows
// under e's recipe, blended with the memory's first window (its whole
// text, as vectorize embedded it).
func addSentenceWindows(ctx context.Context, e Embedder, ms []Memory) error {
	var texts []string
	var owner []int
	for i, m := range ms {
		if len(m.Vectors) == 0 {
			continue
		}
		for _, s := range sentenceInputs(e, m) {
			texts = append(texts, s)
			owner = append(owner, i)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embedding %d sentences with %s: %w", len(texts), e.ID(), err)
	}
	if len(vs) != len(texts) {
		return fmt.Errorf("embedder %s returned %d vectors for %d sentences", e.ID(), len(vs), len(texts))
	}
	for j, v := range vs {
		m := &ms[owner[j]]
		w, err := blend(v, m.Vectors[0], SentenceShare)
		if err != nil {
			return fmt.Errorf("embedder %s: sentence %d of memory %s: %w", e.ID(), j, m.ID, err)
		}
		m.Vectors = append(m.Vectors, w)
	}
	return nil
}

// blend returns share*s + (1-share)*w, normalised, as a new vector.
func blend(s, w []float32, share float64) ([]float32, error) {
	if len(s) != len(w) {
		return nil, fmt.Errorf("a vector of %d dimensions for one of %d", len(s), len(w))
	}
	out := make([]float32, len(s))
	var sum float64
	for i := range s {
		x := share*float64(s[i]) + (1-share)*float64(w[i])
		out[i] = float32(x)
		sum += x * x
	}
	n := math.Sqrt(sum)
	if !(n > 1e-6) || math.IsInf(n, 0) { // two unit vectors blend to 0.2 or more
		return nil, fmt.Errorf("a blended vector of length %v", n)
	}
	for i := range out {
		out[i] = float32(float64(out[i]) / n)
	}
	return out, nil
}

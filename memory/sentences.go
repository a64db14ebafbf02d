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
// Measured (EVALS.md, "Sentence windows"): LoCoMo dev7 recall_all 67.9% ->
// 71.4%, every category up but adversarial (unchanged); on LongMemEval-S
// and the M-proxy the sessions found are unchanged. Windows of the sentences alone (no blend) gained
// less and cost adversarial questions; a blend with more of the sentence
// (0.8) or less (0.5) gained less.

// Recipe names how the server makes a memory's vectors beyond its
// embedder's ID: led by the end of the turn before it (Contextual), with
// sentence windows. The stores record it, so that a store whose memories
// were embedded before sentence windows can say so at start (their one
// vector each ranks a little below a new memory's best window) and
// `agentmem reindex` gives them theirs. The embedder's ID is unchanged,
// so such a store still opens.
const Recipe = "sentences-1"

// RecipeOf is the recipe e makes vectors by: Recipe for a contextual
// embedder (the server's), none for another. A store is opened with it
// (embedded.Options.Recipe, couchbase.Config.Recipe), so that what the
// store records of its vectors is what the service makes.
func RecipeOf(e Embedder) string {
	if prevWords(e) > 0 {
		return Recipe
	}
	return ""
}

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
	if moreWords(text, SentenceTurnWords) {
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

// moreWords reports whether text holds more than n words (as
// strings.Fields splits them), reading only as far as word n+1.
func moreWords(text string, n int) bool {
	words, in := 0, false
	for _, r := range text {
		switch space := unicode.IsSpace(r); {
		case space:
			in = false
		case !in:
			in = true
			if words++; words > n {
				return true
			}
		}
	}
	return false
}

// addSentenceWindows appends to each memory of ms its sentence windows
// under e's recipe, blended with the memory's turn vector: the windows
// vectorize made of its text (led by the end of the turn before it),
// averaged and normalised. A sentence whose blend has no direction (an embedder
// that returns zero vectors) gets no window.
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
	turns := map[int][]float32{}
	for j, v := range vs {
		m := &ms[owner[j]]
		turn, ok := turns[owner[j]]
		if !ok {
			turn = mean(m.Vectors)
			turns[owner[j]] = turn
		}
		if len(v) != len(turn) {
			return fmt.Errorf("embedder %s returned a sentence vector of %d dimensions for a turn's of %d", e.ID(), len(v), len(turn))
		}
		if w, ok := blend(v, turn, SentenceShare); ok {
			m.Vectors = append(m.Vectors, w)
		}
	}
	return nil
}

// mean returns the mean of vs (of one length), normalised, as a new
// vector (vs[0] itself when it is the only one; the zero vector when they
// cancel out).
func mean(vs [][]float32) []float32 {
	if len(vs) == 1 {
		return vs[0]
	}
	ws := make([]float64, len(vs))
	for i := range ws {
		ws[i] = 1
	}
	if out, ok := combine(ws, vs...); ok {
		return out
	}
	return make([]float32, len(vs[0]))
}

// blend returns share*s + (1-share)*w, normalised, as a new vector; false
// when it has no direction (two unit vectors blend to a length of 0.2 or
// more, so only vectors that are not give less).
func blend(s, w []float32, share float64) ([]float32, bool) {
	return combine([]float64{share, 1 - share}, s, w)
}

// combine returns the sum of vs (of one length) weighted by ws, normalised,
// as a new vector; false when it has no direction.
func combine(ws []float64, vs ...[]float32) ([]float32, bool) {
	sum := make([]float64, len(vs[0]))
	for j, v := range vs {
		for i, x := range v {
			sum[i] += ws[j] * float64(x)
		}
	}
	var n float64
	for _, x := range sum {
		n += x * x
	}
	n = math.Sqrt(n)
	if !(n > 1e-6) || math.IsInf(n, 0) {
		return nil, false
	}
	out := make([]float32, len(sum))
	for i, x := range sum {
		out[i] = float32(x / n)
	}
	return out, true
}

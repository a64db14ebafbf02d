package memory

// WidenHits is how many of a recall's best hits shown as excerpts are
// shown longer than the excerpt's length when the budget leaves room for
// it (see widen).
const WidenHits = 3

// shownTexts is what a recall shows of each memory (its excerpt or its
// whole text, dates annotated), made once: a session's passage is
// measured again each time a hit joins it.
type shownTexts struct {
	excerpt int    // the excerpts' length in tokens; 0: memories whole
	want    *stems // the query's stems
	text    map[string]string
	count   map[string]int    // text's units (see units)
	parts   map[string]string // the excerpt shown, "" for a whole memory
	found   map[string]bool   // the text side found the memory (see excerpt's byKinds)
}

// newShownTexts shows memories as excerpts of about excerpt tokens (0:
// whole) around the query's stems want.
func newShownTexts(excerpt int, want *stems) *shownTexts {
	return &shownTexts{excerpt: excerpt, want: want,
		text: map[string]string{}, count: map[string]int{}, parts: map[string]string{}, found: map[string]bool{}}
}

// show makes what is shown of m, once. textFound: the text side found m
// (so a memory without a query word in it was found by its kinds).
func (sh *shownTexts) show(m Memory, textFound bool) {
	if _, ok := sh.text[m.ID]; ok {
		return
	}
	sh.found[m.ID] = textFound
	sh.set(m, sh.excerpt)
}

// set shows m as its excerpt of about n tokens, or whole where n is 0 or
// its text is that short.
func (sh *shownTexts) set(m Memory, n int) {
	t, part := m.Text, ""
	if n > 0 {
		if part = excerpt(m.Text, sh.want, n, sh.found[m.ID]); part != "" {
			t = part
		}
	}
	sh.text[m.ID], sh.parts[m.ID] = display(t, m.SessionDate), part
	sh.count[m.ID] = units(sh.text[m.ID])
}

// unitsOf is the units shown of p.Memories[j] (a layout's measure).
func (sh *shownTexts) unitsOf(p Passage) func(j int) int {
	return func(j int) int { return sh.count[p.Memories[j].ID] }
}

// widen shows m, a hit of the layout's passage i shown as an excerpt, at
// three times the excerpt's length, or twice, or one and a half, the
// longest that keeps the text within max tokens (whole where its text is
// that short). The fill spends the budget on more memories first; what it
// leaves when every candidate is shown or tried shows more of the best
// few, where the answer to the query most often is, rather than nothing
// (EVALS.md, "The best hits shown longer").
func (sh *shownTexts) widen(l *layout, i int, m Memory, max int) {
	if sh.parts[m.ID] == "" || sh.excerpt == 0 {
		return // whole, or an excerpt only fit made (no length to widen by)
	}
	text, count, part := sh.text[m.ID], sh.count[m.ID], sh.parts[m.ID]
	whole, now := tokens(units(m.Text)), tokens(count)
	for _, n := range []int{3 * sh.excerpt, 2 * sh.excerpt, 3 * sh.excerpt / 2} {
		if min(n, whole)-now > max-l.tokens {
			continue // about what it would add, beyond the room left: not made
		}
		sh.set(m, n)
		if l.put(i, l.ps[i], sh.unitsOf, max) {
			return
		}
	}
	sh.text[m.ID], sh.count[m.ID], sh.parts[m.ID] = text, count, part // as it was
}

// fit shows the memories of p, the first hit's passage (the hit and its
// context turns), as their parts around the query's words when p would
// alone take the text past limit tokens: the first hit is always kept, and
// the caller's budget with it (a pasted log of 60 KB is not shown whole to
// a recall of 800 tokens). Each memory longer than minFitTokens is cut in
// proportion, and the passage measured again, up to fitRounds times (an
// excerpt's words per token are the text's own). It reports whether a
// memory of p is now shown in part.
func (sh *shownTexts) fit(p Passage, limit int) bool {
	fitted := false
	for range fitRounds {
		size := tokens(p.size(sh.unitsOf(p), speakers{}))
		if size <= limit {
			break
		}
		scale := float64(limit) / float64(size)
		for _, m := range p.Memories {
			if now := tokens(sh.count[m.ID]); now > minFitTokens {
				sh.set(m, max(int(float64(now)*scale), minFitTokens))
				fitted = fitted || sh.parts[m.ID] != ""
			}
		}
	}
	return fitted
}

// minFitTokens is the least of a memory that fit shows; fitRounds, how
// many times it cuts and measures again.
const (
	minFitTokens = 20
	fitRounds    = 3
)

// hit reports whether the memory id is one of p's hits (not a turn shown
// as a hit's context).
func (p Passage) hit(id string) bool {
	for i, m := range p.Memories {
		if m.ID == id {
			return p.Hit[i]
		}
	}
	return false
}

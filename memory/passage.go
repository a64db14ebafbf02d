package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"agentmem/memory/dates"
	"agentmem/memory/hybrid/forms"
	"agentmem/memory/hybrid/kinds"
	"agentmem/memory/internal/script"
)

// MaxContext is the most neighbouring turns a recall adds on each side of
// a hit.
const MaxContext = 3

// Passage is what a recall returns of one session: its hits and the
// neighbouring turns added as their context, in turn order. Turns that do
// not follow each other are shown with a gap ("…") between them.
type Passage struct {
	Memories []Memory
	// Hit[i] says whether Memories[i] is a hit (false: context); Score[i]
	// is its score (0 for context).
	Hit   []bool
	Score []float64
	// Rank is the rank of the passage's best hit among the recall's hits.
	Rank int
	// Excerpt[i], when not "", is what is shown of Memories[i]: the part of
	// a long memory that best matches the query (see excerpt).
	Excerpt []string
	// Label is the session's id as the header shows it ("": ShortSession's;
	// Recall sets the start that names no other session: see label).
	Label string
}

// label is the session's id as p's header shows it.
func (p Passage) label() string {
	if p.Label != "" {
		return p.Label
	}
	return ShortSession(p.Memories[0].SessionID)
}

// Text renders passages for a prompt: each introduced by its session's date
// (so a model resolves "yesterday" in it against that date), a memory
// alone as "[2023-05-07 Sun · session s-may · Caroline (user)]" and its
// text, a passage of several turns as "[2023-05-07 Sun · session s-may]"
// and one "who: text" line per turn, with a line "…" where turns of the
// session are left out between two of them. A memory's own lines are
// indented by two spaces (see display); in a passage of several turns,
// its first follows its "who: " instead. A named speaker's role is given
// at the first line that names them ("Caroline (user)"), then the name
// alone (see whoIn).
func Text(ps []Passage) string {
	if len(ps) == 0 {
		return "No stored memories match."
	}
	var b strings.Builder
	said := speakers{}
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n\n")
		}
		p.render(&b, p.shown, said)
	}
	return b.String()
}

// shown is the text shown of Memories[i]: its excerpt or its whole text,
// with the relative dates in it annotated.
func (p Passage) shown(i int) string {
	t := p.Memories[i].Text
	if i < len(p.Excerpt) && p.Excerpt[i] != "" {
		t = p.Excerpt[i]
	}
	return display(t, p.Memories[i].SessionDate)
}

// display is a memory's text as a passage shows it: its relative dates
// annotated, and every line after its first indented (Indent), so that a
// line that starts at the margin is always the passage's own (a header, a
// "who:" line, a gap) and never a memory's: a stored text cannot pass for
// a header or end its passage with a blank line. Its first line follows
// its "who: " or, for a memory alone, is indented too (render).
func display(text string, session time.Time) string {
	var b strings.Builder
	annotate(&b, text, session)
	return Indent(b.String(), indent)
}

// indent begins each line of a memory's text in a passage.
const indent = "  "

// gap is the line between two turns of a passage that do not follow each
// other.
const gap = "…"

// render writes p with show(i) as what is shown of Memories[i], its
// speakers named after what the text before it said of them (said, which
// render updates: see whoIn).
func (p Passage) render(b *strings.Builder, show func(i int) string, said speakers) {
	if len(p.Memories) == 1 {
		b.WriteString(p.Memories[0].header(p.label(), said))
		b.WriteString("\n" + indent)
		b.WriteString(show(0))
		return
	}
	b.WriteString(p.header())
	for i, m := range p.Memories {
		if i > 0 && m.Turn > p.Memories[i-1].Turn+1 {
			b.WriteString("\n" + gap)
		}
		if p.newDay(i) {
			b.WriteString("\n[" + m.SessionDate.Format(dayFormat) + "]")
		}
		b.WriteByte('\n')
		b.WriteString(m.whoIn(said))
		b.WriteString(": ")
		b.WriteString(show(i))
	}
}

func (p Passage) header() string {
	m := p.Memories[0]
	return fmt.Sprintf("[%s · session %s]", m.SessionDate.Format(dayFormat), p.label())
}

// newDay tells whether Memories[i] was said on another day than the turn
// before it (a session resumed days later: remember's turnDate): a line
// "[2026-12-02 Wed]" then dates it, so that the passage's header does not.
func (p Passage) newDay(i int) bool {
	if i == 0 {
		return false
	}
	y, m, d := p.Memories[i].SessionDate.Date()
	py, pm, pd := p.Memories[i-1].SessionDate.Date()
	return y != py || m != pm || d != pd
}

// dayFormat is a day as headers write it; dayLineRunes is the length of
// "\n[" + it + "]".
const (
	dayFormat    = "2006-01-02 Mon"
	dayLineRunes = 1 + 1 + len(dayFormat) + 1
)

// annotate writes text with the date each relative expression names, as
// resolved against the session's date: "yesterday [2023-05-07]", "last
// week [2023-05-01..2023-05-07]", so a model need not do the arithmetic.
// Absolute dates are left as written.
func annotate(b *strings.Builder, text string, session time.Time) {
	at := 0
	for _, m := range annotated(text, session) {
		b.WriteString(text[at:m.End])
		b.WriteString(" [")
		b.WriteString(m.Label())
		b.WriteByte(']')
		at = m.End
	}
	b.WriteString(text[at:])
}

// annotated are the mentions of text that annotate dates: relative ones,
// or without their year, that name a period and are not dated already.
func annotated(text string, session time.Time) []dates.Mention {
	var out []dates.Mention
	for _, m := range dates.Find(text, session) {
		if !m.Relative && m.Year != 0 || !m.Resolved() || dated(text[m.End:]) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Annotations are the periods that the text result writes after the
// relative dates of text, a memory's said in a session of that date
// ("yesterday [2023-05-07]", "on 1/20 [2023-01-20]"): for a structured
// result, whose text is as stored.
func Annotations(text string, session time.Time) []Period {
	var out []Period
	for _, m := range annotated(text, session) {
		out = append(out, Period{Text: text[m.Start:m.End], From: m.From, To: m.To})
	}
	return out
}

// dated tells whether rest, the text after a relative date, starts with
// a date in brackets, as a text that was annotated before it was stored
// does ("yesterday [2023-05-07] I saw…", "last year [2022]"): a second
// annotation would only repeat it. A footnote ("last week [1]") is no
// date.
func dated(rest string) bool {
	rest = strings.TrimPrefix(rest, " ")
	if len(rest) < 6 || rest[0] != '[' {
		return false
	}
	for _, c := range []byte(rest[1:5]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return rest[5] == ']' || rest[5] == '-'
}

// tokens estimates the tokens of a text as rendered from its units
// (four to a token; see units).
func tokens(units int) int { return (units + 3) / 4 }

// size is the length in units (see units) of p as render writes it after
// a text that said said of its speakers (updated as render does), with
// n(i) the units shown of Memories[i]: counted, not rendered, since passages are measured
// again each time a hit joins one (TestPassageSizeIsRendered holds it to
// render).
func (p Passage) size(n func(i int) int, said speakers) int {
	if len(p.Memories) == 1 {
		return units(p.Memories[0].header(p.label(), said)) + 1 + len(indent) + n(0)
	}
	size := units(p.header())
	for i, m := range p.Memories {
		if i > 0 && m.Turn > p.Memories[i-1].Turn+1 {
			size += 1 + units(gap)
		}
		if p.newDay(i) {
			size += dayLineRunes
		}
		size += 1 + units(m.whoIn(said)) + 2 + n(i)
	}
	return size
}

// unitsOf measures what show(i) shows, in units (see units).
func unitsOf(show func(i int) string) func(i int) int {
	return func(i int) int { return units(show(i)) }
}

// withContext is each hit's turns: the hit and, with context > 0, up to
// context turns of its session on each side, in turn order. They are read
// once per recall, for the budget (wholeTokens) and the passages (group).
func (s *Service) withContext(ctx context.Context, hits []Hit, context int) ([][]Memory, error) {
	out := make([][]Memory, len(hits))
	for i, h := range hits {
		m := h.Memory
		var turns []Memory
		if context > 0 {
			var err error
			if turns, err = s.store.Turns(ctx, m.Namespace, m.SessionID, m.Turn-context, m.Turn+context); err != nil {
				return nil, fmt.Errorf("reading the context of %s: %w", m.ID, err)
			}
		}
		if !slices.ContainsFunc(turns, func(t Memory) bool { return t.ID == m.ID }) {
			turns = append(turns, m)
			slices.SortFunc(turns, func(a, b Memory) int { return a.Turn - b.Turn })
		}
		out[i] = turns
	}
	return out, nil
}

// group makes the ranked hits, with their turns (withContext), into one
// passage per session: turns in turn order, passages in the order of their
// best hit. One header for a session's turns instead of one per turn
// leaves room for more memories in the same tokens (EVALS.md, "Recall
// defaults"). With maxTokens > 0, a hit whose turns would take the text
// past maxTokens (estimated as rendered) is left out, and the hits after it
// are still tried; the first hit is always kept, as an excerpt that fits
// when it is longer (shownTexts.fit).
// want is the query's stems (queryWords), shared with the reranker's
// excerpts of the same recall.
func group(hits []Hit, turns [][]Memory, maxTokens int, excerptTokens int, want *stems, labels map[string]string, order Order) []Passage {
	type key struct{ ns, session string }
	bySession := map[key]int{} // index in the layout
	sh := newShownTexts(excerptTokens, want)
	l := layout{order: order}
	fitted := false // the first hit shown as an excerpt to fit maxTokens
	for rank, h := range hits {
		for _, t := range turns[rank] {
			sh.show(t, t.ID == h.Memory.ID && h.TextRank > 0)
		}
		k := key{h.Memory.Namespace, h.Memory.SessionID}
		i, joins := bySession[k]
		var next Passage
		if joins {
			next = merge(l.ps[i], turns[rank], h)
		} else {
			i, next = len(l.ps), merge(Passage{Rank: rank, Label: labels[h.Memory.SessionID]}, turns[rank], h)
		}
		if rank == 0 && maxTokens > 0 {
			fitted = sh.fit(next, maxTokens)
		}
		if l.put(i, next, sh.unitsOf, maxTokens) && !joins {
			bySession[k] = i
		}
	}
	if maxTokens > 0 {
		best := 0 // the best hits shown as excerpts, in rank order
		for _, h := range hits {
			i, ok := bySession[key{h.Memory.Namespace, h.Memory.SessionID}]
			if ok && best < WidenHits && l.ps[i].hit(h.Memory.ID) && sh.parts[h.Memory.ID] != "" {
				sh.widen(&l, i, h.Memory, maxTokens)
				best++
			}
		}
	}
	out := l.ps
	if excerptTokens > 0 || fitted {
		for i, p := range out {
			out[i].Excerpt = make([]string, len(p.Memories))
			for j, m := range p.Memories {
				out[i].Excerpt[j] = sh.parts[m.ID]
			}
		}
	}
	return out
}

// wholeTokens estimates the tokens the hits take shown whole, each on its
// own with its turns (withContext), as a recall without excerpts shows them
// one by one: the budget that excerpts fill (RecallRequest.Fill).
func wholeTokens(hits []Hit, turns [][]Memory, labels map[string]string, order Order) int {
	ps := make([]Passage, len(hits))
	for i, h := range hits {
		ps[i] = merge(Passage{Label: labels[h.Memory.SessionID]}, turns[i], h)
	}
	arrange(ps, order, func(p Passage) Memory { return p.Memories[0] })
	return tokensOf(ps, func(p Passage) func(int) int { return unitsOf(p.shown) })
}

// merge adds turns (in turn order) to p, marking hit h.
func merge(p Passage, turns []Memory, h Hit) Passage {
	out := Passage{Rank: p.Rank, Label: p.Label}
	i, j := 0, 0
	add := func(m Memory, hit bool, score float64) {
		if n := len(out.Memories); n > 0 && out.Memories[n-1].ID == m.ID {
			// a hit keeps its own score, not a context turn's 0 (a
			// reranker's scores can be below 0)
			switch {
			case hit && out.Hit[n-1]:
				out.Score[n-1] = max(out.Score[n-1], score)
			case hit:
				out.Score[n-1] = score
			}
			out.Hit[n-1] = out.Hit[n-1] || hit
			return
		}
		out.Memories = append(out.Memories, m)
		out.Hit = append(out.Hit, hit)
		out.Score = append(out.Score, score)
	}
	for i < len(p.Memories) || j < len(turns) {
		switch {
		case j >= len(turns) || i < len(p.Memories) && p.Memories[i].Turn <= turns[j].Turn:
			add(p.Memories[i], p.Hit[i], p.Score[i])
			i++
		default:
			t := turns[j]
			if t.ID == h.Memory.ID {
				add(t, true, h.Score)
			} else {
				add(t, false, 0)
			}
			j++
		}
	}
	return out
}

// excerpt is the part of a text longer than about n tokens (see units)
// that holds the most of the query's words, cut at word boundaries and
// marked with an ellipsis where it was cut; "" when the text is short
// enough to show whole. A character of a script written without spaces
// is a word (script.Pieces), and the words of such a run are shown as written,
// without spaces between them. byKinds: if no word of the text
// is a query word, its words are matched by their kinds (kindsMatch).
// want's buffers are reused from one call to the next.
func excerpt(text string, want *stems, n int, byKinds bool) string {
	u := units(text)
	if u <= 4*n {
		return ""
	}
	span := max(1, 3*n/4) // about 0.75 words a token
	words, glued, split := want.splitWords(text)
	if split || u != utf8.RuneCountInString(text) {
		// text with characters read about one a token (see units): as
		// many words as make n tokens of this text, where a Korean word
		// is several tokens and a Chinese character one
		span = max(1, n*len(words)/tokens(u))
	}
	if len(words) <= span {
		return ""
	}
	match := want.matches(words, byKinds)
	best := want.bestWindow(match, span)
	out := strings.Join(words[best:best+span], " ")
	if split {
		var b strings.Builder
		for k := best; k < best+span; k++ {
			if k > best && !glued[k] {
				b.WriteByte(' ')
			}
			b.WriteString(words[k])
		}
		out = b.String()
	}
	if best > 0 {
		out = "… " + out
	}
	if best+span < len(words) {
		out += " …"
	}
	return out
}

// splitWords is text's words, in want's buffers: a character of a script
// written without spaces is a word (script.Pieces), glued to the one
// before it when no space comes between them; split reports such a word.
func (want *stems) splitWords(text string) (words []string, glued []bool, split bool) {
	words, glued = want.words[:0], want.glued[:0]
	for w := range strings.FieldsSeq(text) {
		if script.Plain(w) { // most words, without a call
			words, glued = append(words, w), append(glued, false)
			continue
		}
		script.Pieces(w, func(piece string, g bool) {
			words, glued = append(words, piece), append(glued, g)
			split = split || g
		})
	}
	want.words, want.glued = words, glued
	return words, glued, split
}

// matches is each word's query word (its index + 1; 0: none), in want's
// buffer, once: the window passes every word twice. byKinds: if no word
// is a query word, words are matched by their kinds (kindsMatch).
func (want *stems) matches(words []string, byKinds bool) []int32 {
	match := slices.Grow(want.match[:0], len(words))[:len(words)]
	want.match = match
	found := false
	for i, w := range words {
		match[i] = want.of(w)
		found = found || match[i] != 0
	}
	if !found && byKinds {
		want.kindsMatch(words, match)
	}
	return match
}

// bestWindow is the first word of the window of span words that holds
// the most distinct query words of match, its matches centred in it.
func (want *stems) bestWindow(match []int32, span int) int {
	best, bestScore := 0, -1
	score := 0
	if len(want.seen) != len(want.index)+1 {
		want.seen = make([]int, len(want.index)+1)
	}
	seen := want.seen
	clear(seen)
	add := func(k int32, d int) {
		if k == 0 {
			return
		}
		if d > 0 && seen[k] == 0 {
			score++
		}
		seen[k] += d
		if d < 0 && seen[k] == 0 {
			score--
		}
	}
	end := span - 1 // the last word of the best window: its last match
	for i := range match {
		add(match[i], 1)
		if i >= span {
			add(match[i-span], -1)
		}
		if i >= span-1 && score > bestScore {
			best, bestScore, end = i-span+1, score, i
		}
	}
	if bestScore > 0 {
		// the first window holding the most query words ends at its last
		// match, which would cut off what follows it ("a kitten named
		// Pixel"): centre the matches, with more room after them than
		// before
		first := best
		for first < end && match[first] == 0 {
			first++
		}
		slack := span - (end - first + 1)
		best = min(max(0, first-slack/3), len(match)-span)
	}
	return best
}

// stems are the stems of a query's words, without common words, each with
// its index + 1; first marks the bytes they start with. They also hold
// excerpt's buffers and what kindsMatch found of each word, for the
// memories of one recall: a stems is not safe for concurrent use.
type stems struct {
	index map[string]int32
	first [256]bool
	whole map[string]string // a verb form's stem: the form, when longer

	words []string
	glued []bool // each word follows the one before it with no space (script.Pieces)
	match []int32
	seen  []int
	kinds map[string]int32 // a word's kindsMatch, looked up once a recall
}

// queryWords are the stems of q's words. The other forms of a word (an
// irregular verb's, a British spelling's) are stems of the same word
// (package forms, as the text index matches them): "buy" finds its excerpt
// at "bought", "color" at "colour". A form longer than a
// stem matches only as itself ("thought", not "though"), and the query's
// own words come first: a form never takes the place of one.
func queryWords(q string) *stems {
	out := &stems{index: map[string]int32{}}
	add := func(k string, i int32) bool {
		if k == "" || stopWords[k] || out.index[k] != 0 {
			return false
		}
		out.index[k] = i
		out.first[k[0]] = true
		return true
	}
	var alias []string // each query word's base in package forms ("" if none), by index - 1
	for _, f := range strings.Fields(q) {
		script.Pieces(f, func(w string, _ bool) {
			if r, n := utf8.DecodeRuneInString(w); n == len(w) && script.FunctionCharacter(r) {
				return
			}
			if !add(stem(w), int32(len(alias)+1)) {
				return
			}
			lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
			b := forms.Base(lw)
			if b == "" && forms.Forms(lw) != nil {
				b = lw
			}
			alias = append(alias, b)
		})
	}
	for i, b := range alias {
		if b == "" {
			continue
		}
		for _, f := range append([]string{b}, forms.Forms(b)...) {
			if k := stem(f); add(k, int32(i+1)) && len(f) > len(k) {
				if out.whole == nil {
					out.whole = map[string]string{}
				}
				out.whole[k] = f
			}
		}
	}
	return out
}

// of is the index + 1 of stem(w) in want, 0 when want lacks it. An ASCII
// word is lower-cased into a buffer: no string is made.
func (want *stems) of(w string) int32 {
	if !isASCII(w) {
		return want.index[stem(w)]
	}
	k := asciiStem(w)
	if k == "" || !want.first[lower(k[0])] {
		return 0
	}
	var buf [5]byte
	for i := range len(k) {
		buf[i] = lower(k[i])
	}
	i := want.index[string(buf[:len(k)])]
	if i != 0 && want.whole != nil {
		if f, ok := want.whole[string(buf[:len(k)])]; ok && !strings.EqualFold(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }), f) {
			return 0
		}
	}
	return i
}

// stem is a word lower-cased, stripped of punctuation and cut to its first
// five letters: enough to match "running" with "run" for choosing an
// excerpt.
func stem(w string) string {
	if !isASCII(w) {
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		if r := []rune(w); len(r) > 5 {
			w = string(r[:5])
		}
		return w
	}
	// the same for ASCII, without converting the word
	w = asciiStem(w)
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(w)
		}
	}
	return w
}

// asciiStem is an ASCII word without the punctuation around it, cut to
// five letters, not yet lower-cased.
func asciiStem(w string) string {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	i, j := 0, len(w)
	for i < j && !alnum(w[i]) {
		i++
	}
	for j > i && !alnum(w[j-1]) {
		j--
	}
	return w[i:min(j, i+5)]
}

func isASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopList) {
		m[stem(w)] = true
	}
	return m
}()

// stopList is the stop words, in lower case.
const stopList = "a an the and or but of to in on at for with by from about as is are was were be been being do does did have has had i me my you your we our he she it they them their this that these those what when where which who whom why how can could would should will shall may might must not no yes so if then than there here just also very"

// kindsMatch marks the words of a memory that no query word matches by
// the query word their kinds match (hybrid.FieldKinds: "Oregon" for
// "states"), so that a memory the search found by what its nouns name is
// shown around that noun. It runs only for a memory the text side found
// with no query word in it, as it looks each word up in the kinds table;
// a word's answer is kept for the recall's other memories.
func (want *stems) kindsMatch(words []string, match []int32) {
	if want.kinds == nil {
		want.kinds = map[string]int32{}
	}
	for i, w := range words {
		m, ok := want.kinds[w]
		if !ok {
			for k := range strings.FieldsSeq(kinds.Of(w)) {
				if m = want.of(k); m != 0 {
					break
				}
			}
			want.kinds[w] = m
		}
		match[i] = m
	}
}

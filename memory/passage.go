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
)

// MaxContext is the most neighbouring turns a recall adds on each side of
// a hit.
const MaxContext = 3

// Passage is a run of consecutive turns of one session as a recall returns
// it: one or more hits and the neighbouring turns added as their context,
// in turn order.
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
}

// Text renders passages for a prompt: each introduced by its session's date
// (so a model resolves "yesterday" in it against that date), a memory
// alone as "[2023-05-07 Sun · session s-may · Caroline (user)]" and its
// text, a passage of several turns as "[2023-05-07 Sun · session s-may]"
// and one "who: text" line per turn.
func Text(ps []Passage) string {
	if len(ps) == 0 {
		return "No stored memories match."
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n\n")
		}
		p.render(&b)
	}
	return b.String()
}

func (p Passage) render(b *strings.Builder) {
	text := func(i int) string {
		if i < len(p.Excerpt) && p.Excerpt[i] != "" {
			return p.Excerpt[i]
		}
		return p.Memories[i].Text
	}
	if len(p.Memories) == 1 {
		m := p.Memories[0]
		b.WriteString(m.Header())
		b.WriteByte('\n')
		annotate(b, text(0), m.SessionDate)
		return
	}
	m := p.Memories[0]
	fmt.Fprintf(b, "[%s · session %s]", m.SessionDate.Format("2006-01-02 Mon"), m.SessionID)
	for i, m := range p.Memories {
		b.WriteByte('\n')
		b.WriteString(m.who())
		b.WriteString(": ")
		annotate(b, text(i), m.SessionDate)
	}
}

// annotate writes text with the date each relative expression names, as
// resolved against the session's date: "yesterday [2023-05-07]", "last
// week [2023-05-01..2023-05-07]", so a model need not do the arithmetic.
// Absolute dates are left as written.
func annotate(b *strings.Builder, text string, session time.Time) {
	at := 0
	for _, m := range dates.Find(text, session) {
		if !m.Relative && m.Year != 0 {
			continue
		}
		label := m.Label()
		if label == "" {
			continue
		}
		b.WriteString(text[at:m.End])
		b.WriteString(" [")
		b.WriteString(label)
		b.WriteByte(']')
		at = m.End
	}
	b.WriteString(text[at:])
}

// tokens estimates the tokens of the passage as rendered: about four
// characters a token, as common tokenizers count English.
func (p Passage) tokens() int {
	var b strings.Builder
	p.render(&b)
	return (utf8.RuneCountInString(b.String()) + 3) / 4
}

// passages groups the ranked hits into passages: each hit with up to
// context turns before and after it and, with context, hits of one session
// that touch or overlap merged into one passage; passages in the order of
// their best hit. With maxTokens > 0 it stops before the passage that would take the
// text past maxTokens (estimated as rendered); the first hit is always
// kept, whatever its length.
func (s *Service) passages(ctx context.Context, hits []Hit, context, maxTokens int, excerptTokens int, query string) ([]Passage, error) {
	type span struct {
		ns, session string
		from, to    int // turns
		p           *Passage
	}
	var spans []*span
	var out []*Passage
	used := 0
	for rank, h := range hits {
		m := h.Memory
		from, to := m.Turn, m.Turn
		var turns []Memory
		if context > 0 {
			var err error
			if turns, err = s.store.Turns(ctx, m.Namespace, m.SessionID, m.Turn-context, m.Turn+context); err != nil {
				return nil, fmt.Errorf("reading the context of %s: %w", m.ID, err)
			}
			if len(turns) > 0 {
				from, to = min(from, turns[0].Turn), max(to, turns[len(turns)-1].Turn)
			}
		}
		if !slices.ContainsFunc(turns, func(t Memory) bool { return t.ID == m.ID }) {
			turns = append(turns, m)
			slices.SortFunc(turns, func(a, b Memory) int { return a.Turn - b.Turn })
		}
		// with context, a span of the same session that this one touches or
		// overlaps; without, every hit stands alone, as it always did
		var into *span
		for _, sp := range spans {
			if context > 0 && sp.ns == m.Namespace && sp.session == m.SessionID && from <= sp.to+1 && to >= sp.from-1 {
				into = sp
				break
			}
		}
		var next Passage
		if into != nil {
			next = merge(*into.p, turns, h)
		} else {
			next = merge(Passage{Rank: rank}, turns, h)
		}
		if excerptTokens > 0 {
			next.Excerpt = make([]string, len(next.Memories))
			for i, m := range next.Memories {
				next.Excerpt[i] = excerpt(m.Text, query, excerptTokens)
			}
		}
		cost := next.tokens()
		if into != nil {
			cost -= into.p.tokens()
		}
		if maxTokens > 0 && used+cost > maxTokens && len(out) > 0 {
			break
		}
		used += cost
		if into != nil {
			*into.p = next
			into.from, into.to = min(into.from, from), max(into.to, to)
			continue
		}
		p := &next
		out = append(out, p)
		spans = append(spans, &span{ns: m.Namespace, session: m.SessionID, from: from, to: to, p: p})
	}
	res := make([]Passage, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res, nil
}

// merge adds turns (in turn order) to p, marking hit h.
func merge(p Passage, turns []Memory, h Hit) Passage {
	out := Passage{Rank: p.Rank}
	i, j := 0, 0
	add := func(m Memory, hit bool, score float64) {
		if n := len(out.Memories); n > 0 && out.Memories[n-1].ID == m.ID {
			out.Hit[n-1] = out.Hit[n-1] || hit
			out.Score[n-1] = max(out.Score[n-1], score)
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

// excerpt is the part of a text longer than about n tokens (four
// characters a token) that holds the most of the query's words, cut at
// word boundaries and marked with an ellipsis where it was cut; "" when
// the text is short enough to show whole.
func excerpt(text, query string, n int) string {
	if utf8.RuneCountInString(text) <= 4*n {
		return ""
	}
	words := strings.Fields(text)
	span := max(1, 3*n/4) // about 0.75 words a token
	if len(words) <= span {
		return ""
	}
	want := queryWords(query)
	best, bestScore := 0, -1
	score := 0
	seen := map[string]int{}
	add := func(w string, d int) {
		k := stem(w)
		if !want[k] {
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
	for i, w := range words {
		add(w, 1)
		if i >= span {
			add(words[i-span], -1)
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
		for first < end && !want[stem(words[first])] {
			first++
		}
		slack := span - (end - first + 1)
		best = min(max(0, first-slack/3), len(words)-span)
	}
	out := strings.Join(words[best:best+span], " ")
	if best > 0 {
		out = "… " + out
	}
	if best+span < len(words) {
		out += " …"
	}
	return out
}

// queryWords are the stems of a query's words, without common words.
func queryWords(q string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(q) {
		if k := stem(w); k != "" && !stopWords[k] {
			out[k] = true
		}
	}
	return out
}

// stem is a word lower-cased, stripped of punctuation and cut to its first
// five letters: enough to match "running" with "run" for choosing an
// excerpt.
func stem(w string) string {
	w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	if r := []rune(w); len(r) > 5 {
		w = string(r[:5])
	}
	return w
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the and or but of to in on at for with by from about as is are was were be been being do does did have has had i me my you your we our he she it they them their this that these those what when where which who whom why how can could would should will shall may might must not no yes so if then than there here just also very") {
		m[stem(w)] = true
	}
	return m
}()

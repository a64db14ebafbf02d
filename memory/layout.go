package memory

import (
	"maps"
	"slices"
)

// layout is a recall's passages as group builds them, each measured as
// Text renders it after the passages before it: a named speaker's role is
// said at the first line that names them (whoIn), so what a passage takes
// can depend on the ones before it.
type layout struct {
	ps     []Passage
	sizes  []int    // runes of ps[j] rendered after ps[:j]
	tokens int      // their tokens, passage by passage
	said   speakers // what ps, in order, say of their speakers
}

// put places p at index i of the layout (len(l.ps): after the others) when
// the text then takes at most max tokens (0: any; the first passage always
// goes in), and reports whether it did. runes(p)(j) is the runes shown of
// p.Memories[j].
func (l *layout) put(i int, p Passage, runes func(p Passage) func(j int) int, max int) bool {
	fits := func(t int) bool { return max <= 0 || t <= max || len(l.ps) == 0 }
	if i == len(l.ps) {
		said := l.said
		if p.named() {
			said = speakers{} // l.said is left as it is if p does not fit
			maps.Copy(said, l.said)
		}
		s := p.size(runes(p), said)
		if !fits(l.tokens + tokens(s)) {
			return false
		}
		l.ps, l.sizes, l.tokens, l.said = append(l.ps, p), append(l.sizes, s), l.tokens+tokens(s), said
		return true
	}
	if !p.named() {
		// it says nothing of a speaker: the others measure as they did
		s := p.size(runes(p), nil)
		t := l.tokens - tokens(l.sizes[i]) + tokens(s)
		if !fits(t) {
			return false
		}
		l.ps[i], l.sizes[i], l.tokens = p, s, t
		return true
	}
	// it can name a speaker before a passage after it did, which then
	// says less: measured after what the passages before it say, and the
	// passages after it measured again if it leaves another state of the
	// speakers than the passage it replaces did
	said := speakers{}
	for _, q := range l.ps[:i] {
		q.say(said)
	}
	was := maps.Clone(said)
	l.ps[i].say(was)
	s := p.size(runes(p), said)
	if maps.Equal(said, was) {
		t := l.tokens - tokens(l.sizes[i]) + tokens(s)
		if !fits(t) {
			return false
		}
		l.ps[i], l.sizes[i], l.tokens = p, s, t
		return true
	}
	ps, sizes := slices.Clone(l.ps), slices.Clone(l.sizes)
	ps[i], sizes[i] = p, s
	for j := i + 1; j < len(ps); j++ {
		sizes[j] = ps[j].size(runes(ps[j]), said)
	}
	t := 0
	for _, n := range sizes {
		t += tokens(n)
	}
	if !fits(t) {
		return false
	}
	l.ps, l.sizes, l.tokens, l.said = ps, sizes, t, said
	return true
}

// named reports whether a turn of p has a speaker's name beside its role.
func (p Passage) named() bool {
	return slices.ContainsFunc(p.Memories, Memory.named)
}

// say notes in said what p, rendered, says of its speakers (as whoIn
// does, without writing their names).
func (p Passage) say(said speakers) {
	for _, m := range p.Memories {
		if m.named() {
			said[OneLine(m.Speaker)] = m.Role
		}
	}
}

// tokensOf estimates the tokens of ps as Text renders them, passage by
// passage, with runes(p)(i) the runes shown of p.Memories[i].
func tokensOf(ps []Passage, runes func(p Passage) func(i int) int) int {
	said, n := speakers{}, 0
	for _, p := range ps {
		n += tokens(p.size(runes(p), said))
	}
	return n
}

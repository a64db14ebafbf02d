package memory

import (
	"maps"
	"slices"
)

// layout is a recall's passages as group builds them, in the order the
// budget chooses them (relevance), each measured as Text renders it after
// the passages before it in the order the recall returns them (order): a
// named speaker's role is said at the first line that names them (whoIn),
// so what a passage takes can depend on the ones before it.
type layout struct {
	ps     []Passage
	sizes  []int    // units of ps[j] rendered after the passages before it
	tokens int      // their tokens, passage by passage
	said   speakers // what the passages, rendered, say of their speakers
	order  Order    // the order the recall returns them in (arrange)
}

// put places p at index i of the layout (len(l.ps): after the others) when
// the text then takes at most max tokens (0: any; the first passage always
// goes in), and reports whether it did. measure(p)(j) is the units shown of
// p.Memories[j].
func (l *layout) put(i int, p Passage, measure func(p Passage) func(j int) int, max int) bool {
	fits := func(t int) bool { return max <= 0 || t <= max || len(l.ps) == 0 }
	if !p.says() {
		// it says nothing of a speaker that another line relies on: the
		// others measure as they did, wherever it goes
		s := p.size(measure(p), nil)
		t := l.tokens + tokens(s)
		if i < len(l.ps) {
			t -= tokens(l.sizes[i])
		}
		if !fits(t) {
			return false
		}
		if i == len(l.ps) {
			l.ps, l.sizes = append(l.ps, p), append(l.sizes, s)
		} else {
			l.ps[i], l.sizes[i] = p, s
		}
		l.tokens = t
		return true
	}
	if l.order != ByRelevance && l.order != "" {
		return l.putArranged(i, p, measure, fits)
	}
	if i == len(l.ps) {
		said := speakers{} // l.said is left as it is if p does not fit
		maps.Copy(said, l.said)
		s := p.size(measure(p), said)
		if !fits(l.tokens + tokens(s)) {
			return false
		}
		l.ps, l.sizes, l.tokens, l.said = append(l.ps, p), append(l.sizes, s), l.tokens+tokens(s), said
		return true
	}
	// it can name a speaker before a passage after it did, which then
	// says less: measured after what the passages before it say, and the
	// passages after it measured again if it leaves another state of the
	// speakers than the passage it grows did
	said := speakers{}
	for _, q := range l.ps[:i] {
		q.say(said)
	}
	was := maps.Clone(said)
	l.ps[i].say(was)
	s := p.size(measure(p), said)
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
		sizes[j] = ps[j].size(measure(ps[j]), said)
	}
	return l.keep(ps, sizes, said, fits)
}

// putArranged is put for a recall returned in another order than the
// budget's: every passage is measured again in that order.
func (l *layout) putArranged(i int, p Passage, measure func(p Passage) func(j int) int, fits func(int) bool) bool {
	ps := slices.Clone(l.ps)
	if i == len(ps) {
		ps = append(ps, p)
	} else {
		ps[i] = p
	}
	in := make([]int, len(ps)) // ps's indexes in the order returned
	for j := range in {
		in[j] = j
	}
	arrange(in, l.order, func(j int) Memory { return ps[j].Memories[0] })
	sizes, said := make([]int, len(ps)), speakers{}
	for _, j := range in {
		sizes[j] = ps[j].size(measure(ps[j]), said)
	}
	return l.keep(ps, sizes, said, fits)
}

// keep makes ps, sized sizes and saying said, the layout if they fit.
func (l *layout) keep(ps []Passage, sizes []int, said speakers, fits func(int) bool) bool {
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

// says reports whether a turn of p names its speaker alone once the text
// has said their role (see nameAlone), so that its lines depend on the
// lines before them and change what the lines after them say.
func (p Passage) says() bool {
	return slices.ContainsFunc(p.Memories, func(m Memory) bool { _, ok := m.nameAlone(); return ok })
}

// say notes in said what p, rendered, says of its speakers (as whoIn
// does, without writing their names).
func (p Passage) say(said speakers) {
	for _, m := range p.Memories {
		if name, ok := m.nameAlone(); ok {
			said[name] = m.Role
		}
	}
}

// tokensOf estimates the tokens of ps as Text renders them, passage by
// passage, with measure(p)(i) the units shown of p.Memories[i].
func tokensOf(ps []Passage, measure func(p Passage) func(i int) int) int {
	said, n := speakers{}, 0
	for _, p := range ps {
		n += tokens(p.size(measure(p), said))
	}
	return n
}

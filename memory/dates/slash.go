package dates

import "strings"

// Days written with slashes: "2/15" and "2/15/2023" (the month first, as
// in the US), "15/2" and "15/02/23" (the day first, as in Europe). One is
// read where its month is not in doubt: one of its first two numbers is
// above 12, or it is joined to such a day, whose order it takes ("from
// 2/25 to 3/2", "on 3/14 and 3/7"). "5/8" alone may be 8 May or 5
// August, and is not read (Options.Loose reports one with a year,
// unresolved, as before). "24/7" is never a day.
//
// A year of four digits makes it a date wherever it stands. Without one,
// or with two digits ("3/31/23": the year within 20 ahead of ref's and 80
// behind, or POSIX's 1969 to 2068 without a ref), something must announce
// a day:
//   - a word that says a date follows (on, since, until, till, before,
//     after, due, dated, starting, effective, "as of", "the week of", "no
//     later than", "moved to", "scheduled for", "date:", "deadline:", a
//     weekday): "It arrived on 1/20 damaged", "due 3/15";
//   - a word that may say an amount follows as well (by, from, between,
//     through): then no noun it counts may follow ("by 1/16 inch"), nor
//     may it follow a word of change ("reduce it by 1/16");
//   - a day before it in a list or range ("on 3/15, 3/22, and 3/29");
//   - the start of a line, before a colon ("2/15: dentist").
//
// Two such numbers joined as a list or range are no days where they are
// fractions or scores: the same second number ("5/16 or 7/16", "from 8/20
// to 12/20"), a range that runs backwards ("from 1/16 to 1/8"), or a noun
// counted after the last ("the 1/13 and 1/20 cuts"). A mark of inches or
// feet right after ("1/16\"") makes none. A day without its year is read
// as a day's written in words is ("on May 8").

// slashNums are the numbers of a day written with slashes.
type slashNums struct {
	start, next int // its first token and the token after it
	a, b        int // its first two numbers
	y           int // its year, 0 when none is written
	y4          bool
}

// slashAt reads the numbers of a day written with slashes at i: two
// numbers of one or two digits, and a year of two or four.
func (f *finder) slashAt(i int) (s slashNums, ok bool) {
	if !f.num(i) || f.t[i].ndig > 2 || !f.glued(i+1) || !f.punct(i+1, '/') || !f.glued(i+2) || !f.num(i+2) || f.t[i+2].ndig > 2 {
		return s, false
	}
	s = slashNums{start: i, next: i + 3, a: int(f.t[i].val), b: int(f.t[i+2].val)}
	if j := i + 3; f.glued(j) && f.punct(j, '/') && f.glued(j+1) && f.num(j+1) {
		switch v := int(f.t[j+1].val); f.t[j+1].ndig {
		case 4:
			s.y, s.y4 = v, true
		case 2:
			s.y = f.widen(v)
		default:
			return s, false
		}
		s.next = j + 2
	}
	return s, true
}

// widen reads a year of two digits: within 20 years ahead of ref's and
// 80 behind, or without a ref as POSIX does (69 to 99: 1969 to 1999).
func (f *finder) widen(v int) int {
	if !f.has {
		if v >= 69 {
			return 1900 + v
		}
		return 2000 + v
	}
	y := f.y/100*100 + v
	for y > f.y+20 {
		y -= 100
	}
	for y <= f.y-80 {
		y += 100
	}
	return y
}

// Orders of a day written with slashes.
const (
	inDoubt = iota
	monthFirst
	dayFirst
)

// order is s's order by its numbers: the month first when only the first
// can be a month, the day first when only the second can.
func (s slashNums) order() int {
	switch {
	case s.a == 24 && s.b == 7:
		return inDoubt // "24/7"
	case s.a >= 1 && s.a <= 12 && s.b > 12 && s.b <= 31:
		return monthFirst
	case s.b >= 1 && s.b <= 12 && s.a > 12 && s.a <= 31:
		return dayFirst
	}
	return inDoubt
}

// possible reports whether s may be a day in order o.
func (s slashNums) possible(o int) bool {
	m, d := s.md(o)
	return m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// md is s's month and day in order o.
func (s slashNums) md(o int) (m, d int) {
	if o == dayFirst {
		return s.b, s.a
	}
	return s.a, s.b
}

// before reads the day written with slashes that ends before token j,
// with the word or mark at j-… that joins it to what follows: ok when
// tokens [start, j) are such a day.
func (f *finder) slashEndingAt(j int) (s slashNums, ok bool) {
	for _, n := range [...]int{5, 3} { // a/b/y, a/b
		if j-n < 0 {
			continue
		}
		if s, ok := f.slashAt(j - n); ok && s.next == j {
			return s, true
		}
	}
	return s, false
}

// joiner reports a word or mark at j that joins two days of a list or
// range, and whether it makes a range.
func (f *finder) joiner(j int) (ok, isRange bool) {
	switch {
	case f.kw(j) == kwTo, f.word(j, "through"), f.word(j, "thru"), f.word(j, "until"), f.word(j, "till"):
		return true, true
	case f.punct(j, '-'), j >= 0 && j < len(f.t) && f.t[j].kind == kPunct && (f.s[f.t[j].start:f.t[j].end] == "–" || f.s[f.t[j].start:f.t[j].end] == "—"):
		return true, true
	case f.word(j, "and"), f.word(j, "or"), f.punct(j, ','), f.punct(j, '&'):
		return true, false
	}
	return false, false
}

// joinedAfter reads the day written with slashes that the tokens from j
// join to the one before j: "to 2/20", "- 2/20", ", and 3/29".
func (f *finder) joinedAfter(j int) (o slashNums, isRange, ok bool) {
	ok, isRange = f.joiner(j)
	if !ok {
		return o, false, false
	}
	k := j + 1
	if f.punct(j, ',') && (f.word(k, "and") || f.word(k, "or")) {
		k++
	}
	o, ok = f.slashAt(k)
	return o, isRange, ok
}

// joinedBefore reads the day written with slashes that the tokens before
// i join to the one at i.
func (f *finder) joinedBefore(i int) (o slashNums, isRange, ok bool) {
	j := i - 1
	ok, isRange = f.joiner(j)
	if !ok {
		return o, false, false
	}
	if (f.word(j, "and") || f.word(j, "or")) && f.punct(j-1, ',') {
		j--
	}
	o, ok = f.slashEndingAt(j)
	return o, isRange, ok
}

// fractions reports two numbers with slashes joined as a list or range
// (x before y, in order o) that are no days: the same day of another
// month ("5/16 or 7/16", "from 8/20 to 12/20"), or a range whose last day
// comes before its first (not over a new year: "from 1/16 to 1/8", but
// "12/26-1/2" is days).
func fractions(x, y slashNums, isRange bool, o int) bool {
	if x.y != 0 || y.y != 0 {
		return false
	}
	xm, xd := x.md(o)
	ym, yd := y.md(o)
	if xd == yd && xm != ym {
		return true
	}
	return isRange && (ym < xm || ym == xm && yd <= xd) && !(xm == 12 && ym == 1)
}

// Cues of a day written with slashes.
const (
	cueNone = iota
	// a word that may announce an amount too ("on 1/24 scale", "by 1/16",
	// "after 1/16 of the race"), or a day before it in a list or range:
	// no noun it counts may follow the list
	cueAmount
	cueDate // a word that announces a date, a weekday, a line's start
	// a word that says an amount follows: "reduce it by 1/14 to 1/20"
	cueVeto = -1
)

// slashCue is what announces the day with slashes s: its cue word, or its
// list's or range's first day's, as long as no fraction is among them.
// Its order, where in doubt, is that of a day it is joined to.
func (f *finder) slashCue(s slashNums, depth int) (cue, order int) {
	order = s.order()
	if cue = f.cueWord(s.start, s.next); cue == cueVeto {
		return cueNone, inDoubt
	}
	if depth > 0 {
		if o, isRange, ok := f.joinedBefore(s.start); ok {
			c, oo := f.slashCue(o, depth-1)
			if order == inDoubt {
				order = oo
			} else if oo != inDoubt && oo != order {
				return cueNone, inDoubt
			}
			if order != inDoubt && (fractions(o, s, isRange, order) || !o.possible(order)) {
				return cueNone, inDoubt
			}
			cue = max(cue, c)
		}
	}
	if o, isRange, ok := f.joinedAfter(s.next); ok {
		oo := o.order()
		if order == inDoubt {
			order = oo
		}
		if oo != inDoubt && oo != order || order != inDoubt && (fractions(s, o, isRange, order) || !o.possible(order)) {
			return cueNone, inDoubt // "between 1/16 and 3/32"
		}
		if cue == cueNone && isRange && s.order() != inDoubt {
			cue = cueAmount // "2/15-2/20", "12/24-1/2", read apart
		}
	}
	return cue, order
}

// cueWord is what the words before i say of the day with slashes at i.
func (f *finder) cueWord(i, next int) int {
	if f.colonAfter(next) {
		return cueDate // "2/15: dentist", "Standup notes 11/17: shipped", "- **11/17**:"
	}
	k := f.kw(i - 1)
	if f.punct(i-1, ',') || f.punct(i-1, '(') {
		k = f.kw(i - 2) // "Tuesday, 2/14", "Friday (2/17)"
	}
	switch {
	case kwSun <= k && k <= kwSatAbbr:
		return cueDate
	case !f.t[i].space:
		return cueNone
	case f.word(i-1, "by") || f.word(i-1, "between") || f.word(i-1, "from") || f.word(i-1, "through") || f.word(i-1, "thru"):
		if f.changeWord(i-2, f.word(i-1, "by")) {
			return cueVeto // "reduce it by 1/16", "went up by 1/15", "shorter by 1/16"
		}
		return cueAmount
	case (k == kwWill || f.doneWord(i-1) || f.word(i-1, "expires") || f.word(i-1, "expire")) && f.endsBare(next):
		return cueAmount // "Lease ends 6/30.", "PR merged 11/13, deployed 11/17"
	case k == kwOn, k == kwCue, k == kwBefore, k == kwAfter:
		return cueAmount
	case f.word(i-1, "due"), f.word(i-1, "dated"), f.word(i-1, "starting"), f.word(i-1, "effective"), f.word(i-1, "eta"),
		f.word(i-1, "of") && (f.word(i-2, "as") || f.word(i-2, "week")),
		f.word(i-1, "than") && f.word(i-2, "later"),
		f.kw(i-1) == kwTo && f.moveWord(i-2),
		f.word(i-1, "for") && (f.word(i-2, "scheduled") || f.word(i-2, "booked") || f.word(i-2, "planned") || f.word(i-2, "set")),
		f.punct(i-1, ':') && (f.word(i-2, "date") || f.word(i-2, "deadline") || f.word(i-2, "due") || f.word(i-2, "dob")):
		return cueDate
	}
	return cueNone
}

// changeWord reports a word at j, or among the three before it, that
// says an amount changes by what follows: "reduce the width by 1/16",
// "shorten it by", "went up by", "off by", "shorter by" (the last three
// before "by" only: "I'm out from 12/21").
func (f *finder) changeWord(j int, by bool) bool {
	if by && (f.word(j, "up") || f.word(j, "down") || f.word(j, "off") || f.word(j, "out") || f.word(j, "over") ||
		f.t[max(j, 0)].kind == kWord && strings.HasSuffix(f.lowerWord(j), "er") && !f.word(j, "later") && !f.word(j, "after")) {
		return true
	}
	for k := j; k >= j-3 && k >= 0 && f.t[k].kind == kWord; k-- {
		if w := f.lowerWord(k); changeWords[w] || strings.HasSuffix(w, "en") && len(w) > 5 && w != "happen" && w != "between" {
			return true // "shorten", "widen", "lengthen", "tighten", "loosen"
		}
	}
	return false
}

// changeWords change, measure or count an amount ("reduce", "measured",
// "scored"): a number with a slash after them is one of those.
var changeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`reduce reduced increase increased decrease decreased cut trim trimmed lower lowered
		raise raised grow grew rose fell drop dropped shrink shrank dilute diluted scale scaled offset shift shifted
		adjust adjusted narrow narrowed extend extended overlap overlaps plane planed sand sanded turn turned move
		moved measure measured measures weigh weighed weighs score scored scores rate rated ranked averaged sized
		spaced drilled bored milled`) {
		m[w] = true
	}
	return m
}()

// doneWord reports at j a verb's past form ("merged", "deployed",
// "posted") that is no word of change or measure: a day may follow it
// bare ("PR merged 11/13").
func (f *finder) doneWord(j int) bool {
	if j < 0 || f.t[j].kind != kWord || !f.t[j+1].space {
		return false
	}
	w := f.lowerWord(j)
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !changeWords[w] && !f.changeWord(j, false)
}

// endsBare reports that a day after a verb ends its clause at next: the
// end, a mark, or a word in lower case that ends a phrase ("Lease ends
// 6/30.", "merged 11/13 and deployed"; not "Brushed 18/10 Stainless").
func (f *finder) endsBare(next int) bool {
	if next >= len(f.t) || f.t[next].kind == kPunct {
		return true
	}
	return f.t[next].kind == kWord && !f.t[next].upper && (endsPhrase(f.t[next].kw) || afterDay[f.lowerWord(next)])
}

// lowerWord is the word at j in lower case.
func (f *finder) lowerWord(j int) string {
	if j < 0 || j >= len(f.t) {
		return ""
	}
	return strings.ToLower(f.s[f.t[j].start:f.t[j].end])
}

// colonAfter reports a colon at next, glued to the day before it or after
// Markdown's emphasis: "11/17: shipped", "**11/17**:".
func (f *finder) colonAfter(next int) bool {
	for k := next; k < next+3 && f.glued(k); k++ {
		if f.punct(k, ':') {
			return !f.glued(k+1) || !f.num(k+1) // not "1/16:1" (a ratio)
		}
		if !f.punct(k, '*') && !f.punct(k, '_') {
			return false
		}
	}
	return false
}

// moveWord reports a word at j that moves a date to what follows "to":
// "moved to 3/22", "pushed to", "postponed to".
func (f *finder) moveWord(j int) bool {
	for _, w := range [...]string{"moved", "pushed", "postponed", "rescheduled", "delayed", "changed", "bumped", "move", "push"} {
		if f.word(j, w) {
			return true
		}
	}
	return false
}

// counts reports whether the token at j is a word that a number before it
// may count ("1/16 inch", "the 1/13 and 1/20 cuts", "1/15 of the budget"):
// a word in lower case that does not end a phrase.
func (f *finder) counts(j int) bool {
	k := f.kw(j)
	if !f.sameLine(j) || !f.nounAfter(j) || k == kwLast || k == kwNext || k == kwThis { // "on 2/15 last year"
		return false
	}
	// what tells how or where, not what: "arrived on 1/20 damaged", "on
	// 2/15 feeling sick", "on 2/16 too"
	w := strings.ToLower(f.s[f.t[j].start:f.t[j].end])
	return !strings.HasSuffix(w, "ly") && !strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ed") && !afterDay[w]
}

// afterDay are words that follow a day as often as any: "on 2/15 too",
// "due 3/15 asap".
var afterDay = map[string]bool{"too": true, "also": true, "again": true, "instead": true, "because": true,
	"anyway": true, "though": true, "already": true, "yet": true, "either": true, "together": true, "alone": true,
	"home": true, "downtown": true, "overnight": true, "abroad": true, "please": true, "only": true, "asap": true,
	"lol": true, "btw": true, "fyi": true, "haha": true, "w": true, "onwards": true, "onward": true}

// lastOfList is the token after the last day of the list or range that s
// begins or goes on.
func (f *finder) lastOfList(s slashNums) int {
	for n := 0; n < 16; n++ {
		o, _, ok := f.joinedAfter(s.next)
		if !ok {
			break
		}
		s = o
	}
	return s.next
}

// slashDay reads at i a day written with slashes (see above).
func (f *finder) slashDay(i int) (Mention, int) {
	s, ok := f.slashAt(i)
	if !ok || !f.leftOK(i) && !f.punct(i-1, '-') && !(i > 0 && f.t[i-1].kind == kPunct && f.s[f.t[i-1].start] >= 0x80) {
		return Mention{}, i
	}
	j := s.next
	if f.glued(j) && (f.punct(j, '/') || f.punct(j, '-') && !f.joinedOK(s) && !(s.y4 && !f.num(j+1))) {
		return Mention{}, i // "1/16-inch", "2/15/2023/4"; not "2/15/2023-present"
	}
	if !f.rightOK(j) && !f.joinedOK(s) {
		return Mention{}, i
	}
	cue, order := cueDate, s.order()
	if !s.y4 || order == inDoubt {
		cue, order = f.slashCue(s, 16)
	}
	if order == inDoubt {
		return Mention{}, i
	}
	if !s.y4 {
		if f.inches(j) && cue != cueDate {
			return Mention{}, i // inches and feet: "1/16\"", "1/16”"
		}
		if cue == cueNone || cue == cueAmount && f.counts(f.lastOfList(s)) || f.expiry(i) {
			return Mention{}, i
		}
	}
	if s.y != 0 && (s.y < MinYear || s.y > MaxYear) {
		return Mention{}, j
	}
	m, d := s.md(order)
	y := s.y
	if o, isRange, ok := f.joinedAfter(s.next); y == 0 && ok && isRange && o.y != 0 {
		// the first end of "2/15-2/17/2023", read apart, in the last's year
		om, od := o.md(order)
		if y = o.y; m > om || m == om && d > od {
			y--
		}
	}
	return f.ymd(i, j, y, m, d)
}

// inches reports a mark of inches or feet at j, glued to the number
// before it: '"', "'" or "”", unless it closes a quote opened before on
// its line (“we'll meet on 2/15”).
func (f *finder) inches(j int) bool {
	if !f.glued(j) || f.t[j].kind != kPunct {
		return false
	}
	mark := f.s[f.t[j].start:f.t[j].end]
	open := map[string]string{"\"": "\"", "'": "'", "”": "“"}[mark]
	if open == "" {
		return false
	}
	line := f.s[:f.t[j].start]
	if k := strings.LastIndexByte(line, '\n'); k >= 0 {
		line = line[k+1:]
	}
	if open == mark {
		return strings.Count(line, mark)%2 == 0
	}
	return !strings.Contains(line, open)
}

// joinedOK reports whether a day with slashes is joined to s by a dash
// glued to it: "2/15-2/20".
func (f *finder) joinedOK(s slashNums) bool {
	_, _, ok := f.joinedAfter(s.next)
	return ok && f.glued(s.next)
}

// expiry reports a card's month and year ("expires on 08/27", "exp
// 9/28", "valid through 03/26") rather than a day: a word of expiry
// within the three words before i, or validity before a month written
// with a zero; and the month written with a zero or the year within ten
// of ref's ("Expires 12/15" is a day).
func (f *finder) expiry(i int) bool {
	padded := f.t[i].ndig == 2 && f.t[i].val < 10
	if yy := int(f.t[i+2].val); !padded && f.has && (yy < f.y%100 || yy > f.y%100+10) {
		return false // "Expires 12/15": no card of 2015
	}
	for j := i - 1; j >= i-3; j-- {
		for _, w := range [...]string{"expires", "expire", "expired", "expiring", "expiry", "expiration", "exp"} {
			if f.word(j, w) {
				return true
			}
		}
	}
	return padded && (f.word(i-2, "valid") || f.word(i-2, "good"))
}

// slashEnd reads at i an end of a range written with slashes, whose month
// is not in doubt, or for the last end (order set) in the first's order:
// "from 2/15 to 2/20", "15/2 - 20/2/2023", "from 2/25 to 3/2".
func (f *finder) slashEnd(i, order int) (e rangeEnd, ok bool) {
	s, ok := f.slashAt(i)
	if !ok {
		return e, false
	}
	o := s.order()
	if o == inDoubt {
		o = order
	} else if order != inDoubt && o != order {
		return e, false
	}
	if o == inDoubt {
		return e, false
	}
	m, d := s.md(o)
	e = rangeEnd{y: s.y, m: m, d: d, next: s.next, slash: o, nums: s}
	if f.glued(e.next) && f.punct(e.next, '/') {
		return e, false
	}
	return e, true
}

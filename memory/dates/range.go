package dates

import (
	"math"
	"strings"
	"time"
)

// A range is a span of days or of months written with both its ends: "3
// to 7 May", "2-6 November", "May 3-7, 2023", "from 30 April to 3 May",
// "between 11 and 15 August", "10 April until 14 April", "2023-05-03 to
// 2023-05-07", "from June to August", "June-August 2023"; or of years,
// after from or between: "from 2019 to 2021" (yearRange); or of
// weekdays, after from or between where a word tells the tense: "we
// were there from Monday to Wednesday" (weekdayRange). It is one
// mention, from its first day (or month) to its last, so that a question
// about the days between matches them all; Options.Apart reads its ends
// as two mentions instead (the entity extractor indexes each).
//
// An end may leave out what the other says: the month ("3 to 7 May",
// "May 3-7") and the year, which the other's gives, a year earlier when
// the first end falls after the last in the year ("28 December to 3
// January 2024"). Without a year, the year a day or a month alone would
// have (dayYear, monthYear) is the last end's in a sentence whose tense
// a word tells (a trip that has begun and ends ahead is this year's; one
// that ended in January, said in December, began the December before),
// else the first end's ("the office is closed 24 December - 2 January",
// said on 20 December, is this December's).
//
// What is not a range: "and" joins ends only after "between", and not
// after a choice ("torn between June and July"); months alone need
// "from" or "between" before them, a written year or a dash ("March-May",
// but not the idiom "a May-December romance"); a day alone after the
// month and day ("on May 3 to 10 customers") must end its phrase; a day
// and month followed by a day ("we lost 1-2 May 3rd") are no end; a
// sentence that moves a date ("the meeting was moved from 3 May to 10
// May") names two days, not the days between; the first end must come
// before the last, by at most a year (maxRangeDays days when the range
// runs into the next year).

// rangeEnd is an end of a range as written, 0 where a field is not.
type rangeEnd struct {
	y, m, d    int
	monthFirst bool // written month first: "May 3"
	next       int  // the token after it
	wd         int  // the weekday written before its day, Sunday 1 (0: none)
	slash      int  // written with slashes (slashEnd): its order, monthFirst or dayFirst
	nums       slashNums
}

// maxRangeDays bounds a range of days whose first end's month and day
// fall after its last's ("28 December to 3 January"): a longer one is
// read as two days ("from 5 May to 3 May"). Any other range of days is at
// most a year long.
const maxRangeDays = 184

// rangeAt reads a range whose first end starts at token i.
func (f *finder) rangeAt(i int) (Mention, int) {
	if f.apart || !f.leftOK(i) {
		return Mention{}, i
	}
	if m, n := f.yearRange(i); n > i {
		return m, n
	}
	if m, n := f.weekdayRange(i); n > i {
		return m, n
	}
	a, ok := f.rangeEnd(i, true)
	if !ok {
		return Mention{}, i
	}
	j := f.through(a.next, i)
	if j == 0 || j >= len(f.t) || f.t[j].line {
		return Mention{}, i
	}
	dash := f.t[j-1].kind == kPunct
	b, ok := f.rangeEnd(j, false)
	if a.slash != 0 {
		// the last end in the first's order: "from 2/25 to 3/2"; no
		// fractions or scores: "from 1/16 to 3/16 inch", "1/13 to 1/20 of"
		k, wd := j, 0
		if w, day := f.kw(k).weekday(); day && (f.sameLine(k+1) || f.punct(k+1, ',') && f.sameLine(k+2)) {
			if k, wd = k+1, w+1; f.punct(k, ',') {
				k++ // "Mon 2/13 - Fri, 2/17"
			}
		}
		b, ok = f.slashEnd(k, a.slash)
		b.wd = wd
		ok = ok && !fractions(a.nums, b.nums, true, a.slash) && (a.nums.y4 || !f.counts(b.next) && f.cueWord(a.nums.start, a.nums.next) != cueVeto)
	}
	if !ok || !f.rightOK(b.next) || f.kw(b.next) == kwAM || f.kw(b.next) == kwPM || f.moves(i) || a.slash != b.slash {
		return Mention{}, i
	}
	f.inRange = true
	defer func() { f.inRange = false }()
	switch {
	case a.d > 0 && b.d > 0 && a.m > 0 && (b.m > 0 || a.monthFirst && f.endsDay(b.next)):
		return f.dayRange(i, a, b)
	case a.d > 0 && b.d > 0 && a.m == 0 && b.m > 0:
		return f.dayRange(i, a, b)
	case a.d == 0 && b.d == 0 && a.m > 0 && b.m > 0 && (a.y > 0 || b.y > 0 || f.word(i-1, "from") || f.between(i) || dash && !(a.m == 5 && b.m == 12)):
		return f.monthRange(i, a, b)
	}
	return Mention{}, i
}

// yearRange reads a range of years at i after "from" or "between": "from
// 2019 to 2021", "between 2019 and 2021" (2019-01-01..2021-12-31), the
// first year before the last, at most a century apart, the last ending
// its phrase as a year alone must ("from 1990 to 2000 people" is no
// range). Years alone need the word: "2019-2021" may be a score.
func (f *finder) yearRange(i int) (Mention, int) {
	if !f.numN(i, 4) || !f.word(i-1, "from") && !f.between(i) {
		return Mention{}, i
	}
	j := f.through(i+1, i)
	if j == 0 || j >= len(f.t) || f.t[j].line || !f.numN(j, 4) || !f.rightOK(j+1) {
		return Mention{}, i
	}
	a, b := int(f.t[i].val), int(f.t[j].val)
	if a < MinYear || b > MaxYear || b <= a || b-a > 100 {
		return Mention{}, i
	}
	if f.nounAfter(j + 1) {
		return Mention{}, i
	}
	m := f.mention(i, j+1, Year, false, wallTime(a, 1, 1, 0, 0, 0, 0, f.loc), wallTime(b+1, 1, 1, 0, 0, 0, 0, f.loc))
	m.Year = a // the year its first end says, as a range's fields are
	return m, j + 1
}

// rangeEnd reads an end of a range at i: a day with or without its month
// and year (8 May 2023, 8th of May, May 8, 2023, 2023-05-08, 8, the 8th),
// or a month with or without its year (May, May 2023); a weekday before a
// day is passed over (Monday 8 May). A day alone needs a
// month at the other end, which rangeAt checks; first tells the first end
// from the last.
func (f *finder) rangeEnd(i int, first bool) (e rangeEnd, ok bool) {
	if w, day := f.kw(i).weekday(); day && (f.sameLine(i+1) || f.punct(i+1, ',') && f.sameLine(i+2)) {
		// "from Friday 3 May to Tuesday 7 May", "Mon 1 – Fri 5 May"
		if i++; f.punct(i, ',') {
			i++
		}
		if !f.num(i) && f.monthAt(i) == 0 {
			return e, false
		}
		e, ok = f.rangeEnd(i, first)
		e.wd = w + 1
		return e, ok
	}
	if f.kw(i) == kwThe && f.sameLine(i+1) && f.num(i+1) && f.glued(i+2) && f.kw(i+2) == kwOrd {
		i++ // "from the 1st to the 4th of July"
	}
	if f.numN(i, 4) {
		m, n := f.numeric(i)
		if n <= i || m.Day == 0 {
			return e, false
		}
		return rangeEnd{y: m.Year, m: m.Month, d: m.Day, next: n}, true
	}
	if e, ok := f.slashEnd(i, inDoubt); ok {
		return e, true
	}
	if f.num(i) {
		if e.d, e.next = f.rangeDay(i); e.d == 0 {
			return e, false
		}
		j := e.next
		if f.sameLine(j) && f.kw(j) == kwOf {
			j++
		}
		if e.m = f.monthAt(j); e.m > 0 && f.sameLine(j) {
			e.next = f.abbrDot(j)
			if d, _ := f.rangeDay(e.next); d > 0 && f.sameLine(e.next) {
				return e, false // "1-2 May 3rd": the day is the month's own
			}
			e.y, e.next = f.rangeYear(e.next)
		} else if e.m = 0; !first {
			e.y, e.next = f.rangeYear(e.next) // "May 3-7, 2023"
		}
		return e, true
	}
	if e.m = f.monthAt(i); e.m == 0 {
		return e, false
	}
	e.next = f.abbrDot(i)
	if f.sameLine(e.next) {
		if d, k := f.rangeDay(e.next); d > 0 {
			e.d, e.next, e.monthFirst = d, k, true
		}
	}
	e.y, e.next = f.rangeYear(e.next)
	return e, true
}

// rangeDay reads a day of the month at i (8, 08, 8th) and the token after
// it, or 0; unlike dayNum it may follow a dash ("3-7").
func (f *finder) rangeDay(i int) (int, int) {
	if !f.num(i) || f.t[i].ndig > 2 || f.t[i].val < 1 || f.t[i].val > 31 {
		return 0, i
	}
	d, j := int(f.t[i].val), i+1
	if f.glued(j) && f.kw(j) == kwOrd {
		if !ordinalOK(d, f.s[f.t[j].start:f.t[j].end]) {
			return 0, i
		}
		j++
	}
	return d, j
}

// rangeYear reads a year after an end at i, with or without a comma, and
// the token after it; not a number after a comma that counts what
// follows it ("May 3 to 10, 2000 people").
func (f *finder) rangeYear(i int) (int, int) {
	y, j := f.yearAt(i)
	if y < MinYear || y > MaxYear || f.punct(i, ',') && j < len(f.t) && f.t[j].kind == kWord && !f.t[j].upper && !endsPhrase(f.t[j].kw) {
		return 0, i
	}
	return y, j
}

// endsDay reports whether the day alone that ends a range ("May 3-7")
// ends its phrase at j, rather than counting what follows it ("May 3 to
// 10 customers").
func (f *finder) endsDay(j int) bool {
	return j >= len(f.t) || f.t[j].kind != kWord || f.t[j].upper || f.t[j].kw != kwNone ||
		f.pronoun(j) || f.word(j, "and") || f.word(j, "but") || f.word(j, "so")
}

// through reads the word or dash at j that joins the ends of a range
// whose first end starts at i, and returns the token after it, or 0.
func (f *finder) through(j, i int) int {
	if j >= len(f.t) {
		return 0
	}
	switch t := f.t[j]; {
	case t.kind == kPunct:
		switch f.s[t.start:t.end] {
		case "-", "–", "—":
			return j + 1
		}
	case t.kw == kwTo, f.word(j, "until"), f.word(j, "till"), f.word(j, "through"), f.word(j, "thru"):
		return j + 1
	case f.word(j, "and") && f.between(i):
		return j + 1
	}
	return 0
}

// between reports "between" before i, not after a choice ("torn between
// June and July", "decide between 3 May and 7 May").
func (f *finder) between(i int) bool {
	if !f.word(i-1, "between") {
		return false
	}
	for _, w := range [...]string{"decide", "deciding", "decided", "choose", "choosing", "chose", "pick", "picking", "torn", "choice", "undecided"} {
		if f.word(i-2, w) {
			return false
		}
	}
	return true
}

// movers are the verbs that move a date from one day to another: a
// "from ... to ..." after them names two days, not the days between.
var movers = map[string]bool{
	"move": true, "moved": true, "moves": true, "moving": true,
	"postpone": true, "postponed": true, "postpones": true, "postponing": true,
	"reschedule": true, "rescheduled": true, "reschedules": true, "rescheduling": true,
	"push": true, "pushed": true, "delay": true, "delayed": true,
	"shift": true, "shifted": true, "change": true, "changed": true,
	"bump": true, "bumped": true, "bring": true, "brought": true,
	"switch": true, "switched": true,
}

// moves reports a verb that moves a date before i in its sentence.
func (f *finder) moves(i int) bool {
	lo, _ := f.sentence(i)
	for j := i - 1; j >= lo; j-- {
		if t := f.t[j]; t.kind == kWord && t.end-t.start <= 12 && movers[strings.ToLower(f.s[t.start:t.end])] {
			return true
		}
	}
	return false
}

// dayRange makes the mention of the days from a to b, the range at i.
func (f *finder) dayRange(i int, a, b rangeEnd) (Mention, int) {
	if a.m == 0 || b.m == 0 {
		if a.d >= b.d {
			return Mention{}, i // "9 to 5 May": no range
		}
		a.m, b.m = max(a.m, b.m), max(a.m, b.m) // "3 to 7 May", "May 3-7"
	}
	if a.m > 12 || b.m > 12 || a.d > daysIn(0, a.m) || b.d > daysIn(0, b.m) {
		return Mention{}, i // no such day in any year ("31 April")
	}
	before := a.m > b.m || a.m == b.m && a.d >= b.d // the first end's month and day after the last's
	written := a.y > 0 || b.y > 0
	if !f.rangeYears(i, &a, &b, before, func(e rangeEnd, at int) (int, bool) { return f.dayYear(at, b.next, e.m, e.d) }) {
		return Mention{}, b.next // "every year from 1 to 7 May"
	}
	mm := Mention{Start: f.t[i].start, End: f.t[b.next-1].end, Grain: Day, Month: a.m, Day: a.d}
	if !f.has && !written {
		return mm, b.next // no reference: the fields alone
	}
	if checkDate(a.y, a.m, a.d) != nil || checkDate(b.y, b.m, b.d) != nil {
		if written {
			return Mention{}, b.next // "29 February to 3 March 2023", a year out of bounds
		}
		return Mention{}, i
	}
	from, _ := f.dayOf(a.y, a.m, a.d)
	last, to := f.dayOf(b.y, b.m, b.d)
	if days := last.Sub(from) / (24 * time.Hour); days <= 0 || days > 365 || before && days > maxRangeDays {
		return Mention{}, i
	}
	if written {
		mm.Year = a.y
	}
	mm.From, mm.To = from, to
	return mm, b.next
}

// monthRange makes the mention of the months from a to b, the range at i.
func (f *finder) monthRange(i int, a, b rangeEnd) (Mention, int) {
	before := a.m >= b.m
	written := a.y > 0 || b.y > 0
	if !f.rangeYears(i, &a, &b, before, func(e rangeEnd, at int) (int, bool) { return f.monthYear(at, b.next, e.m) }) {
		return Mention{}, b.next // "every year from June to August"
	}
	mm := Mention{Start: f.t[i].start, End: f.t[b.next-1].end, Grain: Month, Month: a.m}
	if !f.has && !written {
		return mm, b.next
	}
	if n := b.y*12 + b.m - (a.y*12 + a.m); n <= 0 || n > 11 {
		return Mention{}, i
	}
	if a.y < MinYear || b.y > MaxYear {
		if written {
			return Mention{}, b.next
		}
		return mm, b.next
	}
	if written {
		mm.Year = a.y
	}
	mm.From, _ = f.monthOf(a.y, a.m)
	_, mm.To = f.monthOf(b.y, b.m)
	return mm, b.next
}

// rangeYears completes the years of the ends a and b of the range at i
// (before: the first's month and day fall after the last's): a year
// written at one end gives the other, a year apart across a new year;
// with none (and a reference), year reads an end's as a day or month
// alone: the last end's in a sentence that tells its tense ("we were in
// Paris 28 December to 3 January", "I'll be there from 8 to 12 May"), the
// first's in one that does not ("the office is closed 24 December - 2
// January", said on the 20th). Not ok for a habit's range.
func (f *finder) rangeYears(i int, a, b *rangeEnd, before bool, year func(e rangeEnd, at int) (int, bool)) bool {
	switch {
	case a.y > 0 && b.y > 0:
	case a.y > 0:
		b.y = a.y + btoi(before)
	case b.y > 0:
		a.y = b.y - btoi(before)
	case f.has:
		// the tense is read at either end ("from the 3rd to the 7th of
		// May I'll be in Rome")
		at := i
		_, told := f.tenseOf(i)
		if !told {
			if _, told = f.tenseOf(b.next - 1); told {
				at = b.next - 1
			}
		}
		e := *a
		if told {
			e = *b
		}
		y, ok := year(e, at)
		if !ok {
			return false
		}
		a.y, b.y = y, y+btoi(before)
		if told {
			a.y, b.y = y-btoi(before), y
		}
		f.agreeRange(a, b)
	}
	return true
}

// agreeRange moves a range whose year was not written a year back or on
// when the weekday written before an end falls on its day only there
// ("Thursday 2 January to Sunday 5 January", said in September 2024, is
// 2025), the nearer to the reference first.
func (f *finder) agreeRange(a, b *rangeEnd) {
	agrees := func(dy int) bool {
		for _, e := range [2]*rangeEnd{a, b} {
			if e.wd > 0 && (checkDate(e.y+dy, e.m, e.d) != nil || int(time.Date(e.y+dy, time.Month(e.m), e.d, 0, 0, 0, 0, time.UTC).Weekday()) != e.wd-1) {
				return false
			}
		}
		return true
	}
	if a.wd == 0 && b.wd == 0 || agrees(0) {
		return
	}
	best, far := 0, time.Duration(math.MaxInt64)
	for _, dy := range [2]int{-1, 1} {
		if d, _ := f.dayOf(a.y+dy, a.m, a.d); agrees(dy) && f.fromRef(d) < far {
			best, far = dy, f.fromRef(d)
		}
	}
	a.y, b.y = a.y+best, b.y+best
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// weekdayRange reads a range of weekdays at i after "from" or "between" in
// a question (Options.Recent: "What did we do from Monday to Wednesday?",
// "What happened between Tuesday and Friday?"): the latest such days ended
// before ref's day, said on a Tuesday last week's, or where the sentence
// looks ahead the first begun after it ("What will we do from Monday to
// Wednesday?"). Not in the present tense ("Is the shop open from Monday to
// Saturday?", "Do I work from Monday to Friday?": a schedule); nor in a
// memory, where such a range is mostly a schedule or a habit whatever the
// tense ("the store was open from Monday to Saturday", "I had classes from
// Monday to Friday") and its weekdays are read as habitual.
func (f *finder) weekdayRange(i int) (Mention, int) {
	a, ok := f.kw(i).weekday()
	if !ok || !f.word(i-1, "from") && !f.between(i) || f.moves(i) {
		return Mention{}, i
	}
	j := f.through(i+1, i)
	if j == 0 || j >= len(f.t) || f.t[j].line {
		return Mention{}, i
	}
	b, ok := f.kw(j).weekday()
	if !ok || !f.rightOK(j+1) || f.sameLine(j+1) && f.num(j+1) { // "to Friday 5 May": rangeEnd's
		return Mention{}, i
	}
	ahead, told := f.tenseOf(i)
	if !f.recent || f.present(i) && (ahead || !told) {
		return Mention{}, i
	}
	a, b = (a+6)%7, (b+6)%7 // Monday 0
	n := (b - a + 7) % 7    // the days from the first to the last
	var first int           // in days from ref's
	if ahead {
		if first = (a - f.wd + 7) % 7; first == 0 {
			first = 7
		}
	} else {
		last := -((f.wd - b + 7) % 7)
		if last == 0 {
			last = -7
		}
		first = last - n
	}
	return f.rel(i, j+1, Day, f.days(first, first+n+1))
}

// present reports a word of the present tense in the sentence of i: is,
// are, am, 's, and do or does before its subject ("Do I work", "What do we
// have"; not "What will we do").
func (f *finder) present(i int) bool {
	lo, hi := f.sentence(i)
	for j := lo; j <= hi; j++ {
		if f.kw(j) == kwIs || f.word(j, "am") || f.word(j, "s") && f.punct(j-1, '\'') ||
			(f.word(j, "do") || f.word(j, "does")) && f.pronoun(j+1) {
			return true
		}
	}
	return false
}

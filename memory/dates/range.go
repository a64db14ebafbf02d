package dates

import "time"

// A range is a span of days or of months written with both its ends: "3
// to 7 May", "2-6 November", "May 3-7, 2023", "from 30 April to 3 May",
// "between 11 and 15 August", "10 April until 14 April", "2023-05-03 to
// 2023-05-07", "June to August 2023", "between March and May". It is one
// mention, from its first day (or month) to its last, so that a question
// about the days between matches them all; Options.Apart reads its ends
// as two mentions instead (the entity extractor indexes each).
//
// An end may leave out what the other says: the month ("3 to 7 May",
// "May 3-7") and the year, which the other's gives, a year earlier when
// the first end falls after the last in the year ("28 December to 3
// January 2024"). Without a year the first end's is the one its sentence
// gives a day or a month alone (dayYear, monthYear), and the last end is
// the first such day or month from it. "and" joins ends only after
// "between"; months alone need "from" or "between" before them, a year or
// a dash ("June-August"), since "to" alone may join two things ("moved it
// March to May"). The first end must come before the last, at most a year
// before; else the ends are read as they would be apart.

// rangeEnd is an end of a range as written, 0 where a field is not.
type rangeEnd struct {
	y, m, d int
	next    int // the token after it
}

// maxRangeDays bounds a range of days: a longer one is not read as one.
const maxRangeDays = 366

// rangeAt reads a range whose first end starts at token i.
func (f *finder) rangeAt(i int) (Mention, int) {
	if f.apart || !f.leftOK(i) {
		return Mention{}, i
	}
	a, ok := f.rangeEnd(i, true)
	if !ok {
		return Mention{}, i
	}
	j, dash := f.through(a.next, i)
	if j == 0 || j >= len(f.t) || f.t[j].line {
		return Mention{}, i
	}
	b, ok := f.rangeEnd(j, false)
	if !ok || !f.rightOK(b.next) || f.kw(b.next) == kwAM || f.kw(b.next) == kwPM {
		return Mention{}, i
	}
	switch {
	case a.d > 0 && b.d > 0 && (a.m > 0 || b.m > 0):
		return f.dayRange(i, a, b)
	case a.d == 0 && b.d == 0 && a.m > 0 && b.m > 0 && (dash || a.y > 0 || b.y > 0 || f.word(i-1, "from") || f.word(i-1, "between")):
		return f.monthRange(i, a, b)
	}
	return Mention{}, i
}

// rangeEnd reads an end of a range at i: a day with or without its month
// and year (8 May 2023, 8th of May, May 8, 2023, 2023-05-08, 8), or a
// month with or without its year (May, May 2023). A day alone needs a
// month at the other end, which rangeAt checks; first tells the first end
// from the last.
func (f *finder) rangeEnd(i int, first bool) (e rangeEnd, ok bool) {
	if f.numN(i, 4) {
		m, n := f.numeric(i)
		if n <= i || m.Day == 0 {
			return e, false
		}
		return rangeEnd{m.Year, m.Month, m.Day, n}, true
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
			e.d, e.next = d, k
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

// rangeYear reads a year after an end at i, with or without a comma.
func (f *finder) rangeYear(i int) (int, int) {
	if y, j := f.yearAt(i); y >= MinYear && y <= MaxYear {
		return y, j
	}
	return 0, i
}

// through reads the word or dash at j that joins the ends of a range
// whose first end starts at i, and returns the token after it (0 when
// there is none) and whether it is a dash.
func (f *finder) through(j, i int) (next int, dash bool) {
	if j >= len(f.t) || f.t[j].line {
		return 0, false
	}
	switch t := f.t[j]; {
	case t.kind == kPunct:
		switch f.s[t.start:t.end] {
		case "-", "–", "—":
			return j + 1, true
		}
	case t.kw == kwTo, f.word(j, "until"), f.word(j, "till"), f.word(j, "through"), f.word(j, "thru"):
		return j + 1, false
	case f.word(j, "and") && f.word(i-1, "between"):
		return j + 1, false
	}
	return 0, false
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
	mm := Mention{Start: f.t[i].start, End: f.t[b.next-1].end, Grain: Day, Month: b.m, Day: b.d}
	written := a.y > 0 || b.y > 0
	switch {
	case a.y > 0 && b.y > 0:
	case a.y > 0:
		b.y = a.y + btoi(before)
	case b.y > 0:
		a.y = b.y - btoi(before)
	case !f.has:
		return f.dayRangeChecked(mm, i, a, b)
	default:
		y, ok := f.dayYear(i, b.next, a.m, a.d)
		if !ok {
			return Mention{}, b.next // "every year from 1 to 7 May"
		}
		a.y, b.y = y, y+btoi(before)
	}
	if written {
		mm.Year = b.y
	}
	return f.dayRangeChecked(mm, i, a, b)
}

// dayRangeChecked sets mm's period, from a's day to b's, when both days
// are real and a comes before b by at most maxRangeDays; else there is no
// range at i.
func (f *finder) dayRangeChecked(mm Mention, i int, a, b rangeEnd) (Mention, int) {
	if !f.has && a.y == 0 {
		return mm, b.next // no reference: the fields alone
	}
	if checkDate(a.y, a.m, a.d) != nil || checkDate(b.y, b.m, b.d) != nil {
		return Mention{}, i
	}
	from, _ := f.dayOf(a.y, a.m, a.d)
	last, to := f.dayOf(b.y, b.m, b.d)
	if !last.After(from) || last.Sub(from) > maxRangeDays*24*time.Hour {
		return Mention{}, i
	}
	if from.Year() < MinYear || to.Year() > MaxYear {
		return mm, b.next
	}
	mm.From, mm.To = from, to
	return mm, b.next
}

// monthRange makes the mention of the months from a to b, the range at i.
func (f *finder) monthRange(i int, a, b rangeEnd) (Mention, int) {
	before := a.m >= b.m
	mm := Mention{Start: f.t[i].start, End: f.t[b.next-1].end, Grain: Month, Month: b.m}
	written := a.y > 0 || b.y > 0
	switch {
	case a.y > 0 && b.y > 0:
	case a.y > 0:
		b.y = a.y + btoi(before)
	case b.y > 0:
		a.y = b.y - btoi(before)
	case !f.has:
		return mm, b.next
	default:
		y, ok := f.monthYear(i, b.next, a.m)
		if !ok {
			return Mention{}, b.next // "every year from June to August"
		}
		a.y, b.y = y, y+btoi(before)
	}
	if written {
		mm.Year = b.y
	}
	from, _ := f.monthOf(a.y, a.m)
	last, to := f.monthOf(b.y, b.m)
	if !last.After(from) || b.y*12+b.m-(a.y*12+a.m) > 11 {
		return Mention{}, i
	}
	if a.y >= MinYear && b.y <= MaxYear {
		mm.From, mm.To = from, to
	}
	return mm, b.next
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

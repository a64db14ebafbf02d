package dates

import "time"

// Calendar quarters: "Q3", "Q3 2026", "Q1 of 2025", and "last quarter",
// "this quarter", "next quarter" (lastNext). A fiscal year that starts in
// another month is not known here: a quarter is January to March, April
// to June, July to September or October to December.

// quarter reads "Q1" to "Q4" at i, the number glued to the word "Q" before
// it, with a year after it ("Q3 2026", "Q3 of 2026") or without one: then,
// as a month alone, the latest such quarter begun, or in a sentence about
// the future the next one; none for a habit ("every Q4") or where the
// sentence names a year with no number.
func (f *finder) quarter(i int) (Mention, int) {
	if i == 0 || f.t[i].space || f.t[i].ndig != 1 || !f.word(i-1, "q") || !f.leftOK(i-1) || !f.rightOK(i+1) {
		return Mention{}, i
	}
	q := int(f.t[i].val)
	if q < 1 || q > 4 {
		return Mention{}, i
	}
	first := 3*q - 2 // its first month
	j := i + 1
	of := j
	if f.kw(of) == kwOf {
		of++
	}
	if y, k := f.yearAt(of); y > 0 && f.spaced(of) {
		if y < MinYear || y > MaxYear {
			return Mention{}, k
		}
		p := f.quarterOf(y, first)
		m := f.mention(i-1, k, Quarter, false, p.from, p.to)
		m.Year = y
		return m, k
	}
	m := f.mention(i-1, j, Quarter, false, time.Time{}, time.Time{})
	if !f.has {
		return m, j
	}
	y, ok := f.quarterYear(i-1, j, first)
	if !ok {
		return Mention{}, j
	}
	if y >= MinYear && y <= MaxYear {
		p := f.quarterOf(y, first)
		m.From, m.To = p.from, p.to
	}
	return m, j
}

// quarterYear is the year of the quarter that starts in month first,
// written as tokens [i, j) without one: as monthYear's, of its first
// month (the latest quarter begun), or in a sentence about the future of
// its last (the next quarter not yet ended).
func (f *finder) quarterYear(i, j, first int) (int, bool) {
	if f.kw(i-1) == kwEvery {
		return 0, false
	}
	if f.ahead(i) {
		return f.monthYear(i, j, first+2) // the quarter not yet ended
	}
	return f.monthYear(i, j, first)
}

// quarterOf returns the three months from month first of year y.
func (f *finder) quarterOf(y, first int) period {
	return period{wallTime(y, time.Month(first), 1, 0, 0, 0, 0, f.loc), wallTime(y, time.Month(first+3), 1, 0, 0, 0, 0, f.loc)}
}

// lastNextQuarter is "last quarter", "this quarter" or "next quarter"
// (dir -1, 0, 1) as tokens [i, j).
func (f *finder) lastNextQuarter(i, j, dir int) (Mention, int) {
	first := (f.m-1)/3*3 + 3*dir // ref's quarter's first month, 0-based, moved
	return f.rel(i, j, Quarter, f.months(first-(f.m-1), first-(f.m-1)+3))
}

package dates

import "time"

// Calendar quarters: "Q3 2026", "Q1 of 2025", "Q4'25", "Q1-Q2 2023",
// "Q3/Q4 2024", and "last quarter", "this quarter", "next quarter"
// (lastNext). A fiscal year that starts in another month is not known
// here: a quarter is January to March, April to June, July to September
// or October to December.
//
// "Q3" without a year is many things besides a quarter (an Audi Q3, a
// quiz's third question, a game's fourth quarter, headphones), so a
// memory's is left alone; a question's (Options.Recent: "What did we ship
// in Q3?") is read after a word that announces a date (in, during, by,
// since, until, through, from, before, after, of), as the latest quarter
// begun, or in a sentence about the future the next one not yet ended.

// quarter reads a quarter, or a range of them, at i: the number of its
// first "Q" ("Q" and the number glued, not after a capitalised name: "Audi
// Q3").
func (f *finder) quarter(i int) (Mention, int) {
	q, ok := f.quarterAt(i)
	if !ok || !f.leftOK(i-1) || f.named(i-1) {
		return Mention{}, i
	}
	last, j := q, i+1
	k := f.through(j, i)
	if k == 0 && f.word(j, "and") {
		k = j + 1
	}
	if k > 0 && k+1 < len(f.t) { // "Q1-Q2", "Q3 to Q4", "Q1 and Q2"
		if q2, ok := f.quarterAt(k + 1); ok && q2 > q {
			last, j = q2, k+2
		}
	} else if f.punct(j, '/') && f.glued(j) { // "Q3/Q4"
		if q2, ok := f.quarterAt(j + 2); ok && q2 > q && f.glued(j+1) {
			last, j = q2, j+3
		}
	}
	if !f.rightOK(j) && !f.punct(j, '\'') {
		return Mention{}, i
	}
	first := 3*q - 2 // its first month
	if y, k := f.quarterYearAt(j); y > 0 {
		if y < MinYear || y > MaxYear {
			return Mention{}, k
		}
		p := f.quarters(y, first, last)
		m := f.mention(i-1, k, Quarter, false, p.from, p.to)
		m.Year = y
		return m, k
	}
	if !f.recent || !f.has || !f.cued(i-1, true) || f.kw(i-2) == kwEvery {
		return Mention{}, j
	}
	y, ok := f.quarterYear(i-1, j, first, 3*last)
	if !ok || y < MinYear || y > MaxYear {
		return Mention{}, j
	}
	p := f.quarters(y, first, last)
	return f.mention(i-1, j, Quarter, false, p.from, p.to), j
}

// quarterAt reads "Q1" to "Q4" whose number is at i.
func (f *finder) quarterAt(i int) (int, bool) {
	if i <= 0 || i >= len(f.t) || f.t[i].space || f.t[i].ndig != 1 || !f.word(i-1, "q") {
		return 0, false
	}
	q := int(f.t[i].val)
	return q, q >= 1 && q <= 4
}

// named reports a capitalised word before i that is no sentence's first:
// a name the token at i belongs to ("Audi Q3", "Infiniti Q50").
func (f *finder) named(i int) bool {
	return i > 0 && f.t[i-1].kind == kWord && f.t[i-1].upper && !f.opens(i-1) && f.t[i].space
}

// quarterYearAt reads the year of a quarter at j: "2026", "of 2026", or a
// short year glued after an apostrophe ("Q4'25": 2025).
func (f *finder) quarterYearAt(j int) (int, int) {
	if f.punct(j, '\'') && f.glued(j) && f.glued(j+1) && f.numN(j+1, 2) && f.rightOK(j+2) {
		return 2000 + int(f.t[j+1].val), j + 2
	}
	of := j
	if f.kw(of) == kwOf {
		of++
	}
	if !f.spaced(of) {
		return 0, j
	}
	return f.yearAt(of)
}

// quarterYear is the year of quarters from month first to month last,
// written as tokens [i, j) without one: as monthYear's, of the first month
// (the latest quarter begun), or in a sentence about the future of the
// last (the next not yet ended).
func (f *finder) quarterYear(i, j, first, last int) (int, bool) {
	if f.ahead(i) {
		return f.monthYear(i, j, last)
	}
	return f.monthYear(i, j, first)
}

// quarters returns the months of quarters from the one starting in month
// first to quarter last, of year y.
func (f *finder) quarters(y, first, last int) period {
	return period{wallTime(y, time.Month(first), 1, 0, 0, 0, 0, f.loc), wallTime(y, time.Month(3*last+1), 1, 0, 0, 0, 0, f.loc)}
}

// lastNextQuarter is "last quarter", "this quarter" or "next quarter"
// (dir -1, 0, 1) as tokens [i, j).
func (f *finder) lastNextQuarter(i, j, dir int) (Mention, int) {
	first := (f.m-1)/3*3 + 3*dir // ref's quarter's first month, 0-based, moved
	return f.rel(i, j, Quarter, f.months(first-(f.m-1), first-(f.m-1)+3))
}

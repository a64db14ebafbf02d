package dates

// The week, month, quarter or year a part of it names without a word of
// which: "by the end of the month", "end of week", "at the start of the
// year". "The month" alone is none ("during the week" is a habit's), but
// after the words of a part (start, beginning, middle, end, and "of") it
// is one near ref, and which one its sentence says:
//
//   - told in the past (was, were, had, did: "by the end of the year I
//     was burned out"), the latest whose part has begun by ref's day;
//   - looking ahead or setting a deadline ("we'll hire at the beginning of
//     the year", "by the end of the month", "before the end of the year",
//     "deadline - end of the month"), the one ref is in, or the
//     next where the part's own day has passed: its first for a start, its
//     middle, its last for an end ("at the start of the month", said on
//     the 7th, is next month's start; "by the end of the month" this
//     month's until its last day);
//   - in the present ("the end of the week looks packed" with is or are;
//     "the end of the week is packed"), the one ref is in;
//   - else, as a memory mostly tells the past, the latest whose part has
//     begun ("at the end of the month we closed the books", said on 7
//     December, is November's).
//
// None in a habit ("we always get paid at the end of the month"), before
// a noun it names ("the end of the month report", "end of year review"),
// or before a word that says which ("the end of the month after next",
// "the end of the week of May 22", "the end of the year 2022": the words
// after it read that).

// thisUnit reads "the week", "the month", "the quarter" or "the year" at
// i, or the unit alone ("end of week"), after a part's words (see above).
func (f *finder) thisUnit(i int) (Mention, int) {
	u := i
	if f.kw(u) == kwThe {
		u++
	}
	if f.kw(i-1) != kwOf || !f.partWord(i-2) || !f.unitAt(u) || !f.clauseGoesOn(u, u+1) {
		return Mention{}, i
	}
	if f.usualIn(f.partStart(i), i) {
		return Mention{}, u + 1 // "we always get paid at the end of the month": every month's
	}
	begun := func(dir int) bool {
		part, _ := f.partOf(f.unitOf(i, u, dir), i)
		return !part.From.After(f.refDay())
	}
	dir := 0
	switch {
	case f.behind(i):
		if !begun(0) {
			dir = -1
		}
	case f.ahead(i) || f.dueBy(f.partStart(i), i):
		if f.partDayPassed(f.unitOf(i, u, 0), i-2) {
			dir = 1
		}
	case f.presentBe(i):
	case !begun(0):
		dir = -1
	}
	m := f.unitOf(i, u, dir)
	m.Back = dir < 0
	return m, u + 1
}

// dueBy reports a deadline set by the words of a part that starts at at,
// of the unit at i: by, until, till or before right before it ("by the
// end of the month", "before the end of the year"), or "deadline" or
// "due" in its sentence ("deadline - end of the month").
func (f *finder) dueBy(at, i int) bool {
	if f.deadline(at) || f.word(at-1, "before") {
		return true
	}
	lo, hi := f.sentenceOf(at, i)
	for k := lo; k <= hi; k++ {
		if f.word(k, "deadline") || f.word(k, "due") {
			return true
		}
	}
	return false
}

// unitAt reports a unit the parts of which thisUnit reads at u.
func (f *finder) unitAt(u int) bool {
	return f.kw(u) == kwWeek && f.word(u, "week") || f.kw(u) == kwMonth && f.word(u, "month") ||
		f.kw(u) == kwYear && f.word(u, "year") || f.word(u, "quarter")
}

// unitOf is the unit at u (unitAt) dir units from the one ref is in, as
// the mention of tokens [i, u].
func (f *finder) unitOf(i, u, dir int) Mention {
	var m Mention
	switch {
	case f.kw(u) == kwWeek:
		m, _ = f.rel(i, u+1, Week, f.days(7*dir-f.wd, 7*dir+7-f.wd))
	case f.kw(u) == kwMonth:
		m, _ = f.rel(i, u+1, Month, f.months(dir, dir+1))
	case f.kw(u) == kwYear:
		m, _ = f.rel(i, u+1, Year, f.years(dir, dir+1))
	default:
		m, _ = f.lastNextQuarter(i, u+1, dir)
	}
	return m
}

// partDayPassed reports whether the day of m's part that the part's word
// at w names has passed by ref's day: its first for a start or a
// beginning, its middle, its last for an end.
func (f *finder) partDayPassed(m Mention, w int) bool {
	part, _ := f.partOf(m, w+2) // the unit's first token
	day := part.From
	switch {
	case f.word(w, "middle"):
		day = part.From.Add(part.To.Sub(part.From) / 2)
	case f.word(w, "end"):
		day = part.To.AddDate(0, 0, -1)
	}
	return day.Before(f.refDay())
}

// clauseGoesOn reports that the token at k, after the unit at u, does not
// make the unit name something else: the text or clause ends, or a
// keyword, a pronoun or a conjunction comes, or a name where the unit is
// not written with a capital ("at the end of the month Sam left"); not a
// noun it names ("the end of the month report", "end of year review"),
// nor a word that says which ("after next", "before last", "of May 22", a
// year).
func (f *finder) clauseGoesOn(u, k int) bool {
	if k >= len(f.t) || f.t[k].line || f.t[k].kind == kPunct {
		return true
	}
	switch f.kw(k) {
	case kwOf, kwBefore, kwAfter, kwNext, kwLast:
		return false
	case kwNone:
	default:
		return f.t[k].kind != kNum
	}
	if f.t[k].kind == kNum {
		return false
	}
	for _, w := range [...]string{"and", "but", "so", "then", "when", "if", "it", "there", "everyone", "everything", "nobody", "things"} {
		if f.word(k, w) {
			return true
		}
	}
	return f.pronoun(k) || f.t[k].upper && !f.t[u].upper
}

// presentBe reports a form of be in the present in the sentence of the
// date at i: "the end of the week is packed".
func (f *finder) presentBe(i int) bool {
	lo, hi := f.sentence(i)
	for k := lo; k <= hi; k++ {
		if be, _ := f.be(k); be {
			return true
		}
	}
	return false
}

// partWord reports a word of a part of a period at i that "of" follows:
// start, beginning, middle or end.
func (f *finder) partWord(i int) bool {
	return f.word(i, "start") || f.word(i, "beginning") || f.word(i, "middle") || f.word(i, "end")
}

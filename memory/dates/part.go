package dates

import "time"

// Part of a period: "early March", "mid-2023", "late last week", "the
// start of next month", "the end of October", "the middle of the year".
// The word narrows the period to a half of it: "early" (and "the start of",
// "the beginning of") the first half, "late" (and "the end of") the second,
// "mid" (and "the middle of") the half about its middle. Halves, not
// thirds, since people stretch them ("early June" is said of the 12th
// too), and a narrowed period that missed the day meant would lose what a
// whole one found. "The first week of May" (second, third, fourth, last)
// is its days 1 to 7 (8 to 14, ..., its last seven), and "the first half
// of 2023" (second) a half exactly. A year's parts are whole months, the
// others' whole days.

// partOf narrows m, found at token i, to the part of its week, month,
// quarter, season or year the words before it name, the words then part
// of the mention; it returns the token the mention starts at.
func (f *finder) partOf(m Mention, i int) (Mention, int) {
	if m.From.IsZero() || m.Grain == Day || m.Grain == Weekend {
		return m, i
	}
	word, at := f.partBefore(i)
	if at == i || word == f.periodWordAt(i) && m.Relative && !f.opensPhrase(word) {
		return m, i // none, or "I worked late this week": the word is the verb's
	}
	n, unit := int(m.To.Sub(m.From).Hours()/24+0.5), 1 // the days
	if n >= 365 {
		n, unit = 12, 0 // a year's months
	}
	a, b := f.part(word, n, m.Grain)
	if b == 0 {
		return m, i
	}
	y, mo, d := m.From.Date()
	m.From = wallTime(y, mo+time.Month(a*(1-unit)), d+a*unit, 0, 0, 0, 0, f.loc)
	m.To = wallTime(y, mo+time.Month(b*(1-unit)), d+b*unit, 0, 0, 0, 0, f.loc)
	m.Start = f.t[at].start
	return m, at
}

// partBefore finds the words before the date at i that name a part of
// it: word says which ("early", "end", "first" of "the first week of"),
// and at is the first of them ("the" of "the end of"); at is i when
// there are none.
func (f *finder) partBefore(i int) (word, at int) {
	if w := f.periodWordAt(i); w < i {
		return w, w // "early March", "mid-2021"
	}
	if f.kw(i-1) != kwOf {
		return i, i
	}
	word = i - 2 // "the end of"
	unit := f.kw(word) == kwWeek || f.word(word, "half")
	if unit {
		word-- // "the first week of", "the second half of"
	}
	ok := f.partWord(word)
	for _, w := range [...]string{"first", "second", "third", "fourth", "last"} {
		ok = ok || f.word(word, w)
	}
	switch {
	case !ok, unit && f.kw(word-1) != kwThe:
		return i, i // "half of 2000", "a week of May"
	case f.kw(word-1) == kwThe:
		return word, word - 1
	}
	return word, word
}

// part returns the days (or a year's months) [a, b) of the part word
// names of a period of n of them and grain g; b is 0 for none. "The first
// of May" is no part (first and second need "half", or "week").
func (f *finder) part(word, n int, g Grain) (a, b int) {
	half := f.word(word+1, "half")
	switch {
	case f.kw(word+1) == kwWeek:
		if g != Month {
			return 0, 0
		}
		for k, w := range []string{"first", "second", "third", "fourth"} {
			if f.word(word, w) {
				return 7 * k, 7*k + 7
			}
		}
		if f.kw(word) == kwLast {
			return n - 7, n
		}
	case f.word(word, "early") || f.word(word, "start") || f.word(word, "beginning") || half && f.word(word, "first"):
		return 0, (n + 1) / 2
	case f.word(word, "mid") || f.word(word, "middle"):
		return n / 4, n - n/4
	case f.word(word, "late") || f.word(word, "end") || half && f.word(word, "second"):
		return n / 2, n
	}
	return 0, 0
}

// opensPhrase reports a word at i that opens its sentence, or follows a
// comma or a word that bounds a span ("since", "until", "by", "before",
// "after", "to"), where "late" or "early" before "last week" modifies the
// period ("Late last week we shipped", "by early next month"), not a verb
// ("I worked late this week", "I came in early this week": "in" and "on"
// are the verb's there, as no one says "in early this week").
func (f *finder) opensPhrase(i int) bool {
	if f.opens(i) || f.punct(i-1, ',') {
		return true
	}
	switch f.kw(i - 1) {
	case kwCue, kwBy, kwBefore, kwAfter, kwTo:
		return true
	}
	return false
}

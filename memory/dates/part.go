package dates

import "time"

// Part of a period: "early March", "mid-2023", "late last week", "the
// start of next month", "the end of October", "the middle of the year".
// The word narrows the period to a half of it: "early" (and "the start of",
// "the beginning of") the first half, "late" (and "the end of") the second,
// "mid" (and "the middle of") the half about its middle. Halves, not
// thirds, since people stretch them ("early June" is said of the 12th
// too), and a narrowed period that missed the day meant would lose what a
// whole one found.

// partOf narrows m, found at token i, to the part of its week, month,
// quarter, season or year a word before it names, the word then part of
// the mention; it returns the token the mention starts at.
func (f *finder) partOf(m Mention, i int) (Mention, int) {
	if m.From.IsZero() || m.Grain == Day || m.Grain == Weekend {
		return m, i
	}
	word := f.periodWordAt(i) // "early", "mid", "late"
	at := word
	if word == i && f.kw(i-1) == kwOf { // "the end of"
		word, at = i-2, i-2
		if f.kw(at-1) == kwThe {
			at--
		}
	}
	// a year's parts are whole months, the others' whole days
	n, month := int(m.To.Sub(m.From).Hours()/24+0.5), 0
	if n >= 365 {
		n, month = 12, 1
	}
	var a, b int // the part's days or months, [a, b) from m.From
	switch {
	case f.word(word, "early") || f.word(word, "start") || f.word(word, "beginning"):
		a, b = 0, (n+1)/2
	case f.word(word, "mid") || f.word(word, "middle"):
		a, b = n/4, n-n/4
	case f.word(word, "late") || f.word(word, "end"):
		a, b = n/2, n
	default:
		return m, i
	}
	y, mo, d := m.From.Date()
	m.From = wallTime(y, mo+time.Month(a*month), d+a*(1-month), 0, 0, 0, 0, f.loc)
	m.To = wallTime(y, mo+time.Month(b*month), d+b*(1-month), 0, 0, 0, 0, f.loc)
	m.Start = f.t[at].start
	return m, at
}

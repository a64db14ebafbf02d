package dates

import (
	"strings"
	"time"
)

// The week of a day: "the week of Nov 9", "the week of Thanksgiving",
// "Thanksgiving week", "Christmas week 2024"; and the week either side
// of one: "the week before Christmas", "the week after Thanksgiving".
//
//   - "The week of" a calendar date, and a holiday's week, is the ISO week
//     that holds it, Monday to Sunday, as people plan and tell a week
//     ("the week of Nov 9" is Monday 9 to Sunday 15; "Christmas week" the
//     week that ends on or after Christmas Day), but a date on a Sunday
//     starts its week, as a calendar that starts on Sunday does ("the week
//     of Sunday, Nov 8" is 8 to 14).
//   - "The week before" a day is said of the seven days before it and of
//     the calendar week before its own, so it is both: from the Monday of
//     the week before to the day before ("the week before Christmas",
//     a Friday in 2026: 14 to 24 December). "The week after" likewise runs
//     from the day after to the end of the next calendar week (after
//     Thanksgiving 2026: 27 November to 6 December).
//
// "Week" may open its phrase without "the" ("Week of Nov 9: notes"), and
// "the whole (entire) week of" is the same week. Only a single calendar
// date or a holiday widens so: "the week of the 9th", "the week after
// Monday" and "the week of 9 to 20 November" are read as before. The
// entity extractor's reading (Options.Apart) keeps the day written, which
// it indexes.

// weekOf widens m, a day found at token i, to the week the words before
// it name, those words then part of the mention; it returns the token the
// mention starts at. A holiday's own week ("Thanksgiving week") is read
// by holiday (holidaysWeek).
func (f *finder) weekOf(m Mention, i int) (Mention, int) {
	day := m.From
	if f.apart || m.Grain != Day || day.IsZero() || m.Month == 0 && !m.Holiday || !m.To.Equal(day.AddDate(0, 0, 1)) {
		return m, i
	}
	at := f.weekBefore(i)
	if at == i {
		return m, i
	}
	y, mo, d := day.Date()
	mon := d - monday0(day)
	at0 := func(d int) time.Time { return wallTime(y, mo, d, 0, 0, 0, 0, f.loc) }
	switch side := f.kw(f.weekWord(i) + 1); {
	case side == kwBefore:
		m.From, m.To = at0(mon-7), day
	case side == kwAfter:
		m.From, m.To = at0(d+1), at0(mon+14)
	case day.Weekday() == time.Sunday && !m.Holiday:
		m.From, m.To = day, at0(d+7) // "the week of Sunday, Nov 8": the week it starts
	default:
		m.From, m.To = f.isoWeek(day)
	}
	m.Grain = Week
	m.Start = f.t[at].start
	return m, at
}

// weekBefore is the first token of "the week of", "the week before" or
// "the week after" before the date at i ("the"; also "the whole week
// of", and "week of" that opens its sentence or line), or i when there is
// none.
func (f *finder) weekBefore(i int) int {
	w := f.weekWord(i)
	if w < 0 {
		return i
	}
	switch at := w - 1; {
	case f.kw(at) == kwThe:
		return at
	case (f.word(at, "whole") || f.word(at, "entire")) && f.kw(at-1) == kwThe:
		return at - 1 // "the whole week of Christmas"
	case w == 0 || f.t[w].line || f.stop(w-1):
		return w // "Week of Nov 9: standup notes"
	}
	return i
}

// weekPhraseAt reports the start of "the week of", "the week before" or
// "the week after" at i ("the whole week of"; "week of"), which sets a
// time as a preposition does.
func (f *finder) weekPhraseAt(i int) bool {
	if f.kw(i) == kwThe {
		i++
		if f.word(i, "whole") || f.word(i, "entire") {
			i++
		}
	}
	switch f.kw(i + 1) {
	case kwOf, kwBefore, kwAfter:
		return f.kw(i) == kwWeek
	}
	return false
}

// weekWord is the token of "week" in "week of", "week before" or "week
// after" right before the date at i (or before its "the": "the week of
// the Fourth of July"), or -1.
func (f *finder) weekWord(i int) int {
	if f.kw(i-1) == kwThe && f.kw(i-2) == kwOf {
		i-- // "the week of the Fourth of July"
	}
	switch f.kw(i - 1) {
	case kwOf, kwBefore, kwAfter:
		if f.kw(i-2) == kwWeek && f.spaced(i-1) {
			return i - 2
		}
	}
	return -1
}

// holidayWeek reports "week" at j, after a holiday's name ("Thanksgiving
// week"), as a period: not in a longer name ("Christmas Week Special"),
// nor before a thing of the holiday ("Christmas week sale") or a dash
// ("a Christmas week-long sale").
func (f *finder) holidayWeek(j int) bool {
	if j >= len(f.t) || f.kw(j) != kwWeek || !f.spaced(j) || f.t[j].line {
		return false
	}
	k := j + 1
	if k >= len(f.t) {
		return true
	}
	if f.glued(k) && f.punct(k, '-') {
		return false
	}
	if f.t[k].kind == kWord && f.spaced(k) && (f.t[j].upper && f.t[k].upper || holidayThings[strings.ToLower(f.s[f.t[k].start:f.t[k].end])]) {
		return false
	}
	return true
}

// holidaysWeek is m, a holiday's day, widened to its ISO week when week
// ("Thanksgiving week").
func (f *finder) holidaysWeek(m Mention, week bool) Mention {
	if !week {
		return m
	}
	m.Grain = Week
	if !m.From.IsZero() {
		m.From, m.To = f.isoWeek(m.From)
	}
	return m
}

// isoWeek is the ISO week, Monday to Sunday, that holds day (a midnight).
func (f *finder) isoWeek(day time.Time) (time.Time, time.Time) {
	y, mo, d := day.Date()
	mon := d - monday0(day)
	return wallTime(y, mo, mon, 0, 0, 0, 0, f.loc), wallTime(y, mo, mon+7, 0, 0, 0, 0, f.loc)
}

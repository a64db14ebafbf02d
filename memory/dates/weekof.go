package dates

import "time"

// The week of a day: "the week of Nov 9", "the week of Thanksgiving",
// "Thanksgiving week", "Christmas week"; and the week either side of
// one: "the week before Christmas", "the week after Thanksgiving". "The
// week of" a day, and a holiday's week, is the ISO week that holds it,
// Monday to Sunday, as people plan and tell a week ("the week of Nov 9"
// is Monday 9 to Sunday 15); "the week before" a day is the seven days
// before it, "the week after" the seven after it. Only a calendar date
// or a holiday widens so: "the week of the 9th" and "the week after
// Monday" are read no wider than before. The entity extractor's reading
// (Options.Apart) keeps the day written, which it indexes.

// weekOf widens m, a day found at token i whose expression ends before
// token next, to the week the words around it name, those words then
// part of the mention; it returns the tokens the mention starts at and
// ends before.
func (f *finder) weekOf(m Mention, i, next int) (Mention, int, int) {
	if f.apart || m.Grain != Day || m.From.IsZero() || m.Month == 0 && !m.Holiday {
		return m, i, next
	}
	day := m.From
	y, mo, d := day.Date()
	at := f.weekBefore(i)
	switch {
	case at < i && f.kw(i-1) == kwBefore:
		m.From = wallTime(y, mo, d-7, 0, 0, 0, 0, f.loc)
		m.To = day
	case at < i && f.kw(i-1) == kwAfter:
		m.From = wallTime(y, mo, d+1, 0, 0, 0, 0, f.loc)
		m.To = wallTime(y, mo, d+8, 0, 0, 0, 0, f.loc)
	case at < i:
		m.From, m.To = isoWeek(day, f.loc)
	case m.Holiday && f.holidayWeek(next):
		m.From, m.To = isoWeek(day, f.loc)
		m.End = f.t[next].end // "Thanksgiving week"
		next++
	default:
		return m, i, next
	}
	m.Grain = Week
	m.Start = f.t[at].start
	return m, at, next
}

// weekBefore is the first token of "the week of", "the week before" or
// "the week after" before the date at i ("the"), or i when there is none.
func (f *finder) weekBefore(i int) int {
	switch f.kw(i - 1) {
	case kwOf, kwBefore, kwAfter:
		if f.kw(i-2) == kwWeek && f.kw(i-3) == kwThe {
			return i - 3
		}
	}
	return i
}

// holidayWeek reports "week" at j, after a holiday's name, not in a
// longer name ("Thanksgiving week"; not "Christmas Week Special").
func (f *finder) holidayWeek(j int) bool {
	if j >= len(f.t) || f.kw(j) != kwWeek || !f.spaced(j) || f.t[j].line {
		return false
	}
	k := j + 1
	return !f.t[j].upper || k >= len(f.t) || f.t[k].kind != kWord || !f.t[k].upper || !f.spaced(k)
}

// isoWeek is the ISO week, Monday to Sunday, that holds day (a midnight
// in loc).
func isoWeek(day time.Time, loc *time.Location) (time.Time, time.Time) {
	y, mo, d := day.Date()
	mon := d - monday0(day)
	return wallTime(y, mo, mon, 0, 0, 0, 0, loc), wallTime(y, mo, mon+7, 0, 0, 0, 0, loc)
}

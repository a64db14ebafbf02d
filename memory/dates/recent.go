package dates

import "time"

// Spans back to now, read with Options.Recent (a question's words, not a
// memory's): "in the last three days", "over the past week", "the last
// few months", "since Monday". Each ends with ref's day, included.

// recentUnits bounds the count of a span back to now: "the last 500
// years" names no period a memory is dated in.
const recentUnits = 100

// lastUnits reads "the last N units" and "the past N units" at i (the
// "the"): hours (the days they reach back into from ref's time), days,
// weeks, months or years, back from ref's day and with it;
// without a count, one unit ("the past week"), but "the last" then needs
// a week, month or year ("the last day" is mostly of something). Not when
// an "of" or "in" follows ("the last week of May", "the last three weeks
// in October", "the past few days of rain"), nor "before" or "after"
// ("the last day before the holidays").
func (f *finder) lastUnits(i int) (Mention, int) {
	j := i + 1
	past := f.kw(j) == kwPast
	if !past && f.kw(j) != kwLast {
		return Mention{}, i
	}
	j++
	_, n, k := f.quantity(j)
	if k == j {
		n = 1
	}
	u := f.kw(k)
	if f.word(k, "hour") || f.word(k, "hours") {
		// "the last 48 hours": the days they reach back into
		if n > recentUnits*24 {
			return Mention{}, i
		}
		u, n = kwDay, max(n-f.hour+23, 0)/24 // 0: "the past hour", today
	}
	if k == j && !past && u == kwDay || n > recentUnits || f.kw(k+1) == kwOf || f.kw(k+1) == kwIn || f.kw(k+1) == kwBefore || f.kw(k+1) == kwAfter {
		return Mention{}, i
	}
	var from time.Time
	var g Grain
	switch u {
	case kwDay:
		g, from = Day, f.days(-n, 0).from
	case kwWeek:
		g, from = Week, f.days(-7*n, 0).from
	case kwMonth:
		g, from = Month, f.monthsFrom(-n, 0)
	case kwYear:
		g, from = Year, f.monthsFrom(-12*n, 0)
	default:
		return Mention{}, i
	}
	return f.rel(i, k+1, g, period{from, f.days(0, 1).to})
}

// since widens m, found at token i, to ref's day when "since" comes
// before it ("since Monday", "since Thanksgiving", "since last March"):
// from m's start to the end of ref's day, the word "since" included. A
// mention that begins after ref's day, or is no period, is left as it is.
func (f *finder) since(m Mention, i int) Mention {
	if m.From.IsZero() || !f.has {
		return m
	}
	s := i - 1
	for s >= 0 && s >= i-3 && (f.kw(s) == kwPeriod || f.kw(s) == kwThe) {
		s--
	}
	today := f.days(0, 1)
	if !f.word(s, "since") || !m.From.Before(today.from) {
		return m
	}
	m.Start, m.To, m.Relative, m.Back = f.t[s].start, today.to, true, true
	return m
}

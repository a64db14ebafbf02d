package dates

import "time"

// Half a unit, in days, around the day exactly N units from ref: what
// Options.About adds to the calendar period of "N units ago" or "in N
// units". A day is meant exactly.
const (
	aboutWeek  = 3
	aboutMonth = 15
	aboutYear  = 182
)

// aboutSpan is p, the calendar's period of a..b units u from ref, with
// the days around them (around), unless those leave MinYear..MaxYear.
func (f *finder) aboutSpan(p period, u kw, a, b int) period {
	w := p.union(f.around(u, a, b))
	if w.from.Year() < MinYear || w.to.Add(-time.Nanosecond).Year() > MaxYear {
		return p
	}
	return w
}

// around returns the days within half a unit u of the days exactly a..b
// units from ref's day (a <= b).
func (f *finder) around(u kw, a, b int) period {
	day := f.monthsFrom
	switch u {
	case kwWeek:
		return f.days(7*a-aboutWeek, 7*b+aboutWeek+1)
	case kwMonth:
		return period{day(a, -aboutMonth), day(b, aboutMonth+1)}
	case kwYear:
		return period{day(12*a, -aboutYear), day(12*b, aboutYear+1)}
	}
	return f.days(a, b+1)
}

// union is the least period that holds both p and q.
func (p period) union(q period) period {
	if q.from.Before(p.from) {
		p.from = q.from
	}
	if q.to.After(p.to) {
		p.to = q.to
	}
	return p
}

// monthsFrom is the day n months from ref's, plus d days: ref's day of the
// month, or that month's last day where it has fewer (31 March less a
// month is 28 February, not 3 March).
func (f *finder) monthsFrom(n, d int) time.Time {
	c := f.y*12 + f.m - 1 + n // the month, counted from year 0
	y, m := floorDiv(c, 12), c-12*floorDiv(c, 12)+1
	return wallTime(y, time.Month(m), min(f.d, daysIn(y, m))+d, 0, 0, 0, 0, f.loc)
}

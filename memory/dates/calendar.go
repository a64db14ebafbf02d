package dates

import "time"

// MinYear and MaxYear bound the years this package reads: every instant of
// them fits in int64 nanoseconds since 1970 (time.Time.UnixNano, and the
// date range of bleve's date fields), which run from 21 September 1677 to
// 11 April 2262.
const (
	MinYear = 1678
	MaxYear = 2261
)

var monthNames = [13]string{"", "January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// daysIn returns the number of days of month m (1-12) in year y; y == 0
// means any year, so February has 29.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y == 0 || isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// weekdayOf returns the weekday of a valid proleptic Gregorian date.
func weekdayOf(y, m, d int) time.Weekday {
	return time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC).Weekday()
}

// ordinalOK reports whether suffix ("st", "nd", "rd", "th", lower case) is
// the right one for n: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st.
func ordinalOK(n int, suffix string) bool {
	want := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			want = "st"
		case 2:
			want = "nd"
		case 3:
			want = "rd"
		}
	}
	return len(suffix) == 2 && suffix[0]|0x20 == want[0] && suffix[1]|0x20 == want[1]
}

// wallTime is time.Date in loc, but a wall time that loc skips (clocks
// put forward) is moved forward by the gap, as the clocks were: 02:30 on
// the night New York springs forward is 03:30 EDT (Go's time.Date gives
// 01:30 EST, an hour before 01:45 that night), and midnight in a zone
// whose clocks jump from 00:00 to 01:00 is 01:00 of that day, not 23:00
// of the day before.
func wallTime(y int, m time.Month, d, hh, mm, ss, ns int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, hh, mm, ss, ns, loc)
	// the wall time asked for, its day rolled over as time.Date rolls it
	// (the periods of a question ask for day 0 or 32)
	want := time.Date(y, m, d, hh, mm, ss, ns, time.UTC)
	if t.Hour() == want.Hour() && t.Minute() == want.Minute() && t.Day() == want.Day() {
		return t
	}
	// in a gap: Go kept the offset before it; the one after it is the
	// offset of some hours later (zones change at most twice a year)
	_, before := t.Zone()
	if _, after := t.Add(12 * time.Hour).Zone(); after > before {
		t = t.Add(time.Duration(after-before) * time.Second)
	}
	return t
}

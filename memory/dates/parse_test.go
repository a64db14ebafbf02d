package dates

import (
	"strings"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("time zone %s is not available here: %v", name, err)
	}
	return loc
}

func TestParseAccepts(t *testing.T) {
	paris := mustLoad(t, "Europe/Paris")
	ny := mustLoad(t, "America/New_York")
	utc := time.UTC
	d := func(y, m, d, hh, mm, ss, ns int, loc *time.Location) time.Time {
		return time.Date(y, time.Month(m), d, hh, mm, ss, ns, loc)
	}
	cases := []struct {
		in       string
		loc      *time.Location
		want     time.Time
		dateOnly bool
	}{
		// ISO 8601 and RFC 3339
		{"2023-05-07", utc, d(2023, 5, 7, 0, 0, 0, 0, utc), true},
		{"2023-05-07", paris, d(2023, 5, 7, 0, 0, 0, 0, paris), true},
		{"  2023-05-07\n", utc, d(2023, 5, 7, 0, 0, 0, 0, utc), true},
		{"2023-05-07T14:00", paris, d(2023, 5, 7, 14, 0, 0, 0, paris), false},
		{"2023-05-07t14:00", paris, d(2023, 5, 7, 14, 0, 0, 0, paris), false},
		{"2023-05-07 14:00", paris, d(2023, 5, 7, 14, 0, 0, 0, paris), false},
		{"2023-05-07 14:00:05", utc, d(2023, 5, 7, 14, 0, 5, 0, utc), false},
		{"2023-05-07T14:00:05.5", utc, d(2023, 5, 7, 14, 0, 5, 500000000, utc), false},
		{"2023-05-07T14:00:05.123456789Z", paris, d(2023, 5, 7, 14, 0, 5, 123456789, utc), false},
		{"2023-05-07T14:00:00Z", paris, d(2023, 5, 7, 14, 0, 0, 0, utc), false},
		{"2023-05-07T14:00:00z", paris, d(2023, 5, 7, 14, 0, 0, 0, utc), false},
		{"2023-05-07T14:00Z", utc, d(2023, 5, 7, 14, 0, 0, 0, utc), false},
		{"2023-05-07T14:00:00+02:00", utc, d(2023, 5, 7, 12, 0, 0, 0, utc), false},
		{"2023-05-07T14:00:00-04:30", utc, d(2023, 5, 7, 18, 30, 0, 0, utc), false},
		{"2023-05-07 14:00+02:00", paris, d(2023, 5, 7, 14, 0, 0, 0, paris), false},
		{"2023-12-31T23:59:59.999999999+00:00", utc, d(2023, 12, 31, 23, 59, 59, 999999999, utc), false},
		{"2024-02-29", utc, d(2024, 2, 29, 0, 0, 0, 0, utc), true},
		{"2000-02-29", utc, d(2000, 2, 29, 0, 0, 0, 0, utc), true},
		{"1678-01-01", utc, d(1678, 1, 1, 0, 0, 0, 0, utc), true},
		{"2261-12-31T23:59:59Z", utc, d(2261, 12, 31, 23, 59, 59, 0, utc), false},
		// LoCoMo
		{"1:56 pm on 8 May, 2023", utc, d(2023, 5, 8, 13, 56, 0, 0, utc), false},
		{"12:24 am on 7 April, 2023", utc, d(2023, 4, 7, 0, 24, 0, 0, utc), false},
		{"12:06 pm on 11 November, 2022", ny, d(2022, 11, 11, 12, 6, 0, 0, ny), false},
		{"10:14 AM on 24 October, 2023", utc, d(2023, 10, 24, 10, 14, 0, 0, utc), false},
		// LongMemEval
		{"2023/05/30 (Tue) 23:40", utc, d(2023, 5, 30, 23, 40, 0, 0, utc), false},
		{"2023/05/30 (Tuesday) 23:40", utc, d(2023, 5, 30, 23, 40, 0, 0, utc), false},
		{"2023/05/30 (tue) 23:40:10", paris, d(2023, 5, 30, 23, 40, 10, 0, paris), false},
		{"2023/05/30", utc, d(2023, 5, 30, 0, 0, 0, 0, utc), true},
		{"2023/05/30 (Tue)", utc, d(2023, 5, 30, 0, 0, 0, 0, utc), true},
		{"2023/05/30 23:40", utc, d(2023, 5, 30, 23, 40, 0, 0, utc), false},
		// written dates
		{"8 May 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"8 May, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"08 may 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"May 8, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"May 8 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"May 8th 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"May 8th, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"MAY 1ST, 2023", utc, d(2023, 5, 1, 0, 0, 0, 0, utc), true},
		{"8th of May, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		{"22nd September 2023", utc, d(2023, 9, 22, 0, 0, 0, 0, utc), true},
		{"23rd Sep 2023", utc, d(2023, 9, 23, 0, 0, 0, 0, utc), true},
		{"11th Sept 2023", utc, d(2023, 9, 11, 0, 0, 0, 0, utc), true},
		{"Aug. 8, 2023", utc, d(2023, 8, 8, 0, 0, 0, 0, utc), true},
		{"aug 8, 2023", utc, d(2023, 8, 8, 0, 0, 0, 0, utc), true},
		{"29 February 2024", utc, d(2024, 2, 29, 0, 0, 0, 0, utc), true},
		{"Sunday, 7 May 2023", utc, d(2023, 5, 7, 0, 0, 0, 0, utc), true},
		{"Sun 7 May 2023", utc, d(2023, 5, 7, 0, 0, 0, 0, utc), true},
		{"Monday, May 8, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), true},
		// with a time before or after
		{"at 2 pm on 8 May 2023", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"2pm on 8 May 2023", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"2:30 pm on May 8, 2023", utc, d(2023, 5, 8, 14, 30, 0, 0, utc), false},
		{"2:30 p.m. on May 8, 2023", utc, d(2023, 5, 8, 14, 30, 0, 0, utc), false},
		{"12 am on May 8, 2023", utc, d(2023, 5, 8, 0, 0, 0, 0, utc), false},
		{"12 pm on May 8, 2023", utc, d(2023, 5, 8, 12, 0, 0, 0, utc), false},
		{"14:00 on 8 May 2023", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"14:00, 8 May 2023", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"at 9:05:30 am on Monday, 8 May 2023", utc, d(2023, 5, 8, 9, 5, 30, 0, utc), false},
		{"8 May 2023 14:00", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"8 May 2023, 14:00", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"8 May 2023 at 2:30 pm", paris, d(2023, 5, 8, 14, 30, 0, 0, paris), false},
		{"May 8, 2023, at 2 PM", utc, d(2023, 5, 8, 14, 0, 0, 0, utc), false},
		{"May 8, 2023 2am", utc, d(2023, 5, 8, 2, 0, 0, 0, utc), false},
		{"May 8, 2023 2 a.m.", utc, d(2023, 5, 8, 2, 0, 0, 0, utc), false},
	}
	for _, c := range cases {
		got, dateOnly, err := Parse(c.in, c.loc)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if !got.Equal(c.want) || dateOnly != c.dateOnly {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", c.in, got, dateOnly, c.want, c.dateOnly)
		}
		if !strings.ContainsAny(c.in, "Zz+") && !strings.Contains(c.in, ":00-") && got.Location() != c.loc {
			t.Errorf("Parse(%q): location %v, want %v", c.in, got.Location(), c.loc)
		}
	}
}

func TestParseZones(t *testing.T) {
	paris := mustLoad(t, "Europe/Paris")
	// Z is UTC; an offset that is loc's at that instant gives loc; another
	// offset keeps it as a fixed zone.
	got, _, err := Parse("2023-05-07T14:00:00Z", paris)
	if err != nil || got.Location() != time.UTC {
		t.Errorf("Z: %v %v, want UTC", got, err)
	}
	got, _, err = Parse("2023-05-07T14:00:00+02:00", paris)
	if err != nil || got.Location() != paris {
		t.Errorf("+02:00 in summer Paris: %v %v, want Europe/Paris", got, err)
	}
	got, _, err = Parse("2023-01-07T14:00:00+02:00", paris)
	if _, off := got.Zone(); err != nil || got.Location() == paris || off != 7200 {
		t.Errorf("+02:00 in winter Paris: %v %v, want a fixed +02:00 zone", got, err)
	}
	// nil loc is UTC
	got, _, err = Parse("2023-05-07 10:00", nil)
	if err != nil || !got.Equal(time.Date(2023, 5, 7, 10, 0, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("nil loc: %v %v", got, err)
	}
	// a time that does not exist in loc (spring forward) is normalised as time.Date does
	got, _, err = Parse("2023-03-26 02:30", paris)
	if err != nil || !got.Equal(time.Date(2023, 3, 26, 2, 30, 0, 0, paris)) {
		t.Errorf("DST gap: %v %v", got, err)
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		in   string
		want string // a part of the error
	}{
		{"", "it is empty"},
		{"   ", "it is empty"},
		{strings.Repeat("2", 65), "of 65 bytes: the limit is 64"},
		{"2023-05-07" + strings.Repeat(" ", 60), "the limit is 64"},
		{"31 February, 2023", "February 2023 has 28 days"},
		{"29 February 2023", "February 2023 has 28 days"},
		{"2023-02-29", "February 2023 has 28 days"},
		{"1900-02-29", "February 1900 has 28 days"},
		{"2024-02-30", "February 2024 has 29 days"},
		{"2023-04-31", "April 2023 has 30 days"},
		{"April 31, 2023", "April 2023 has 30 days"},
		{"2023-13-01", "there is no month 13"},
		{"2023-00-10", "there is no month 0"},
		{"2023-05-00", "there is no day 0"},
		{"0 May 2023", "there is no day 0"},
		{"2023/05/32 (Thu) 10:00", "May 2023 has 31 days"},
		{"2023", "a year alone is not a date: give a day"},
		{"May 2023", "a month alone is not a date: give a day"},
		{"May, 2023", "a month alone is not a date"},
		{"may", "a month alone is not a date"},
		{"2023-05", "a month alone is not a date"},
		{"2023/05", "a month alone is not a date"},
		{"8 May", "give the year"},
		{"May 8", "give the year"},
		{"May 8th", "give the year"},
		{"2 pm on 8 May", "give the year"},
		{"8 May 23", "the year takes four digits"},
		{"1677-12-31", "year 1677 is outside the supported range 1678-2261"},
		{"2262-01-01", "year 2262 is outside"},
		{"8 May 1500", "year 1500 is outside"},
		{"2023-5-7", "month and day take two digits"},
		{"2023-05-7", "month and day take two digits"},
		{"2023/5/30", "month and day take two digits"},
		{"2023/05/30 (Wed) 23:40", "2023/05/30 is a Tuesday, not a Wednesday"},
		{"2023/05/30 (Sun)", "is a Tuesday, not a Sunday"},
		{"Monday, 7 May 2023", "7 May 2023 is a Sunday, not a Monday"},
		{"2023/05/30 (Foo) 23:40", "want a weekday in parentheses"},
		{"2023-05-07T25:00", "hour 25 is out of range 0-23"},
		{"2023-05-07T24:00", "hour 24 is out of range"},
		{"2023-05-07T14:60", "minute 60 is out of range"},
		{"2023-05-07T14:00:60", "second 60 is out of range"},
		{"2023-05-07T1:00", "want a time as hh:mm"},
		{"2023-05-07T14:00:00.1234567891Z", "at most 9 digits"},
		{"13:00 pm on 8 May 2023", "hour 13 is out of range 1-12 with am or pm"},
		{"0 am on 8 May 2023", "hour 0 is out of range 1-12"},
		{"1:5 pm on 8 May 2023", "want minutes as two digits"},
		{"8th May 2023 25:00", "hour 25"},
		{"8st May 2023", "8st is not an ordinal"},
		{"May 2th, 2023", "2th is not an ordinal"},
		{"2023-05-07 garbage", `unexpected "garbage" after the date`},
		{"2023-05-07T14:00:00+0200", `unexpected "+0200" after the date`},
		{"2023-05-07T14:00 Z", `unexpected "Z" after the date`},
		{"8 May 2023 xyz", `unexpected "xyz" after the date`},
		{"8 May 2023, 14:00 and more", `unexpected "and more"`},
		{"2023/05/30 (Tue) 23:40 x", `unexpected "x"`},
		{"yesterday", "relative dates"},
		{"last week", "relative dates"},
		{"2 days ago", "relative dates"},
		{"now", "relative dates"},
		{"at 8 May 2023", "use ISO 8601"},
		{"8 2023", "use ISO 8601"},
		{"05/30/2023", "use ISO 8601"},
		{"not a date", "use ISO 8601 (2023-05-07, 2023-05-07T14:00:00Z) or one of \"8 May 2023\""},
		{"2023 May 8", "use ISO 8601"},
		{"8 May 2023,", "use ISO 8601"},
		{"14 on 8 May 2023", "use ISO 8601"},
	}
	for _, c := range cases {
		got, _, err := Parse(c.in, time.UTC)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.in, got, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v; want it to contain %q", c.in, err, c.want)
		}
		if len(c.in) <= MaxLen && !strings.HasPrefix(err.Error(), "cannot read "+quote(c.in)+" as a date: ") {
			t.Errorf("Parse(%q): %q does not start by quoting the value", c.in, err)
		}
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\n", `\n`) + `"`
}

// The longest form the documentation of MaxLen names fits in MaxLen, with
// room to spare.
func TestMaxLen(t *testing.T) {
	longest := "at 12:59:59 p.m. on Wednesday, 30th of September, 2026"
	if len(longest) != 54 {
		t.Errorf("the longest form has %d bytes; update MaxLen's documentation", len(longest))
	}
	got, _, err := Parse("  "+longest+"  ", time.UTC)
	if err != nil || !got.Equal(time.Date(2026, 9, 30, 12, 59, 59, 0, time.UTC)) {
		t.Errorf("Parse(%q) = %v, %v", longest, got, err)
	}
	iso := "2023-05-07T14:00:05.123456789+02:00"
	if _, _, err := Parse(iso, time.UTC); err != nil || len(iso) > MaxLen {
		t.Errorf("Parse(%q): %v", iso, err)
	}
}

// Parse reads what it formats: RFC 3339 with any fraction round-trips.
func TestParseRoundTrip(t *testing.T) {
	kolkata := mustLoad(t, "Asia/Kolkata")
	for _, tm := range []time.Time{
		time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 1, kolkata),
		time.Date(2024, 2, 29, 0, 0, 0, 120000000, time.FixedZone("", -9*3600-30*60)),
	} {
		s := tm.Format(time.RFC3339Nano)
		got, dateOnly, err := Parse(s, time.UTC)
		if err != nil || !got.Equal(tm) || dateOnly {
			t.Errorf("Parse(%q) = %v, %v, %v; want %v", s, got, dateOnly, err, tm)
		}
	}
}

func TestParseAllocs(t *testing.T) {
	for _, s := range []string{"2023-05-07", "1:56 pm on 8 May, 2023", "2023/05/30 (Tue) 23:40"} {
		if n := testing.AllocsPerRun(100, func() { _, _, _ = Parse(s, time.UTC) }); n > 0 {
			t.Errorf("Parse(%q) allocates %v times, want 0", s, n)
		}
	}
}

// An offset no time zone has is refused, naming it; the farthest ones
// are read.
func TestParseOffsetRange(t *testing.T) {
	for _, in := range []string{"2026-03-09T00:30:00+23:00", "2026-03-09T00:30:00-13:00", "2026-03-09T00:30:00+14:01"} {
		if _, _, err := Parse(in, time.UTC); err == nil || !strings.Contains(err.Error(), "beyond any time zone's") {
			t.Errorf("Parse(%q): %v, want the offset refused", in, err)
		}
	}
	for _, in := range []string{"2026-03-09T00:30:00+14:00", "2026-03-09T00:30:00-12:00", "2026-03-09T00:30:00+05:45"} {
		if _, _, err := Parse(in, time.UTC); err != nil {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}

// A wall time that the zone skips (clocks put forward) is moved forward
// by the gap, as the clocks were, not back an hour as time.Date moves it;
// a midnight that the zone skips is the first hour of that day, not the
// day before.
func TestParseInAGap(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	santiago, err := time.LoadLocation("America/Santiago")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	for _, c := range []struct {
		in   string
		loc  *time.Location
		want string
	}{
		{"2026-03-08T02:30:00", ny, "2026-03-08T03:30:00-04:00"},
		{"2026-03-08T01:45:00", ny, "2026-03-08T01:45:00-05:00"},
		{"2026-03-08T03:00:00", ny, "2026-03-08T03:00:00-04:00"},
		{"2026-11-01T01:30:00", ny, "2026-11-01T01:30:00-04:00"}, // the hour that comes twice: its first
		{"2026-09-06", santiago, "2026-09-06T01:00:00-03:00"},    // Chile's clocks go from 00:00 to 01:00
	} {
		got, _, err := Parse(c.in, c.loc)
		if err != nil || got.Format(time.RFC3339) != c.want {
			t.Errorf("Parse(%q) in %s = %s, %v; want %s", c.in, c.loc, got.Format(time.RFC3339), err, c.want)
		}
	}
	// a day rolled over into the month before, which has its midnight:
	// yesterday of 1 April in London is 31 March from 00:00 (its clocks
	// go forward at 01:00 that day)
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	y := Find("what did I do yesterday?", time.Date(2024, 4, 1, 12, 0, 0, 0, london))
	if len(y) != 1 || y[0].From.Format(time.RFC3339) != "2024-03-31T00:00:00Z" {
		t.Errorf("yesterday of 1 April 2024 in London: %+v, want from 2024-03-31T00:00:00Z", y)
	}
	// a day's period starts on that day
	day := Find("what did I do on 6 September 2026?", time.Date(2026, 9, 10, 12, 0, 0, 0, santiago))
	if len(day) != 1 || day[0].From.Day() != 6 || day[0].From.Hour() != 1 {
		t.Errorf("6 September 2026 in Santiago: %+v, want from 01:00 that day", day)
	}
}

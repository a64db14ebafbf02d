package dates

import (
	"strings"
	"testing"
	"time"
)

// With Recent, a span back to now ends with ref's day: "the last N
// units", "the past week", a date after "since"; "the last week of May"
// and "the last day of school" are not spans, and without Recent none is.
func TestFindRecent(t *testing.T) {
	mar31 := time.Date(2023, 3, 31, 9, 0, 0, 0, time.UTC)
	cases := []findCase{
		{"what did we do in the last three days?", wed, []string{"the last three days=2023-05-07..2023-05-10/day/rel"}},
		{"over the past week", wed, []string{"the past week=2023-05-03..2023-05-10/week/rel"}},
		{"in the last few days", wed, []string{"the last few days=2023-05-06..2023-05-10/day/rel"}},
		{"the last couple of weeks", wed, []string{"the last couple of weeks=2023-04-26..2023-05-10/week/rel"}},
		{"during the past month", wed, []string{"the past month=2023-04-10..2023-05-10/month/rel"}},
		{"in the last month", mar31, []string{"the last month=2023-02-28..2023-03-31/month/rel"}},
		{"the last two years", wed, []string{"the last two years=2021-05-10..2023-05-10/year/rel"}},
		{"since Monday", wed, []string{"since Monday=2023-05-08..2023-05-10/day/rel"}},
		{"since the 3rd", wed, []string{"since the 3rd=2023-05-03..2023-05-10/day/rel"}},
		{"since last March", wed, []string{"since last March=2023-03-01..2023-05-10/month/rel"}},
		// not spans back to now
		{"the last week of May", wed, []string{"the last week of May=2023-05-25..2023-05-31/month"}},
		{"the last three weeks in October", wed, []string{"October=2022-10/month"}},
		{"the last day of school", wed, nil},
		{"the past 500 years", wed, nil},
		{"since tomorrow", wed, []string{"tomorrow=2023-05-11/day/rel"}},
	}
	for _, c := range cases {
		ms := FindWith(c.text, Options{Ref: c.ref, Recent: true})
		if got := renderAll(c.text, ms); strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("FindWith(%q, Recent, %s)\n got: %q\nwant: %q", c.text, c.ref.Format("Mon 2006-01-02"), got, c.want)
		}
	}
	// a memory's words, read without Recent, are left as they are
	if got := renderAll("since Monday, in the past week", Find("since Monday, in the past week", wed)); strings.Join(got, " | ") != "Monday=2023-05-08/day/rel" {
		t.Errorf("Find without Recent = %q, want Monday alone", got)
	}
}

// Back marks the expressions whose own words put their period before ref
// (or reaching back to it), not a bare name that may be of the one to come.
func TestFindBack(t *testing.T) {
	for text, want := range map[string]bool{
		"yesterday": true, "last week": true, "the previous month": true, "two days ago": true,
		"a few weeks back": true, "the week before last": true, "the day before yesterday": true,
		"earlier this week": true, "the past weekend": true, "this past weekend": true,
		"the last three days": true, "since Monday": true, "last Christmas": true, "late last week": true,
		"Monday": false, "in May": false, "next week": false, "tomorrow": false, "the last week of May": false,
		"later this week": false, "at Christmas": false, "the week after next": false, "this week": false,
	} {
		ms := FindWith(text, Options{Ref: wed, Recent: true})
		if len(ms) != 1 || ms[0].Back != want {
			t.Errorf("FindWith(%q, Recent) = %+v, want one mention with Back %v", text, ms, want)
		}
	}
}

package dates

import (
	"strings"
	"testing"
	"time"
)

func TestFindAbout(t *testing.T) {
	feb1 := time.Date(2023, 2, 1, 8, 41, 0, 0, time.UTC) // a Wednesday
	mon := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	sun := time.Date(2023, 5, 14, 9, 0, 0, 0, time.UTC)
	cases := []findCase{
		// the ISO week of 18 January, and the days within three of it
		{"two weeks ago", feb1, []string{"two weeks ago=2023-01-15..2023-01-22/week/rel"}},
		// a week's ends stretched where exactly a week ago lies near them
		{"a week ago", mon, []string{"a week ago=2023-04-28..2023-05-07/week/rel"}},
		{"a week ago", sun, []string{"a week ago=2023-05-01..2023-05-10/week/rel"}},
		{"a week ago", wed, []string{"a week ago=2023-04-30..2023-05-07/week/rel"}},
		{"a few weeks ago", wed, []string{"a few weeks ago=2023-04-09..2023-04-30/week/rel"}},
		{"in two weeks", wed, []string{"in two weeks=2023-05-21..2023-05-28/week/rel"}},
		{"a fortnight from now", sun, []string{"a fortnight from now=2023-05-22..2023-05-31/week/rel"}},
		// the calendar month, and half a month around 11 January
		{"two months ago", time.Date(2023, 3, 11, 0, 0, 0, 0, time.UTC), []string{"two months ago=2022-12-27..2023-01-31/month/rel"}},
		{"a month ago", wed, []string{"a month ago=2023-03-26..2023-04-30/month/rel"}},
		{"a year ago", wed, []string{"a year ago=2021-11-09..2022-12-31/year/rel"}},
		// a month's last day where it has fewer than ref's: 28 February
		{"a month ago", time.Date(2023, 3, 31, 0, 0, 0, 0, time.UTC), []string{"a month ago=2023-02-01..2023-03-15/month/rel"}},
		{"a month from now", time.Date(2023, 1, 31, 0, 0, 0, 0, time.UTC), []string{"a month from now=2023-02-01..2023-03-15/month/rel"}},
		{"a year ago", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), []string{"a year ago=2022-08-30..2023-12-31/year/rel"}},
		// the calendar's year where the days around it would leave MinYear
		{"a year ago", time.Date(MinYear+1, 1, 10, 0, 0, 0, 0, time.UTC), []string{"a year ago=1678/year/rel"}},
		// days are meant exactly, and named periods are not counts
		{"two days ago", wed, []string{"two days ago=2023-05-08/day/rel"}},
		{"last week, last month", wed, []string{"last week=2023-05-01..2023-05-07/week/rel", "last month=2023-04/month/rel"}},
	}
	for _, c := range cases {
		ms := FindWith(c.text, Options{Ref: c.ref, About: true})
		if got := renderAll(c.text, ms); strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("FindWith(%q, About, %s)\n got: %q\nwant: %q", c.text, c.ref.Format("Mon 2006-01-02"), got, c.want)
		}
	}
	// Without About, the calendar's periods.
	if got := renderAll("two weeks ago", Find("two weeks ago", feb1)); len(got) != 1 || got[0] != "two weeks ago=2023-01-16..2023-01-22/week/rel" {
		t.Errorf("Find(two weeks ago) = %q, want the ISO week alone", got)
	}
	// A zero ref resolves nothing, About or not.
	if ms := FindWith("two weeks ago", Options{About: true}); len(ms) != 1 || !ms[0].From.IsZero() {
		t.Errorf("FindWith(two weeks ago, zero ref) = %+v, want one mention unresolved", ms)
	}
}

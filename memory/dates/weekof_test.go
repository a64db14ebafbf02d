package dates

import (
	"strings"
	"testing"
)

// "The week of" a date or a holiday is the ISO week that holds it, and so
// is a holiday's week ("Thanksgiving week"); "the week before" and "the
// week after" a date are the seven days either side of it. A day that is
// neither a calendar date nor a holiday, and "a week before", stay as
// they were read.
func TestFindWeekOf(t *testing.T) {
	runFind(t, []findCase{
		{"I'm off the week of May 22", wed, []string{"the week of May 22=2023-05-22..2023-05-28/week"}},
		{"We shipped it the week of March 15.", wed, []string{"the week of March 15=2023-03-13..2023-03-19/week"}},
		{"We met the week of 9 January 2023", wed, []string{"the week of 9 January 2023=2023-01-09..2023-01-15/week"}},
		{"the week of Sunday, April 30, 2023", wed, []string{"the week of Sunday, April 30, 2023=2023-04-24..2023-04-30/week"}},
		{"Thanksgiving week was busy", wed, []string{"Thanksgiving week=2022-11-21..2022-11-27/week"}},
		{"we did nothing over christmas week", wed, []string{"christmas week=2022-12-19..2022-12-25/week"}},
		{"I was off the week of Christmas", wed, []string{"the week of Christmas=2022-12-19..2022-12-25/week"}},
		{"We froze the code the week before Christmas", wed, []string{"the week before Christmas=2022-12-18..2022-12-24/week"}},
		{"the week after Easter 2023 we launched", wed, []string{"the week after Easter 2023=2023-04-10..2023-04-16/week"}},
		{"the week after 3 March 2023", wed, []string{"the week after 3 March 2023=2023-03-04..2023-03-10/week"}},
		// left as they were
		{"a week before Christmas", wed, []string{"Christmas=2022-12-25/day"}},
		{"the week of Monday", wed, []string{"Monday=2023-05-08/day/rel"}},
		{"during the week of the 9th", wed, nil},
		{"Christmas Week Special", wed, nil},
		{"Thanksgiving weekend", wed, nil},
	})
	// the entity extractor's reading keeps the day written
	ms := FindWith("the week of 9 January 2023", Options{Ref: wed, Apart: true})
	if got := strings.Join(renderAll("the week of 9 January 2023", ms), " | "); got != "9 January 2023=2023-01-09/day" {
		t.Errorf("Apart: got %q", got)
	}
}

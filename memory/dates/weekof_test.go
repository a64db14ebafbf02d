package dates

import (
	"strings"
	"testing"
	"time"
)

// "The week of" a date or a holiday is the ISO week that holds it (a
// Sunday's starts on it), and so is a holiday's week ("Thanksgiving
// week"); "the week before" a day runs from the Monday of the week before
// to the day before, "the week after" from the day after to the end of
// the next week. A day that is neither a calendar date nor a holiday, a
// range, "a week before" and "a week of" stay as they were read.
func TestFindWeekOf(t *testing.T) {
	nov := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC) // a Friday
	runFind(t, []findCase{
		{"I'm off the week of May 22", wed, []string{"the week of May 22=2023-05-22..2023-05-28/week"}},
		{"We shipped it the week of March 15.", wed, []string{"the week of March 15=2023-03-13..2023-03-19/week"}},
		{"We met the week of 9 January 2023", wed, []string{"the week of 9 January 2023=2023-01-09..2023-01-15/week"}},
		{"the whole week of 9 January 2023 we were sick", wed, []string{"the whole week of 9 January 2023=2023-01-09..2023-01-15/week"}},
		{"Week of 2023-01-09: standup notes", wed, []string{"Week of 2023-01-09=2023-01-09..2023-01-15/week"}},
		{"the week of Sunday, April 30, 2023", wed, []string{"the week of Sunday, April 30, 2023=2023-04-30..2023-05-06/week"}},
		{"Thanksgiving week was busy", wed, []string{"Thanksgiving week=2022-11-21..2022-11-27/week"}},
		{"We launched during Thanksgiving week 2021.", wed, []string{"Thanksgiving week 2021=2021-11-22..2021-11-28/week"}},
		{"we did nothing over christmas week", wed, []string{"christmas week=2022-12-19..2022-12-25/week"}},
		{"I was off the week of Christmas", wed, []string{"the week of Christmas=2022-12-19..2022-12-25/week"}},
		{"the week of the Fourth of July we were away", wed, []string{"the week of the Fourth of July=2022-07-04..2022-07-10/week"}},
		{"We froze the code the week before Christmas", wed, []string{"the week before Christmas=2022-12-12..2022-12-24/week"}},
		{"the week after Easter 2023 we launched", wed, []string{"the week after Easter 2023=2023-04-10..2023-04-16/week"}},
		{"the week after 3 March 2023", wed, []string{"the week after 3 March 2023=2023-03-04..2023-03-12/week"}},
		// a plan after the date still reads its tense from it
		{"The week of May 22 we're going to Rome.", wed, []string{"The week of May 22=2023-05-22..2023-05-28/week"}},
		{"The week of Dec 14 we'll be off.", wed, []string{"The week of Dec 14=2023-12-11..2023-12-17/week"}},
		{"The week before Christmas I'm going to Spain.", wed, []string{"The week before Christmas=2023-12-18..2023-12-24/week"}},
		// said in November: a plan or a question of one is the coming week
		{"Thanksgiving week I'm off.", nov, []string{"Thanksgiving week=2026-11-23..2026-11-29/week"}},
		{"What are we doing the week before Christmas?", nov, []string{"the week before Christmas=2026-12-14..2026-12-24/week"}},
		{"What did we do the week before Christmas?", nov, []string{"the week before Christmas=2025-12-15..2025-12-24/week"}},
		// left as they were
		{"a week before Christmas", wed, []string{"Christmas=2022-12-25/day"}},
		{"the week of Monday", wed, []string{"Monday=2023-05-08/day/rel"}},
		{"during the week of the 9th", wed, nil},
		{"the week of 9 to 20 January 2023", wed, []string{"9 to 20 January 2023=2023-01-09..2023-01-20/day"}},
		{"I had a week of Christmas parties", wed, nil},
		{"two weeks of Christmas vacation", wed, nil},
		{"every Christmas week we visit grandma", wed, nil},
		{"Christmas Week Special", wed, nil},
		{"the Christmas week sale", wed, nil},
		{"a Christmas week-long sale", wed, nil},
		{"Thanksgiving weekend", wed, nil},
		{"Christmas week is my favourite time of the year", wed, nil},
		{"Over Christmas week, we rested", wed, []string{"Christmas week=2022-12-19..2022-12-25/week"}},
	})
	// the entity extractor's reading keeps the day written
	ms := FindWith("the week of 9 January 2023", Options{Ref: wed, Apart: true})
	if got := strings.Join(renderAll("the week of 9 January 2023", ms), " | "); got != "9 January 2023=2023-01-09/day" {
		t.Errorf("Apart: got %q", got)
	}
}

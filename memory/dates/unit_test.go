package dates

import (
	"testing"
	"time"
)

// "The week", "the month", "the quarter" and "the year" after a part's
// words: which one the sentence's tense says (ref: Monday 7 December
// 2026, and Monday 4 January 2027 for a year just ended); none in a habit,
// before a noun it names, or before words that say which. And "the other
// day": a few days back, unless it is the other of two.
func TestFindUnitOfPart(t *testing.T) {
	dec := time.Date(2026, 12, 7, 16, 0, 0, 0, time.UTC)
	jan := time.Date(2027, 1, 4, 16, 0, 0, 0, time.UTC)
	runFind(t, []findCase{
		// told in the past: the latest begun
		{"By the end of the year I was burned out.", jan, []string{"the end of the year=2026-07-01..2026-12-31/year/rel"}},
		{"By the end of the week the tests were green.", dec, []string{"the end of the week=2026-12-03..2026-12-06/week/rel"}},
		{"At the end of the month we closed the books.", dec, []string{"the end of the month=2026-11-16..2026-11-30/month/rel"}},
		// ahead or a deadline: this one, or the next where its day passed
		{"At the beginning of the year we'll hire two people.", dec, []string{"the beginning of the year=2027-01-01..2027-06-30/year/rel"}},
		{"Let's revisit this at the start of the month.", dec, []string{"the start of the month=2027-01-01..2027-01-16/month/rel"}},
		{"The report is due by the end of the month.", dec, []string{"the end of the month=2026-12-16..2026-12-31/month/rel"}},
		{"Could I fit in a visit before the end of the year?", dec, []string{"the end of the year=2026-07-01..2026-12-31/year/rel"}},
		{"Project 3: Sales Report, deadline - end of the month.", dec, []string{"end of the month=2026-12-16..2026-12-31/month/rel"}},
		// the present: this one
		{"The end of the week is packed.", dec, []string{"The end of the week=2026-12-10..2026-12-13/week/rel"}},
		{"I'm free from the middle of the week.", dec, []string{"the middle of the week=2026-12-08..2026-12-12/week/rel"}},
		// none
		{"We always get paid at the end of the month.", dec, nil},
		{"The end of the month report is attached.", dec, nil},
		{"At the end of the year 2022 we moved.", dec, nil},
		// words that say which read it
		{"At the end of the month after next we launch.", dec, []string{"the end of the month after next=2027-02-15..2027-02-28/month/rel"}},
		{"The end of the week before last was hectic.", dec, []string{"The end of the week before last=2026-11-26..2026-11-29/week/rel"}},
		// the other day
		{"I saw him the other day.", dec, []string{"the other day=2026-11-30..2026-12-05/day/rel"}},
		{"the other day of the conference was better", dec, nil},
		{"One day we hiked, the other day we rested.", dec, nil},
		{"the other day-trip was better", dec, nil},
	})
}

package dates

import (
	"strings"
	"testing"
	"time"
)

// A word before a week, month, quarter or year narrows it to a half:
// "early" the first, "mid" the middle, "late" the second, and so "the
// start of", "the middle of", "the end of"; a day or a weekend is left
// whole, and so is a period no such word comes right before.
func TestFindPartOfPeriod(t *testing.T) {
	runFind(t, []findCase{
		{"We moved in early June 2022.", wed, []string{"early June 2022=2022-06-01..2022-06-15/month"}},
		{"mid-May", wed, []string{"mid-May=2023-05-08..2023-05-24/month"}},
		{"it was late February", wed, []string{"late February=2023-02-15..2023-02-28/month"}},
		{"at the start of April", wed, []string{"the start of April=2023-04-01..2023-04-15/month"}},
		{"at the beginning of 2021", wed, []string{"the beginning of 2021=2021-01-01..2021-06-30/year"}},
		{"by the end of March", wed, []string{"the end of March=2023-03-16..2023-03-31/month"}},
		{"in the middle of last year", wed, []string{"the middle of last year=2022-04-01..2022-09-30/year/rel"}},
		{"late last week we shipped", wed, []string{"late last week=2023-05-04..2023-05-07/week/rel"}},
		{"early next month", wed, []string{"early next month=2023-06-01..2023-06-15/month/rel"}},
		{"in late 2019", wed, []string{"late 2019=2019-07-01..2019-12-31/year"}},
		{"in the first week of May", wed, []string{"the first week of May=2023-05-01..2023-05-07/month"}},
		{"the third week of April", wed, []string{"the third week of April=2023-04-15..2023-04-21/month"}},
		{"the last week of February", wed, []string{"the last week of February=2023-02-22..2023-02-28/month"}},
		{"the first half of 2022", wed, []string{"the first half of 2022=2022-01-01..2022-06-30/year"}},
		{"the second half of last year", wed, []string{"the second half of last year=2022-07-01..2022-12-31/year/rel"}},
		{"the second half of April", wed, []string{"the second half of April=2023-04-16..2023-04-30/month"}},
		// left whole
		{"early on Monday", wed, []string{"Monday=2023-05-08/day/rel"}},
		{"the end of the day", wed, nil},
		{"I was late, May was busy", wed, nil},
		{"the end of this weekend", wed, []string{"this weekend=2023-05-13..2023-05-14/weekend/rel"}},
		{"the first week of next year", wed, []string{"next year=2024/year/rel"}},
		{"the other half of May", wed, []string{"May=2023-05/month"}},
		{"a week of May", wed, []string{"May=2023-05/month"}},
		{"the first of May", wed, []string{"May=2023-05/month"}},
		{"the second of March we went out", wed, []string{"March=2023-03/month"}},
		{"half of 2000 were women", wed, nil},
		// an adverb of the verb before a relative period is no part of it
		{"I worked late this week", wed, []string{"this week=2023-05-08..2023-05-14/week/rel"}},
		{"I woke up early last week to catch the flight", wed, []string{"last week=2023-05-01..2023-05-07/week/rel"}},
		{"We arrived late last month", wed, []string{"last month=2023-04/month/rel"}},
		{"Late last week we shipped", wed, []string{"Late last week=2023-05-04..2023-05-07/week/rel"}},
		{"We finish by early next month", wed, []string{"early next month=2023-06-01..2023-06-15/month/rel"}},
		{"I came in early this week", wed, []string{"this week=2023-05-08..2023-05-14/week/rel"}},
		// "the week", "the month" after a part's words: the one ref is in,
		// or the last one where its part has not begun and nothing looks
		// ahead
		{"The report is due by the end of the month.", wed, []string{"the end of the month=2023-05-16..2023-05-31/month/rel"}},
		{"Let's finish by end of week.", wed, []string{"end of week=2023-05-11..2023-05-14/week/rel"}},
		{"the end of the week was fun", wed, []string{"the end of the week=2023-05-04..2023-05-07/week/rel"}},
		{"since the beginning of the year", wed, []string{"the beginning of the year=2023-01-01..2023-06-30/year/rel"}},
		{"by the end of the quarter", wed, []string{"the end of the quarter=2023-05-16..2023-06-30/quarter/rel"}},
		{"the end of the world", wed, nil},
		{"the end of the meeting", wed, nil},
		{"during the week", wed, nil},
	})
	// since a part: from the part's start to ref's day
	ms := FindWith("What happened since the end of October?", Options{Ref: wed, Recent: true})
	if got := strings.Join(renderAll("What happened since the end of October?", ms), " | "); got != "since the end of October=2022-10-16..2023-05-10/month/rel" {
		t.Errorf("since the end of October: got %q", got)
	}
}

// Calendar quarters: "Q1" to "Q4" with a year, a range of them, and
// last, this and next quarter; without a year only in a question, after a
// word that announces a date (the latest begun, or the next not yet ended
// in a sentence that looks ahead). "Q3" alone in a memory is too often a
// car, a quiz's question or a game's quarter.
func TestFindQuarter(t *testing.T) {
	nov := time.Date(2026, 11, 12, 10, 0, 0, 0, time.UTC)
	runFind(t, []findCase{
		{"Our Q3 2025 numbers were good", nov, []string{"Q3 2025=2025-07-01..2025-09-30/quarter"}},
		{"in q2 of 2024", nov, []string{"q2 of 2024=2024-04-01..2024-06-30/quarter"}},
		{"by Q4'25", nov, []string{"Q4'25=2025-10-01..2025-12-31/quarter"}},
		{"the plan for Q1-Q2 2023", nov, []string{"Q1-Q2 2023=2023-01-01..2023-06-30/quarter"}},
		{"in Q1 and Q2 of 2027", nov, []string{"Q1 and Q2 of 2027=2027-01-01..2027-06-30/quarter"}},
		{"Q3/Q4 2024 went well", nov, []string{"Q3/Q4 2024=2024-07-01..2024-12-31/quarter"}},
		{"What did we do last quarter?", nov, []string{"last quarter=2026-07-01..2026-09-30/quarter/rel"}},
		{"this quarter", nov, []string{"this quarter=2026-10-01..2026-12-31/quarter/rel"}},
		{"next quarter", nov, []string{"next quarter=2027-01-01..2027-03-31/quarter/rel"}},
		{"last quarter", time.Date(2027, 2, 3, 0, 0, 0, 0, time.UTC), []string{"last quarter=2026-10-01..2026-12-31/quarter/rel"}},
		{"early Q3 2025", nov, []string{"early Q3 2025=2025-07-01..2025-08-15/quarter"}},
		// none in a memory
		{"We will ship it in Q4.", nov, nil},
		{"I drive an Audi Q3 2022 model", nov, nil},
		{"I drive an Audi Q3", nov, nil},
		{"Q1. What is the capital of France?", nov, nil},
		{"they scored 20 points in Q4", nov, nil},
		{"every Q4 we plan", nov, nil},
		{"Q5", nov, nil},
		{"Q35 and Q3x and the Q-3 form", nov, nil},
		{"IQ3", nov, nil},
	})
	runQuestions(t, nov, map[string]string{
		"What did we ship in Q3?":         "Q3=2026-07-01..2026-09-30/quarter",
		"What did we ship in Q4?":         "Q4=2026-10-01..2026-12-31/quarter",
		"What will we ship in Q4?":        "Q4=2026-10-01..2026-12-31/quarter",
		"What will we ship in Q1?":        "Q1=2027-01-01..2027-03-31/quarter",
		"What happened by the end of Q3?": "the end of Q3=2026-08-16..2026-09-30/quarter",
		"How was Q3?":                     "",
		"Who drives the Audi Q3?":         "",
	})
}

// Spans a question reads with Recent: "the previous week" as the last,
// hours as the days they reach back into from ref's time, "N units back"
// as ago (with or without Recent), and the latest weekend begun for "the
// past weekend", and for "on the weekend" where a word says the tense.
func TestFindMoreRelatives(t *testing.T) {
	mon := time.Date(2026, 12, 7, 16, 0, 0, 0, time.UTC)
	runQuestions(t, mon, map[string]string{
		"What did we do the previous week?": "previous week=2026-11-30..2026-12-06/week/rel",
		"the previous month":                "previous month=2026-11/month/rel",
		"the previous Friday":               "previous Friday=2026-12-04/day/rel",
		"the previous day":                  "previous day=2026-12-06/day/rel",
		"in the last 48 hours":              "the last 48 hours=2026-12-05..2026-12-07/day/rel",
		"in the past 24 hours":              "the past 24 hours=2026-12-06..2026-12-07/day/rel",
		"in the past 12 hours":              "the past 12 hours=2026-12-07/day/rel",
		"in the past hour":                  "the past hour=2026-12-07/day/rel",
		"the last hour of the meeting":      "",
	})
	// a memory's "previous week" is of its story, not of its session
	if ms := Find("The previous week I had been in Paris.", mon); len(ms) != 0 {
		t.Errorf("Find without Recent read %q", renderAll("The previous week I had been in Paris.", ms))
	}
	runFind(t, []findCase{
		{"a few weeks back", mon, []string{"a few weeks back=2026-11-09..2026-11-29/week/rel"}},
		{"two days back, we met", mon, []string{"two days back=2026-12-05/day/rel"}},
		{"What did we do the past weekend?", mon, []string{"the past weekend=2026-12-05..2026-12-06/weekend/rel"}},
		{"They pushed the launch two weeks back", mon, nil},
		{"The project is two weeks back on schedule", mon, nil},
		{"It set us two weeks back", mon, nil},
		// "on the weekend" is a habit in a memory, whatever the tense
		{"I work on the weekend.", mon, nil},
		{"I go out on the weekend.", mon, nil},
		{"I usually went hiking on the weekend.", mon, nil},
		{"I'll call you on the weekend.", mon, nil},
	})
	runQuestions(t, mon, map[string]string{
		"What did we do on the weekend?":     "the weekend=2026-12-05..2026-12-06/weekend/rel",
		"What are you doing on the weekend?": "the weekend=2026-12-12..2026-12-13/weekend/rel",
		"Do you work on the weekend?":        "",
	})
}

// A range of weekdays after "from" or "between" in a question is the
// latest such days ended before ref's day, or the next begun after it in a
// sentence that looks ahead; not in the present tense (a schedule), and
// never in a memory, where it is mostly a schedule or a habit.
func TestFindWeekdayRange(t *testing.T) {
	thu := time.Date(2026, 12, 10, 16, 0, 0, 0, time.UTC)
	runQuestions(t, thu, map[string]string{
		"What did we do from Monday to Wednesday?":       "Monday to Wednesday=2026-12-07..2026-12-09/day/rel",
		"What happened between Tuesday and Friday?":      "Tuesday and Friday=2026-12-01..2026-12-04/day/rel",
		"Where were we from Friday to Sunday?":           "Friday to Sunday=2026-12-04..2026-12-06/day/rel",
		"What did we do from Wednesday to Thursday?":     "Wednesday to Thursday=2026-12-02..2026-12-03/day/rel",
		"What will we do from Monday to Wednesday?":      "Monday to Wednesday=2026-12-14..2026-12-16/day/rel",
		"Is the shop open from Monday to Saturday?":      "",
		"Do I work from Monday to Friday?":               "",
		"What's planned from Monday to Friday?":          "",
		"Why did they move it from Monday to Wednesday?": "",
	})
	runFind(t, []findCase{
		{"We were in Rome from Monday to Wednesday.", thu, nil},
		{"The store was open from Monday to Saturday.", thu, nil},
		{"I had classes from Monday to Friday.", thu, nil},
		{"from Friday 4 December to Monday 7 December we hiked", thu, []string{"Friday 4 December to Monday 7 December=2026-12-04..2026-12-07/day"}},
	})
}

// runQuestions checks what FindWith reads in each question (with Recent,
// as recall reads its query), its mentions rendered and joined by " | ".
func runQuestions(t *testing.T, ref time.Time, want map[string]string) {
	t.Helper()
	for q, w := range want {
		if got := strings.Join(renderAll(q, FindWith(q, Options{Ref: ref, Recent: true})), " | "); got != w {
			t.Errorf("FindWith(%q, Recent) = %q, want %q", q, got, w)
		}
	}
}

// A date something is scheduled, planned or slated for, or due by, is
// ahead, with a part of a period too (a trial found them dated in the
// past: "Postmortem scheduled for Wednesday" said on a Monday was the
// Wednesday before).
func TestFindScheduledFor(t *testing.T) {
	mon := time.Date(2026, 12, 7, 16, 0, 0, 0, time.UTC)
	nov3 := time.Date(2026, 11, 3, 16, 0, 0, 0, time.UTC)
	runFind(t, []findCase{
		{"Postmortem scheduled for Wednesday", mon, []string{"Wednesday=2026-12-09/day/rel"}},
		{"The launch is planned for early February", nov3, []string{"early February=2027-02-01..2027-02-14/month"}},
		{"The audit is due in late March", nov3, []string{"late March=2027-03-16..2027-03-31/month"}},
		{"I'll finish it by late March", nov3, []string{"late March=2027-03-16..2027-03-31/month"}},
		// the tense words are counted from the part's first word
		{"I'll be on leave the second half of December", time.Date(2026, 11, 25, 16, 0, 0, 0, time.UTC), []string{"the second half of December=2026-12-16..2026-12-31/month"}},
		{"I'm starting a new job at the beginning of February", mon, []string{"the beginning of February=2027-02-01..2027-02-14/month"}},
		// the past, as before
		{"I planned it on Monday", mon, []string{"Monday=2026-11-30/day/rel"}},
		{"We went skiing the first week of February", mon, []string{"the first week of February=2026-02-01..2026-02-07/month"}},
		{"We moved there in late March", nov3, []string{"late March=2026-03-16..2026-03-31/month"}},
	})
}

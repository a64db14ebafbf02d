package dates

import (
	"strings"
	"testing"
	"time"
)

// A day written with slashes is read where its month is not in doubt (one
// number above 12), month first or day first, with a year or, after a word
// that announces a day, without; fractions, scores, "24/7" and dates whose
// both numbers could be the month are not.
func TestFindSlashDates(t *testing.T) {
	mar := time.Date(2023, 3, 3, 15, 0, 0, 0, time.UTC) // a Friday
	apr := time.Date(2023, 4, 10, 10, 0, 0, 0, time.UTC)
	runFind(t, []findCase{
		// LongMemEval's users write them so
		{"I recently saw it when I visited The Art Cube on 2/15?", mar, []string{"2/15=2023-02-15/day"}},
		{"I bought it from Amazon on 1/15.", mar, []string{"1/15=2023-01-15/day"}},
		{"It arrived on 1/20 and has been a lifesaver", mar, []string{"1/20=2023-01-20/day"}},
		{"an issue with my car's GPS system on 3/22, and I had to take it back", apr, []string{"3/22=2023-03-22/day"}},
		// a year, four digits or two, the day first or the month first
		{"Refill by 3/15/2023, CVS Pharmacy", mar, []string{"3/15/2023=2023-03-15/day"}},
		{"Current date: 19/02/2023  Instructions", mar, []string{"19/02/2023=2023-02-19/day"}},
		{"Date: 02/25/2023 * Item: Dog Food", mar, []string{"02/25/2023=2023-02-25/day"}},
		{"(valid until 3/31/23).", mar, []string{"3/31/23=2023-03-31/day"}},
		{"as of 12/31/99 we had none", mar, []string{"12/31/99=1999-12-31/day"}},
		{"Invoice 14/01/2023 paid", mar, []string{"14/01/2023=2023-01-14/day"}},
		// without a year, after a word that announces a day, read as "on May 8" is
		{"on 15/2 we met", mar, []string{"15/2=2023-02-15/day"}},
		{"I'll send it by 3/20.", mar, []string{"3/20=2023-03-20/day"}},
		{"the report is due 4/30", mar, []string{"4/30=2023-04-30/day"}},
		{"on 2/18 my sister and I will fly to Denver", mar, []string{"2/18=2024-02-18/day"}}, // as "on February 18 my sister…"
		{"We met on 2/15 last year", mar, []string{"2/15=2022-02-15/day", "last year=2022/year/rel"}},
		{"Tuesday, 2/14 works for me", mar, []string{"Tuesday, 2/14=2023-02-14/day"}},
		{"Meeting moved to Tue 2/28 afternoon", mar, []string{"2/28=2023-02-28/day"}},
		{"on 2/15 or 2/16", mar, []string{"2/15=2023-02-15/day", "2/16=2023-02-16/day"}},
		{"What did we ship the week of 11/16?", mar, []string{"the week of 11/16=2022-11-14..2022-11-20/week"}},
		// what the words around it say (a review's cases)
		{"The package arrived on 1/20 damaged.", mar, []string{"1/20=2023-01-20/day"}},
		{"I went to the dentist on 2/16 too.", mar, []string{"2/16=2023-02-16/day"}},
		{"The report is due 4/30 by midnight.", mar, []string{"4/30=2023-04-30/day"}},
		{"Deadline: 3/15", mar, []string{"3/15=2023-03-15/day"}},
		{"The meeting got pushed to 3/14.", mar, []string{"3/14=2023-03-14/day"}},
		{"The appointment is scheduled for 3/16.", mar, []string{"3/16=2023-03-16/day"}},
		{"no later than 3/15", mar, []string{"3/15=2023-03-15/day"}},
		{"Notes from 2/15: we agreed on budget.", mar, []string{"2/15=2023-02-15/day"}},
		{"2/15: dentist", mar, []string{"2/15=2023-02-15/day"}},
		{"Friday (2/17) we leave.", mar, []string{"2/17=2023-02-17/day"}}, // the weekday's date, one mention
		{"Security review due Dec 3 [Thursday], code freeze 12/10.", mar, []string{"Dec 3=2023-12-03/day"}},
		{"The release is due 12/14 (Monday).", mar, []string{"12/14=2023-12-14/day"}},
		{"On Monday (May 8) we met.", mar, []string{"May 8=2022-05-08/day"}},
		{"She said “we'll meet on 2/15” and left.", mar, []string{"2/15=2024-02-15/day"}},
		{"Worked there 2/15/2023-present.", mar, []string{"2/15/2023=2023-02-15/day"}},
		{"Standup notes 11/17: shipped the importer", mar, []string{"11/17=2022-11-17/day"}},
		{"- **11/17**: shipped", mar, []string{"11/17=2022-11-17/day"}},
		{"PR merged 11/13, deployed 11/17.", mar, []string{"11/13=2022-11-13/day", "11/17=2022-11-17/day"}},
		{"Lease ends 6/30.", mar, []string{"6/30=2023-06-30/day"}},
		{"Expires 12/15.", mar, []string{"12/15=2022-12-15/day"}},
		{"I'll be out from 12/21 to 12/28.", mar, []string{"12/21 to 12/28=2023-12-21..2023-12-28/day"}},
		// two digits of a year: within 20 years ahead of ref's
		{"My dad was born on 3/14/55 in Ohio.", mar, []string{"3/14/55=1955-03-14/day"}},
		{"Signed on 3/31/23.", mar, []string{"3/31/23=2023-03-31/day"}},
		{"DOB: 07/19/90", mar, []string{"07/19/90=1990-07-19/day"}},
		// lists take the order of a day whose order is not in doubt
		{"Training sessions on 3/15, 3/22, and 3/29.", mar, []string{"3/15=2023-03-15/day", "3/22=2023-03-22/day", "3/29=2023-03-29/day"}},
		{"My shifts are on 3/14 and 3/7.", mar, []string{"3/14=2023-03-14/day", "3/7=2023-03-07/day"}},
		{"on 2/15 & 2/16", mar, []string{"2/15=2023-02-15/day", "2/16=2023-02-16/day"}},
		// ranges
		{"I was away from 2/15 to 2/20", mar, []string{"2/15 to 2/20=2023-02-15..2023-02-20/day"}},
		{"I was away 2/15-2/20.", mar, []string{"2/15-2/20=2023-02-15..2023-02-20/day"}},
		{"we toured from 15/2 to 20/2/2023", mar, []string{"15/2 to 20/2/2023=2023-02-15..2023-02-20/day"}},
		{"between 1/13 and 1/20", mar, []string{"1/13 and 1/20=2023-01-13..2023-01-20/day"}},
		{"I was away from 2/25 to 3/2.", mar, []string{"2/25 to 3/2=2023-02-25..2023-03-02/day"}},
		{"We're closed 12/24-1/2.", mar, []string{"12/24-1/2=2022-12-24..2023-01-02/day"}},
		{"We'll be in Rome from 3/14/23 to 3/21/23.", mar, []string{"3/14/23 to 3/21/23=2023-03-14..2023-03-21/day"}},
		{"Mon 2/13 - Fri 2/17", mar, []string{"Mon 2/13 - Fri 2/17=2023-02-13..2023-02-17/day"}},
		// not days
		{"I took her to the museum on 2/8 and she loved it.", mar, nil}, // 8 February or 2 August
		{"on 05/08/2023", mar, nil},
		{"We're available 24/7 for support", mar, nil},
		{"on 24/7 support", mar, nil},
		{"the events of 9/11", mar, nil},
		{"use a 1/16 inch drill", mar, nil},
		{"by 1/16 inch", mar, nil},
		{"from 1/16 to 1/8 inch", mar, nil},
		{"between 1/16 and 1/8 inch", mar, nil},
		{"a mix of 2/3 brown and 1/3 green", mar, nil},
		{"1/2 cup of milk", mar, nil},
		{"I got 17/20 on the exam", mar, nil},
		{"a score of 13/15 on the test", mar, nil},
		{"We meet 2/15.", mar, nil}, // no word announces it
		{"on 2/30", mar, nil},
		{"on 13/13 and 0/15 and 1/32", mar, nil},
		{"on 2/15/2023/4 or 1/16-inch", mar, nil},
		{"/usr/2/15 and x2/15 and $2/15", mar, nil},
		// a fresh-clone trial's cases
		{"Shorten the bracket by 1/16, it rubs.", mar, nil},
		{"Make it shorter by 1/16.", mar, nil},
		{"The gap is between 1/16 and 3/32.", mar, nil},
		{"It measured 5/16.", mar, nil},
		{"the All-Clad D5 Brushed 18/10 Stainless Steel", mar, nil},
		{"card exp 9/28", mar, nil},
		// fractions, scores and measures (a review's cases)
		{"Use a 7/16 or 9/16 wrench.", mar, nil},
		{"a 5/16-7/16 wrench set", mar, nil},
		{"Drill bits from 1/16 to 3/16 inch.", mar, nil},
		{"My quiz scores went from 8/20 to 12/20.", mar, nil},
		{"Between 1/13 and 1/20 of the budget goes to rent.", mar, nil},
		{"The 1/13 and 1/20 cuts were fine.", mar, nil},
		{"Reduce the width by 1/16.", mar, nil},
		{"Reduce the feed by 1/14 to 1/20.", mar, nil},
		{"The price went up by 1/15 last year.", mar, []string{"last year=2022/year/rel"}},
		{"It's on 1/24 scale.", mar, nil},
		{"I've been on 5/20 mg oxycodone.", mar, nil},
		{"after 1/16 of the race we were ahead", mar, nil},
		{"The servers are on 24/7.", mar, nil},
		{"a fine tip (around 1/16\" or 1.5mm)", mar, nil},
		{"my credit card expires on 08/27", mar, nil},
		{"Card is valid through 03/26.", mar, nil},
		{"from 2/20 to 2/15", mar, nil},
	})
}

// The entity extractor's reading (Loose, Apart) takes the same days, and
// each end of a range.
func TestFindSlashDatesApart(t *testing.T) {
	mar := time.Date(2023, 3, 3, 15, 0, 0, 0, time.UTC)
	for _, c := range []findCase{
		{"I was away 2/15-2/20.", mar, []string{"2/15=2023-02-15/day", "2/20=2023-02-20/day"}},
		{"from 2/15 to 2/20", mar, []string{"2/15=2023-02-15/day", "2/20=2023-02-20/day"}},
		{"between 1/13 and 1/20", mar, []string{"1/13=2023-01-13/day", "1/20=2023-01-20/day"}},
		{"on 2/15", mar, []string{"2/15=2023-02-15/day"}},
		{"from 1/16 to 1/8 inch", mar, nil},
		{"I'll be out 2/15-2/17/2023.", mar, []string{"2/15=2023-02-15/day", "2/17/2023=2023-02-17/day"}},
		{"We're closed 12/24-1/2.", mar, []string{"12/24=2022-12-24/day", "1/2=2023-01-02/day"}},
		{"Use a 7/16 or 9/16 wrench.", mar, nil},
	} {
		got := renderAll(c.text, FindWith(c.text, Options{Ref: c.ref, Loose: true, Apart: true}))
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("FindWith(%q, Loose, Apart)\n got: %q\nwant: %q", c.text, got, c.want)
		}
	}
}

// A deadline's or a plan's word right before a date sets it ahead where no
// word of its sentence tells the tense ("Deadline: Dec 14", "due 12/15",
// "ETA", "effective", "starting", "no later than", "scheduled for", "OOO");
// a day something is moved to is ahead whatever the tense of the moving;
// a deadline passed within 45 days is the one meant. A told tense wins.
func TestFindDeadlinesAhead(t *testing.T) {
	nov := time.Date(2026, 11, 18, 10, 0, 0, 0, time.UTC)
	may := time.Date(2023, 5, 9, 10, 0, 0, 0, time.UTC)
	runFind(t, []findCase{
		{"Deadline: 12/14 for the Q4 report.", nov, []string{"12/14=2026-12-14/day"}},
		{"Deadline: December 14 for the Q4 report.", nov, []string{"December 14=2026-12-14/day"}},
		{"Due date: 12/14", nov, []string{"12/14=2026-12-14/day"}},
		{"The invoice is due 12/15, remind me.", nov, []string{"12/15=2026-12-15/day"}},
		{"ETA 12/15", nov, []string{"12/15=2026-12-15/day"}},
		{"Effective 12/14 we use the new VPN.", nov, []string{"12/14=2026-12-14/day"}},
		{"Code freeze is scheduled for 12/18, release no later than 12/22.", nov, []string{"12/18=2026-12-18/day", "12/22=2026-12-22/day"}},
		{"OOO 12/21 - 1/4", nov, []string{"12/21 - 1/4=2026-12-21..2027-01-04/day"}},
		{"The meeting was moved to 12/14.", nov, []string{"12/14=2026-12-14/day"}},
		{"The deadline was moved to March 22.", nov, []string{"March 22=2027-03-22/day"}},
		// told, or passed within 45 days
		{"The report was due 4/30.", nov, []string{"4/30=2026-04-30/day"}},
		{"It was effective 1/15 last year.", nov, []string{"1/15=2025-01-15/day", "last year=2025/year/rel"}},
		{"+ Deadline: April 20 * Task 3", may, []string{"April 20=2023-04-20/day"}},
		{"+ Deadline: May 8", may, []string{"May 8=2023-05-08/day"}},
		{"Due: 3/15", may, []string{"3/15=2024-03-15/day"}},
		// a review's cases: a thing done near the date, a year named, a
		// deadline just passed over the new year
		{"Starting September 1 I took over the billing team", nov, []string{"September 1=2026-09-01/day"}},
		{"Shipped the feature due Sept 30 a week late", nov, []string{"Sept 30=2026-09-30/day"}},
		{"Status: done. Due Oct 30.", nov, []string{"Oct 30=2026-10-30/day"}},
		{"Deadline: 12/14 for the Q4 report. I bought the monitor on 11/13.", nov, []string{"12/14=2026-12-14/day", "11/13=2026-11-13/day"}},
		{"Card: Fix login bug. Due date: Jan 12. Status: Done.", nov, []string{"Jan 12=2026-01-12/day"}},
		{"- [x] Renew domain, due: Oct 2", nov, []string{"Oct 2=2026-10-02/day"}},
		{"Homework due Monday — done and handed in", nov, []string{"Monday=2026-11-16/day/rel"}},
		{"The concert got rescheduled to Nov 2 and it was amazing.", nov, []string{"Nov 2=2026-11-02/day"}},
		{"In 1998 the merger, effective July 1, reshaped the company", nov, []string{"1998=1998/year", "July 1=1998-07-01/day"}},
		{"Deadline: Dec 30", time.Date(2027, 1, 5, 10, 0, 0, 0, time.UTC), []string{"Dec 30=2026-12-30/day"}},
		{"The meeting was moved to 12/14.", time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC), []string{"12/14=2026-12-14/day"}},
		{"Due late October.", time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC), []string{"late October=2026-10-16..2026-10-31/month"}},
		{"I pushed to Friday's branch.", nov, []string{"Friday=2026-11-13/day/rel"}},
		// "due on", "due by", and a capitalised cue before a weekday, no name
		{"Report due by Friday.", nov, []string{"Friday=2026-11-20/day/rel"}},
		{"Report due on Dec 14.", nov, []string{"Dec 14=2026-12-14/day"}},
		{"Due Friday.", nov, []string{"Friday=2026-11-20/day/rel"}},
		{"Deadline Friday.", nov, []string{"Friday=2026-11-20/day/rel"}},
		{"Starting Monday, standups are at 9:30.", nov, []string{"Monday=2026-11-23/day/rel"}},
		{"Starting Monday was hard.", nov, []string{"Monday=2026-11-16/day/rel"}},
		{"Black Friday deals", nov, nil},
		// a holiday's deadline, unless the past is told or a thing done
		{"I want to lose 5 kilos by Christmas.", nov, []string{"Christmas=2026-12-25/day"}},
		{"Let's get it done by Easter.", nov, []string{"Easter=2027-03-28/day"}},
		{"We finished the deck by Labor Day.", nov, []string{"Labor Day=2026-09-07/day"}},
		{"By Halloween my costume was ready.", nov, []string{"Halloween=2026-10-31/day"}},
	})
}

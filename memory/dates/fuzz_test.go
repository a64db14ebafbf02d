package dates

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// budget is a generous bound on one call: the real cost is well under a
// tenth of it (see BenchmarkFind64KiB), so only super-linear behaviour
// trips it, even under the fuzzer's instrumentation.
const budget = 250 * time.Millisecond

var fuzzSeeds = []string{
	"",
	"Or 2024?", // a year joined to the text's start (panicked)
	"on 2/15 and 3/5, 1/16 to 3/16 inch, 24/7",
	"yesterday",
	"1:56 pm on 8 May, 2023",
	"2023/05/30 (Tue) 23:40",
	"2023-05-07T14:00:05.123456789+02:00",
	"the day before yesterday and the day after tomorrow",
	"a couple of weeks ago, a few days ago, several months ago",
	"Monday, May 8, 2023; 8th of May; in May; last May; next May; mid-May",
	"in 2022, since 2019, 1500 points, 2019-2020, 05/08/2023, 12.05.19, the 2008 crisis",
	"earlier this week, later this month, over the weekend, this past Saturday",
	"31 February 2023 2023-13-01 Feb 29",
	strings.Repeat("last ", 50),
	strings.Repeat("8 ", 50),
	strings.Repeat("a couple of ", 30),
	strings.Repeat("2023-", 30),
	strings.Repeat("Monday, ", 30),
	"\xff\xfe May\u00a08 “2023” — Tuesday’s",
	"from 30 April to 3 May, from June to August, 28 December to 3 January 2024, May 3-7, 2023",
	"28 to 31 December 2261, Dec thru Sept 1678, between 11 and 15 August, 2023-05-03 to 2023-05-07",
	strings.Repeat("3-7 May ", 30),
	"the week before last Christmas, the month after next year, from 2019 to 2021 what, in 2024 and 2025",
	strings.Repeat("the week before last ", 30),
	"in the last three days, over the past week, the last few months, since Monday, since the 3rd, the last week of May",
	strings.Repeat("since the last ", 30),
}

// FuzzFind checks that Find never panics, returns well-formed mentions and
// stays linear: 64 KiB made of the input repeated must take well under the
// budget.
func FuzzFind(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, int64(1683727200))
	}
	f.Fuzz(func(t *testing.T, text string, unix int64) {
		ref := time.Unix(unix%(400*365*86400), 0).In(time.FixedZone("", int(unix%50400)))
		if unix%7 == 0 {
			ref = time.Time{}
		}
		checkMentions(t, text, ref, Find(text, ref))
		checkMentions(t, text, ref, FindWith(text, Options{Ref: ref, Loose: true}))
		checkMentions(t, text, ref, FindWith(text, Options{Ref: ref, About: true, Recent: true}))
		if text == "" {
			return
		}
		big := strings.Repeat(text, 64<<10/len(text)+1)[:64<<10]
		var ms []Mention
		if d := fastest(func() { ms = Find(big, ref) }); d > budget {
			// A loaded machine slows everything: compare with 64 KiB of
			// ordinary text measured now.
			plain := strings.Repeat(turn+" ", 64<<10/len(turn)+1)[:64<<10]
			if base := fastest(func() { Find(plain, ref) }); d > 10*base {
				t.Fatalf("Find on 64 KiB took %v (budget %v, and %v for ordinary text)", d, budget, base)
			}
		}
		checkMentions(t, big, ref, ms)
	})
}

// fastest returns the shortest of up to three runs of f, so that a pause
// of the machine is not taken for slowness.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		f()
		if d := time.Since(start); d < best {
			best = d
		}
		if best <= budget {
			break
		}
	}
	return best
}

func checkMentions(t *testing.T, text string, ref time.Time, ms []Mention) {
	t.Helper()
	end := 0
	for _, m := range ms {
		if m.Start < end || m.End <= m.Start || m.End > len(text) {
			t.Fatalf("mention [%d, %d) after %d in %d bytes", m.Start, m.End, end, len(text))
		}
		end = m.End
		if m.Grain < Day || m.Grain > Year {
			t.Fatalf("grain %d", m.Grain)
		}
		if m.From.IsZero() != m.To.IsZero() || m.Label() == "" != m.From.IsZero() {
			t.Fatalf("%q: From %v To %v Label %q", text[m.Start:m.End], m.From, m.To, m.Label())
		}
		if m.From.IsZero() {
			if m.Year != 0 && !m.Relative {
				t.Fatalf("%q: a dated mention left unresolved", text[m.Start:m.End])
			}
			continue
		}
		if !m.From.Before(m.To) || m.From.Year() < MinYear || m.To.Add(-1).Year() > MaxYear {
			t.Fatalf("%q: period %v..%v", text[m.Start:m.End], m.From, m.To)
		}
		if m.From.Location() != ref.Location() || m.From.Hour() != 0 || m.From.Minute() != 0 {
			t.Fatalf("%q: From %v is not a midnight in ref's location %v", text[m.Start:m.End], m.From, ref.Location())
		}
		if m.Year != 0 && m.From.Year() != m.Year || m.Month != 0 && !m.Relative && int(m.From.Month()) != m.Month {
			t.Fatalf("%q: fields %d-%d-%d, period %v", text[m.Start:m.End], m.Year, m.Month, m.Day, m.From)
		}
	}
}

// FuzzParse checks that Parse never panics, answers quickly, accepts only
// dates in range, and reads back what it accepted in RFC 3339.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{"31 February, 2023", "2023-13-01", "2023", "May 2023", "at 2 pm on Monday, 8 May 2023",
		"2023-05-07 14:00:05", "May 8th 2023 2:30 p.m.", "12:00 am on 1st of January, 1678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var (
			got      time.Time
			dateOnly bool
			err      error
		)
		if d := fastest(func() { got, dateOnly, err = Parse(s, time.UTC) }); d > budget {
			t.Fatalf("Parse took %v", d)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cannot read ") || !utf8.ValidString(err.Error()) && utf8.ValidString(s) {
				t.Fatalf("error %q", err)
			}
			return
		}
		if len(s) > MaxLen || got.Year() < MinYear || got.Year() > MaxYear {
			t.Fatalf("Parse(%q) = %v", s, got)
		}
		if dateOnly && (got.Hour() != 0 || got.Minute() != 0 || got.Second() != 0 || got.Nanosecond() != 0) {
			t.Fatalf("Parse(%q) = %v, a date only", s, got)
		}
		again, _, err := Parse(got.Format(time.RFC3339Nano), time.UTC)
		if err != nil || !again.Equal(got) {
			t.Fatalf("Parse(%q) = %v, but its RFC 3339 form reads as %v, %v", s, got, again, err)
		}
	})
}

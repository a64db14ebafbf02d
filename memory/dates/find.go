package dates

import (
	"cmp"
	"strings"
	"time"
	"unicode/utf8"
)

// Grain is the size of the period a Mention names.
type Grain uint8

// The grains of a Mention. A fuzzy or partial period ("a few days ago",
// "earlier this week") has the grain of its unit and spans several or part
// of them.
const (
	Day     Grain = iota + 1 // one calendar day
	Week                     // an ISO week, Monday to Sunday, or the seven days before or after a day (weekof.go)
	Weekend                  // Saturday and Sunday
	Month                    // a calendar month
	Season                   // three months: spring from March, summer from June, autumn from September, winter from December
	Year                     // a calendar year
	Quarter                  // three months: January, April, July or October to the end of the next but one
)

// Mention is a time expression found in text.
type Mention struct {
	// Start and End are the byte offsets of the expression in the text. A
	// preposition that only announces it ("on" Tuesday, "in" May) is left
	// out; one that carries meaning ("in two weeks") is in.
	Start, End int
	// From and To are the period it names, [From, To), midnight to
	// midnight in ref's location (UTC for a zero ref). Both are zero when it
	// cannot be resolved: a relative mention or a date without a year when
	// ref is zero, or a period that would leave MinYear..MaxYear.
	From, To time.Time
	// Grain is the size of the period.
	Grain Grain
	// Relative reports a period computed from ref's date ("yesterday",
	// "last week", "two months ago", "on Tuesday", "last May"). A date
	// without a year ("May 8", "in May") is not relative: it takes only
	// its year from ref, and Year is 0.
	Relative bool
	// Year, Month and Day are the calendar fields written in the text, 0
	// when absent: "May 8" has Year 0, "last May" has Month 5. A date with
	// the day or month first, which only Options.Loose reads, has none:
	// which number is the month is unknown. A range's ("3 to 7 May
	// 2023", range.go) are its last day's or month's, with the month or
	// year its first end says alone.
	Year, Month, Day int
	// Holiday reports a day a holiday's name gives ("Christmas", "Easter
	// 2019"; holiday.go), which is a name as much as a date.
	Holiday bool
	// Back reports an expression that says by its own words that its
	// period is before ref, or reaches back to it: "yesterday", "last
	// week", "the previous month", "two days ago", "a few weeks back",
	// "the week before last", "earlier this week", "the past weekend",
	// "the last three days", "since Monday", "the other day". A bare name ("Monday", "in
	// May"), which may be of the one to come, is not.
	Back bool
}

// Resolved reports whether m names a period: one its Label writes.
func (m Mention) Resolved() bool { return !m.From.IsZero() && m.To.After(m.From) }

// Label is a short annotation of the resolved period: "2023-05-07" for a
// day, "2023-05" for a calendar month, "2023" for a calendar year,
// "2023-05-01..2023-05-07" (both days included) for a week or any other
// span, and "" when the mention is not resolved.
func (m Mention) Label() string {
	if !m.Resolved() {
		return ""
	}
	y, mo, d := m.From.Date()
	last := m.To.Add(-time.Nanosecond)
	ly, lm, ld := last.Date()
	var b [32]byte
	out := b[:0]
	switch {
	case y == ly && mo == lm && d == ld:
		out = m.From.AppendFormat(out, "2006-01-02")
	case d == 1 && mo == 1 && ly == y && lm == 12 && ld == 31:
		out = m.From.AppendFormat(out, "2006")
	case d == 1 && ly == y && lm == mo && ld == daysIn(y, int(mo)):
		out = m.From.AppendFormat(out, "2006-01")
	default:
		out = m.From.AppendFormat(out, "2006-01-02")
		out = append(out, ".."...)
		out = last.AppendFormat(out, "2006-01-02")
	}
	return string(out)
}

// Find returns the time expressions in text, in order and without overlap,
// resolved against ref (a zero ref resolves only what needs no reference).
// The package documentation lists the expressions and how each resolves.
// It runs in time linear in the length of text and allocates only for the
// mentions it returns when text is short.
func Find(text string, ref time.Time) []Mention {
	return FindWith(text, Options{Ref: ref})
}

// Options are the settings of FindWith.
type Options struct {
	// Ref is the reference time the mentions are resolved against, as
	// Find's ref.
	Ref time.Time
	// Loose also takes forms that are too unsure to name a period for
	// recall but worth indexing, for the entity extractor:
	//
	//   - a four-digit year from 1900 to 2099 without a word that announces
	//     it ("2019 was great", "(2019)"), and any year before any word:
	//     "the 2008 crisis", but also "2000 people", which the caller,
	//     knowing its units and counted nouns, tells from a year.
	//   - an all-digit date with the day or the month first: "12/05/2019",
	//     "12-05-19", "12.05.2019" (two numbers from 1 to 31, not both
	//     above 12, and a year of four digits, or two unless the separator
	//     is a dot) that Find does not read (slashDay reads "31/12/2019"
	//     and "12/31/2019"). Which of the two is the month is unknown, so
	//     the mention has Grain Day and neither fields nor a period.
	Loose bool
	// Apart reads the two ends of a range ("3 to 7 May", range.go) as
	// two mentions, as a text without ranges would be read: for the
	// entity extractor, which indexes each day.
	Apart bool
	// About reads a count of units from ref ("two weeks ago", "in two
	// weeks", "a month from now") as people mean it, about that long: its
	// period also covers the days within half a unit of the day exactly
	// that far from ref (around.go). Said on Wednesday 1 February 2023,
	// "two weeks ago" is 2023-01-15..2023-01-22, not only the ISO week
	// 01-16..22. For recall's query, whose periods weigh the ranking.
	About bool
	// Recent reads a span back to ref's day, that day included: "the
	// last three days", "the past week", "the last few months" (a count
	// of up to 100 days, weeks, months or years), and a date after
	// "since" ("since Monday", "since Thanksgiving") up to ref's day
	// (recent.go). For recall's query: a memory saying "in the past week"
	// is left as it is.
	Recent bool
}

// FindWith is Find with options.
func FindWith(text string, opts Options) []Mention {
	var buf [128]token
	var c calendar
	c.set(opts.Ref)
	// The calendar is behind a pointer so that its location, which flows
	// into the mentions, does not make the tokens escape to the heap.
	f := finder{s: text, t: tokenize(text, buf[:0]), calendar: &c, loose: opts.Loose, apart: opts.Apart, about: opts.About, recent: opts.Recent}
	var out []Mention
	var lastWeekday bool // the last of out starts with a weekday's name
	for i := 0; i < len(f.t); {
		if k := f.t[i].kind; k == kPunct || k == kWord && f.t[i].kw == kwNone {
			i++ // no mention starts here
			continue
		}
		m, next := f.at(i)
		if next <= i {
			i++
			continue
		}
		weekday := false
		if m.End > m.Start {
			s := f.tokenAt(m.Start, i)
			m, s = f.partOf(m, s) // "early March", "the end of next week"
			m, s = f.weekOf(m, s) // "the week of Nov 9", "the week before Christmas"
			if f.recent {
				m = f.since(m, s)
			}
			_, weekday = f.kw(s).weekday()
		}
		if m.End > m.Start && !f.namesDayBefore(m, weekday, out) {
			if f.namedDayAfter(m, out, lastWeekday) {
				out = out[:len(out)-1] // "Friday (2/17)": the day names the weekday's date
			}
			out, lastWeekday = append(out, m), weekday
		}
		i = next
	}
	return out
}

// namesDayBefore reports a weekday m (weekday: it starts with one's
// name) in brackets right after a day ("due Dec 3 [Thursday]", "12/14
// (Monday)"): it names that day's weekday, not a day of its own, and is
// no mention.
func (f *finder) namesDayBefore(m Mention, weekday bool, out []Mention) bool {
	if !weekday || len(out) == 0 || m.Grain != Day || !m.Relative {
		return false
	}
	prev := out[len(out)-1]
	if prev.Grain != Day || prev.Relative {
		return false
	}
	between := strings.TrimSpace(f.s[prev.End:m.Start])
	if between != "(" && between != "[" && between != "," && between != ", (" {
		return false
	}
	return strings.ContainsAny(f.s[m.End:min(m.End+2, len(f.s))], ")]")
}

// namedDayAfter reports a day m in brackets right after a weekday, the
// last of out (lastWeekday: "Friday (2/17)", "Monday [May 8]"): the
// weekday's own date.
func (f *finder) namedDayAfter(m Mention, out []Mention, lastWeekday bool) bool {
	if !lastWeekday || len(out) == 0 || m.Grain != Day || m.Relative {
		return false
	}
	prev := out[len(out)-1]
	if prev.Grain != Day || !prev.Relative {
		return false
	}
	between := strings.TrimSpace(f.s[prev.End:m.Start])
	return between == "(" || between == "["
}

type finder struct {
	s      string
	t      []token
	loose  bool // Options.Loose
	apart  bool // Options.Apart
	about  bool // Options.About
	recent bool // Options.Recent
	// inRange is set while a range's year is read (range.go): its from or
	// between sets a time (setAt), and a journey or schedule verb before
	// its from is a plan (planAt)
	inRange bool
	*calendar
}

// tokenAt is the token that starts at byte offset start, searched from
// token i - 1 (a mention may begin at the token before the one it was
// found at, "Q3", or after it, "over the weekend").
func (f *finder) tokenAt(start, i int) int {
	for k := max(i-1, 0); k < len(f.t); k++ {
		if f.t[k].start >= start {
			return k
		}
	}
	return i
}

// calendar is the reference date.
type calendar struct {
	has  bool // ref is set
	loc  *time.Location
	y, m int // ref's date in its location
	d    int
	wd   int // ref's weekday, Monday = 0
	hour int // ref's hour, 0 to 23
}

func (c *calendar) set(ref time.Time) {
	c.loc = time.UTC
	if ref.IsZero() {
		return
	}
	c.has, c.loc = true, ref.Location()
	y, m, d := ref.Date()
	c.y, c.m, c.d = y, int(m), d
	c.wd = (int(ref.Weekday()) + 6) % 7
	c.hour = ref.Hour()
}

func (f *finder) kw(i int) kw {
	if i >= 0 && i < len(f.t) && f.t[i].kind == kWord {
		return f.t[i].kw
	}
	return kwNone
}

func (f *finder) punct(i int, c byte) bool {
	return i >= 0 && i < len(f.t) && f.t[i].kind == kPunct && f.s[f.t[i].start] == c
}

func (f *finder) glued(i int) bool { return i >= 0 && i < len(f.t) && !f.t[i].space }

func (f *finder) spaced(i int) bool { return i >= 0 && i < len(f.t) && f.t[i].space }

// sameLine reports whether the token at i follows spaces but no line
// break: the parts of a date are on one line ("in March\n4. Pay" is no
// date).
func (f *finder) sameLine(i int) bool { return f.spaced(i) && !f.t[i].line }

func (f *finder) num(i int) bool { return i >= 0 && i < len(f.t) && f.t[i].kind == kNum }

func (f *finder) numN(i, n int) bool { return f.num(i) && int(f.t[i].ndig) == n }

// leftOK reports whether the token at i starts a phrase: it follows
// whitespace, the start of the text, an opening bracket or quote, or
// Markdown's emphasis or table rule ("**May 2023**", "|2023-05-08|").
func (f *finder) leftOK(i int) bool {
	if f.t[i].space {
		return true
	}
	p := f.t[i-1]
	if p.kind != kPunct {
		return false
	}
	c := f.s[p.start]
	if c == '-' { // mid-May
		return !p.space && f.kw(i-2) == kwPeriod
	}
	return c == '(' || c == '[' || c == '"' || c == '\'' || c == '*' || c == '_' || c == '|' || c >= utf8.RuneSelf
}

// rightOK reports whether a phrase may end before the token at j: the end
// of the text, whitespace, or punctuation (Markdown's too) that
// does not continue a number ("8," but not "8,000", "8:30" or "8-10").
func (f *finder) rightOK(j int) bool {
	if j >= len(f.t) || f.t[j].space {
		return true
	}
	if f.t[j].kind != kPunct {
		return false
	}
	switch c := f.s[f.t[j].start]; c {
	case '.', ',', ':', '/', '-', '*', '_':
		return !f.glued(j+1) || f.t[j+1].kind != kNum
	case ';', '!', '?', ')', ']', '"', '\'', '|':
		return true
	default:
		return c >= utf8.RuneSelf
	}
}

// cued reports whether the month or year at i follows a word that
// announces it: in, since, during, until, till, from, through, before,
// after, early, mid, late ("mid-May" too), "the start, beginning, middle
// or end of" and "the first or second half of", and for a month also of,
// by and around.
func (f *finder) cued(i int, month bool) bool {
	if !f.t[i].space {
		return f.punct(i-1, '-') && !f.t[i-1].space && f.kw(i-2) == kwPeriod
	}
	switch f.kw(i - 1) {
	case kwIn, kwCue, kwPeriod, kwBefore, kwAfter:
		return true
	case kwOf:
		return month || f.word(i-2, "start") || f.word(i-2, "beginning") || f.word(i-2, "middle") || f.word(i-2, "end") ||
			f.word(i-2, "half") && (f.word(i-3, "first") || f.word(i-3, "second"))
	case kwBy:
		return month
	}
	return false
}

// mention makes the mention of tokens [i, j).
func (f *finder) mention(i, j int, g Grain, rel bool, from, to time.Time) Mention {
	m := Mention{Start: f.t[i].start, End: f.t[j-1].end, Grain: g, Relative: rel}
	if rel && !f.has {
		return m
	}
	if from.Year() < MinYear || to.Add(-time.Nanosecond).Year() > MaxYear {
		return m
	}
	m.From, m.To = from, to
	return m
}

// period is [from, to).
type period struct{ from, to time.Time }

// rel makes the relative mention of tokens [i, j) and returns j with it.
func (f *finder) rel(i, j int, g Grain, p period) (Mention, int) {
	return f.mention(i, j, g, true, p.from, p.to), j
}

// days returns [ref's day + a, ref's day + b).
func (f *finder) days(a, b int) period {
	return period{wallTime(f.y, time.Month(f.m), f.d+a, 0, 0, 0, 0, f.loc),
		wallTime(f.y, time.Month(f.m), f.d+b, 0, 0, 0, 0, f.loc)}
}

// months returns [ref's month + a, ref's month + b).
func (f *finder) months(a, b int) period {
	return period{wallTime(f.y, time.Month(f.m+a), 1, 0, 0, 0, 0, f.loc),
		wallTime(f.y, time.Month(f.m+b), 1, 0, 0, 0, 0, f.loc)}
}

// years returns [ref's year + a, ref's year + b).
func (f *finder) years(a, b int) period {
	return period{wallTime(f.y+a, 1, 1, 0, 0, 0, 0, f.loc), wallTime(f.y+b, 1, 1, 0, 0, 0, 0, f.loc)}
}

// dayOf returns the day y-m-d.
func (f *finder) dayOf(y, m, d int) (time.Time, time.Time) {
	return wallTime(y, time.Month(m), d, 0, 0, 0, 0, f.loc), wallTime(y, time.Month(m), d+1, 0, 0, 0, 0, f.loc)
}

// monthOf returns the month y-m.
func (f *finder) monthOf(y, m int) (time.Time, time.Time) {
	return wallTime(y, time.Month(m), 1, 0, 0, 0, 0, f.loc), wallTime(y, time.Month(m+1), 1, 0, 0, 0, 0, f.loc)
}

// at returns the mention that starts at token i and the token after it, or
// i when none does. A mention with End == 0 is consumed but not reported (an
// impossible date such as "31 February 2023").
func (f *finder) at(i int) (Mention, int) {
	t := &f.t[i]
	if k := t.kw; t.kind == kNum || k.month() > 0 || kwSun <= k && k <= kwSatAbbr || k == kwThe && f.num(i+1) {
		if m, n := f.rangeAt(i); n > i {
			return m, n // "3 to 7 May", "from the 1st to the 4th of July", "Mon 1 – Fri 5 May"
		}
	}
	if t.kind == kNum {
		if m, n := f.quarter(i); n > i {
			return m, n // "Q3", "Q3 2026"
		}
		if m, n := f.absolute(i); n > i {
			return m, n
		}
		if m, n := f.ago(i); n > i {
			return m, n
		}
		return f.year(i)
	}
	if t.kind != kWord {
		return Mention{}, i
	}
	switch k := t.kw; {
	case k.month() > 0:
		return f.absolute(i)
	case kwSun <= k && k <= kwSat:
		return f.weekday(i)
	case k == kwToday || k == kwTonight:
		return f.rel(i, i+1, Day, f.days(0, 1))
	case k == kwYesterday || k == kwTomorrow:
		off := -1
		if k == kwTomorrow {
			off = 1
		}
		return f.back(k == kwYesterday)(f.rel(i, f.partOfDay(i+1), Day, f.days(off, off+1)))
	case k == kwThe || k == kwDay:
		return f.theAt(i, k)
	case k == kwAt || k == kwOn:
		return f.atWeekend(i)
	case k == kwLast || k == kwNext || k == kwThis || k == kwPrevious && f.recent:
		return f.back(k == kwLast || k == kwPrevious || k == kwThis && f.kw(i+1) == kwPast)(f.lastNext(i))
	case k == kwEarlier || k == kwLater:
		return f.back(k == kwEarlier)(f.earlier(i))
	case k == kwOver:
		if f.kw(i+1) == kwThe && f.kw(i+2) == kwWeekend {
			return f.rel(i+1, i+3, Weekend, f.latestWeekend())
		}
	case k == kwIn:
		return f.in(i)
	case k == kwWeek || k == kwMonth || k == kwYear:
		return f.thisUnit(i) // "by end of week"
	case k == kwSeason:
		return f.seasonOf(i)
	case k == kwNumber || k == kwA || k == kwCouple || k == kwFew || k == kwSeveral:
		return f.ago(i)
	case k == kwHoliday || k == kwOrd: // "Christmas", "St Patrick's Day"
		return f.holiday(i)
	}
	return Mention{}, i
}

// status reports at i a word in capitals that says what a day is to one,
// as a team writes it before the day: EOD and COB (its end: "by EOD
// Friday"), OOO, PTO, WFH, ETA.
func (f *finder) status(i int) bool {
	for _, w := range [...]string{"eod", "cob", "ooo", "pto", "wfh", "eta"} {
		if f.word(i, w) {
			return true
		}
	}
	return false
}

// otherDay reads "the other day" at i: a few days back, the days 2 to 7
// before ref's ("I saw him the other day"; one says "yesterday" of the
// day before); not "every other day", which is every second one.
func (f *finder) otherDay(i int) (Mention, int) {
	if f.kw(i) != kwThe || !f.word(i+1, "other") || f.kw(i+2) != kwDay || !f.word(i+2, "day") || !f.rightOK(i+3) || f.kw(i-1) == kwEvery {
		return Mention{}, i
	}
	if f.kw(i+3) == kwOf || f.glued(i+3) && f.punct(i+3, '-') || f.twoDays(i) {
		return Mention{}, i // "the other day of the conference", "the other day-trip"
	}
	return f.back(true)(f.rel(i, i+3, Day, f.days(-7, -1)))
}

// twoDays reports, before "the other day" at i in its sentence or the one
// before, "one day" or "days" that it is the other of: "One day we hiked,
// the other day we rested", "We had two days off; the other day was
// spent at home".
func (f *finder) twoDays(i int) bool {
	lo, _ := f.sentence(i)
	if lo > 0 {
		lo, _ = f.sentence(lo - 1)
	}
	for k := lo; k < i; k++ {
		if f.word(k, "days") || f.word(k, "one") && f.word(k+1, "day") {
			return true
		}
	}
	return false
}

// theAt reads what starts with "the" or "day" at i (k its keyword): "the
// last three days" (Recent), "the past weekend", "the other day", "the
// day before yesterday", "the week after next", "the end of the month"
// (unit.go), "the 3rd".
func (f *finder) theAt(i int, k kw) (Mention, int) {
	if f.recent && k == kwThe {
		if m, n := f.lastUnits(i); n > i {
			return f.back(true)(m, n) // "the last three days", "the past week"
		}
	}
	if f.kw(i+1) == kwPast && f.kw(i+2) == kwWeekend {
		return f.back(true)(f.rel(i, i+3, Weekend, f.latestWeekend())) // "the past weekend"
	}
	if f.kw(i+2) == kwDay { // the guards first: "the" is common
		if m, n := f.otherDay(i); n > i {
			return m, n
		}
	}
	if m, n := f.dayBefore(i); n > i {
		return m, n
	}
	if m, n := f.afterNext(i); n > i {
		return m, n
	}
	if f.kw(i-1) == kwOf {
		if m, n := f.thisUnit(i); n > i {
			return m, n // "the end of the month" (unit.go)
		}
	}
	return f.theNth(i)
}

// partOfDay skips "morning", "afternoon", "evening" or "night" at i.
func (f *finder) partOfDay(i int) int {
	if k := f.kw(i); k == kwMorning || k == kwNight {
		return i + 1
	}
	return i
}

// monthAt returns the month named at i, or 0. "May", "March" and the
// abbreviations are ordinary words too ("you may", "jan"), so they count
// only with a capital.
func (f *finder) monthAt(i int) int {
	k := f.kw(i)
	m := k.month()
	if m == 0 {
		return 0
	}
	if (k >= kwJanAbbr || m == 3 || m == 5) && !f.t[i].upper {
		return 0
	}
	return m
}

// abbrDot returns the token after the month at i, past a dot glued to an
// abbreviation ("Aug.").
func (f *finder) abbrDot(i int) int {
	if k := f.kw(i); kwJanAbbr <= k && k <= kwDecAbbr && f.glued(i+1) && f.punct(i+1, '.') {
		return i + 2
	}
	return i + 1
}

// dayNum reads a day of the month at i ("8", "08", "8th") and returns it
// and the token after it, or 0.
func (f *finder) dayNum(i int) (int, int) {
	if !f.num(i) || !f.leftOK(i) {
		return 0, i
	}
	return f.rangeDay(i)
}

// yearAt reads a four-digit year after whitespace or a comma at i, and
// returns it and the token after it, or 0.
func (f *finder) yearAt(i int) (int, int) {
	j := i
	comma := f.glued(j) && f.punct(j, ',')
	if comma {
		j++
	}
	// "December 1,2023": four digits after a comma are no thousands.
	if !f.numN(j, 4) || !f.sameLine(j) && !comma || !f.rightOK(j+1) {
		return 0, i
	}
	return int(f.t[j].val), j + 1
}

// absolute reads a calendar date, month or year written at i: 2023-05-08,
// 2023-05, 8 May 2023, 8th of May, May 8th, 2023, May 8, May 2023, and a
// month alone after a word that announces it (in May).
func (f *finder) absolute(i int) (Mention, int) {
	if f.num(i) {
		return f.dayMonth(i)
	}
	m := f.monthAt(i)
	if m == 0 || !f.leftOK(i) {
		return Mention{}, i
	}
	j := f.abbrDot(i)
	if f.sameLine(j) {
		if d, k := f.dayNum(j); d > 0 {
			if y, l := f.yearAt(k); y > 0 {
				return f.ymd(i, l, y, m, d)
			}
			if f.rightOK(k) {
				return f.ymd(i, k, 0, m, d)
			}
		}
	}
	if y, k := f.yearAt(j); y > 0 {
		if y < MinYear || y > MaxYear {
			return Mention{}, k
		}
		from, to := f.monthOf(y, m)
		mm := f.mention(i, k, Month, false, from, to)
		mm.Year, mm.Month = y, m
		return mm, k
	}
	return f.monthAlone(i, j, m)
}

// dayMonth is absolute for a number at i: 2023-05-08 and 2023-05, 2/15
// and 15/2 (slashDay), a day first in loose mode (dayFirst), 8 May 2023,
// 8th of May.
func (f *finder) dayMonth(i int) (Mention, int) {
	if f.numN(i, 4) {
		return f.numeric(i)
	}
	if m, n := f.slashDay(i); n > i {
		return m, n
	}
	if f.loose {
		if m, n := f.dayFirst(i); n > i {
			return m, n
		}
	}
	d, j := f.dayNum(i)
	if d == 0 || !f.sameLine(j) {
		return Mention{}, i
	}
	if f.kw(j) == kwOf {
		j++
	}
	m := f.monthAt(j)
	if m == 0 {
		return Mention{}, i
	}
	j = f.abbrDot(j)
	if y, k := f.yearAt(j); y > 0 {
		return f.ymd(i, k, y, m, d)
	}
	if !f.rightOK(j) {
		return Mention{}, i
	}
	return f.ymd(i, j, 0, m, d)
}

// monthAlone is absolute for month m alone, written as tokens [i, j),
// where a word announces it (in May): the latest such month, or in a
// sentence about the future the next one.
func (f *finder) monthAlone(i, j, m int) (Mention, int) {
	if !f.rightOK(j) || !f.cued(i, true) {
		return Mention{}, i
	}
	mm := f.mention(i, j, Month, false, time.Time{}, time.Time{})
	mm.Month = m
	if f.has {
		y, ok := f.monthYear(i, j, m)
		if !ok {
			return Mention{}, j // "every year in August", "born in March"
		}
		if y >= MinYear && y <= MaxYear {
			mm.From, mm.To = f.monthOf(y, m)
		}
	}
	return mm, j
}

// monthYear is the year of month m written as tokens [i, j) without
// one: the latest such month, or in a sentence about the future ("we will
// travel in December") the next one from ref's month, or the year its
// sentence names; not ok for a habit's or a birth's, which have none.
func (f *finder) monthYear(i, j, m int) (y int, ok bool) {
	y = f.y
	said, named := f.yearSaid(i, j)
	ahead, _, cue := f.tenseWhy(i)
	if named && said != 0 && said < f.y && ahead {
		named = false // "last year's tax return is due in January": a plan
	}
	switch {
	case named && said == 0 || f.born(i):
		return 0, false
	case named:
		y = said
	case cue && ((f.m-m+12)%12 == 1 || (f.m-m+12)%12 == 2):
		// "Due late October", said in November or December: the one just passed
		if m > f.m {
			y--
		}
	case ahead:
		if m < f.m {
			y++
		}
	case m > f.m:
		y--
	}
	return y, true
}

// ymd makes the mention of a day written as tokens [i, j); y is 0 when no
// year is written. An impossible date is consumed and not reported.
func (f *finder) ymd(i, j, y, m, d int) (Mention, int) {
	if y != 0 {
		if checkDate(y, m, d) != nil {
			return Mention{}, j
		}
		from, to := f.dayOf(y, m, d)
		mm := f.mention(i, j, Day, false, from, to)
		mm.Year, mm.Month, mm.Day = y, m, d
		return mm, j
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(0, m) {
		return Mention{}, j
	}
	mm := f.mention(i, j, Day, false, time.Time{}, time.Time{})
	mm.Month, mm.Day = m, d
	if f.has {
		y, ok := f.dayYear(i, j, m, d)
		if !ok {
			return Mention{}, j // "on 14 August every year", "born on 3 May"
		}
		if y >= MinYear && y <= MaxYear {
			mm.From, mm.To = f.dayOf(y, m, d)
		}
	}
	return mm, j
}

// dayYear is the year of day d of month m written as tokens [i, j)
// without one: the latest such day whose month is not after ref's month,
// or in a sentence about the future the first from ref's day, or the
// year its sentence names; not ok for a habit's or a birth's, which have
// none.
func (f *finder) dayYear(i, j, m, d int) (y int, ok bool) {
	y = f.y
	ahead, _, cue := f.tenseWhy(i)
	said, named := f.yearSaid(i, j)
	if named && said == 0 || f.born(i) {
		return 0, false
	}
	named = named && d <= daysIn(said, m)           // 29 February of a year without one: not it
	named = named && !(said < f.y && ahead && !cue) // "last year's tax return is due on 31 January": a plan
	switch {
	case named:
		y, ahead = said, true
	case cue && f.passedWithin(m, d, deadlinePassed):
		// "Deadline: Dec 30", said on 5 January: the one just passed
		if m > f.m || m == f.m && d > f.d {
			y--
		}
		ahead = false
	case ahead:
		if m < f.m || m == f.m && d < f.d {
			y++
		}
		for d > daysIn(y, m) { // 29 February: the next leap year
			y++
		}
	case m > f.m:
		y--
	}
	for !ahead && d > daysIn(y, m) { // 29 February: the latest leap year
		y--
	}
	return y, true
}

// deadlinePassed is how many days back a day set ahead by a deadline's
// word alone is still the one meant: "Deadline: May 8", said on 9 May in
// a list of tasks, is the day before, not next year's.
const deadlinePassed = 45

// passedWithin reports whether day d of month m, in ref's year or the
// one before, was at most n days before ref's day.
func (f *finder) passedWithin(m, d, n int) bool {
	ref := f.refDay()
	for _, y := range [...]int{f.y, f.y - 1} { // "Deadline: Dec 30", said on 5 January
		if t := wallTime(y, time.Month(m), d, 0, 0, 0, 0, f.loc); t.Before(ref) && !t.Before(ref.AddDate(0, 0, -n)) {
			return true
		}
	}
	return false
}

// numeric reads 2023-05-08, 2023/05/08, 2023-5-8 or 2023-05 at i.
func (f *finder) numeric(i int) (Mention, int) {
	if !f.leftOK(i) || !f.glued(i+1) || !f.glued(i+2) || !f.num(i+2) || f.t[i+2].ndig > 2 {
		return Mention{}, i
	}
	sep := byte('-')
	if !f.punct(i+1, '-') {
		if !f.punct(i+1, '/') {
			return Mention{}, i
		}
		sep = '/'
	}
	y, m := int(f.t[i].val), int(f.t[i+2].val)
	if f.glued(i+3) && f.punct(i+3, sep) && f.glued(i+4) && f.num(i+4) && f.t[i+4].ndig <= 2 {
		j := i + 5
		iso := f.glued(j) && f.kw(j) == kwNone && f.t[j].kind == kWord && f.t[j].end-f.t[j].start == 1 &&
			f.s[f.t[j].start]|0x20 == 't' && f.glued(j+1) && f.num(j+1)
		if !iso && !f.rightOK(j) {
			return Mention{}, i
		}
		if y < MinYear || y > MaxYear {
			return Mention{}, j
		}
		return f.ymd(i, j, y, m, int(f.t[i+4].val))
	}
	if sep != '-' || f.t[i+2].ndig != 2 || !f.rightOK(i+3) {
		return Mention{}, i
	}
	if y < MinYear || y > MaxYear || m < 1 || m > 12 {
		return Mention{}, i + 3
	}
	from, to := f.monthOf(y, m)
	mm := f.mention(i, i+3, Month, false, from, to)
	mm.Year, mm.Month = y, m
	return mm, i + 3
}

// dayFirst reads, when loose, an all-digit date with the day or the month
// first at i (see Options.Loose).
func (f *finder) dayFirst(i int) (Mention, int) {
	if f.t[i].ndig > 2 || !f.leftOK(i) || !f.glued(i+1) || f.t[i+1].kind != kPunct {
		return Mention{}, i
	}
	sep := f.s[f.t[i+1].start]
	if sep != '/' && sep != '-' && sep != '.' ||
		!f.glued(i+2) || !f.num(i+2) || f.t[i+2].ndig > 2 || !f.glued(i+3) || !f.punct(i+3, sep) ||
		!f.glued(i+4) || !f.num(i+4) || !f.rightOK(i+5) {
		return Mention{}, i
	}
	if n := f.t[i+4].ndig; n != 4 && (n != 2 || sep == '.') {
		return Mention{}, i
	}
	a, b := int(f.t[i].val), int(f.t[i+2].val)
	if a < 1 || b < 1 || a > 31 || b > 31 || a > 12 && b > 12 {
		return Mention{}, i
	}
	return f.mention(i, i+5, Day, false, time.Time{}, time.Time{}), i + 5
}

// year reads a four-digit year after a word that announces it: "in 2022",
// "since 2019", "until 2030", "mid-2021". A number that counts something
// ("in 2000 people") is not one: the year must end the phrase. When loose,
// a year from 1900 to 2099 needs no such word, and no year need end the
// phrase (see Options.Loose).
func (f *finder) year(i int) (Mention, int) {
	if !f.numN(i, 4) || !f.rightOK(i+1) {
		return Mention{}, i
	}
	y := int(f.t[i].val)
	if !f.cued(i, false) && !f.joinedYear(i) && !(f.loose && y >= 1900 && y <= 2099 && f.leftOK(i)) {
		return Mention{}, i
	}
	if y < MinYear || y > MaxYear {
		return Mention{}, i
	}
	if !f.loose && f.nounAfter(i+1) {
		return Mention{}, i
	}
	mm := f.mention(i, i+1, Year, false, wallTime(y, 1, 1, 0, 0, 0, 0, f.loc), wallTime(y+1, 1, 1, 0, 0, 0, 0, f.loc))
	mm.Year = y
	return mm, i + 1
}

// startsDate reports whether the last or next at j starts a date of its
// own: "last Tuesday", "next year", "last Christmas" (a holiday, read at
// its name).
func (f *finder) startsDate(j int) bool {
	if j+1 >= len(f.t) || f.t[j+1].line || f.kw(j+1) == kwThe {
		return false // (not "the week before last the week before last …", read from each "the" again: quadratic)
	}
	if _, n := f.at(j); n > j+1 {
		return true
	}
	m, n := f.at(j + 1)
	return n > j+1 && m.End > 0 && m.Start <= f.t[j].start
}

// questionWord reports a wh-word at j: one may follow a year that ends
// its phrase ("between 2019 and 2021 what did we ship?", "in 2022 who
// won?"), and opens a clause of its own (embedded). What, which, who, how
// and why are no keywords, since a capitalised word that is none reads as
// a name elsewhere ("Who leaves on Friday?").
func (f *finder) questionWord(j int) bool {
	for _, w := range [...]string{"what", "when", "where", "why", "how", "who", "which"} {
		if f.word(j, w) {
			return true
		}
	}
	return false
}

// joinedYear reports a year at i joined by "and" or "or" to a year a
// word announces: "in 2024 and 2025", "in 2019 or 2020".
func (f *finder) joinedYear(i int) bool {
	return (f.word(i-1, "and") || f.word(i-1, "or")) && f.numN(i-2, 4) && f.cued(i-2, false)
}

// nounAfter reports at j a word in lower case that does not end a phrase:
// a noun a number before it may count ("in 2000 people", "from 1990 to
// 2000 people", "1/16 inch"), not a date's.
func (f *finder) nounAfter(j int) bool {
	return j < len(f.t) && f.t[j].kind == kWord && !f.t[j].upper && !endsPhrase(f.t[j].kw) && !f.questionWord(j)
}

// endsPhrase reports whether a word of kind k can follow a date that ends
// its phrase ("in 2022 we moved", "on the 15th after my trip"), as a noun
// it would count ("in 2000 people", "on the 3rd floor") cannot.
func endsPhrase(k kw) bool {
	switch k {
	case kwClause, kwWill, kwWas, kwIs, kwDet, kwTo, kwOr, kwThe, kwA, kwIn, kwOn, kwAt, kwCue, kwBefore, kwAfter:
		return true
	}
	return false
}

// weekday reads a weekday at i: before a date it is part of that date
// ("Monday, May 8, 2023", "Friday the 13th of January"), else it is the latest such day before ref's day,
// unless it names no particular day (see habitual).
func (f *finder) weekday(i int) (Mention, int) {
	if !f.leftOK(i) {
		return Mention{}, i
	}
	j := i + 1
	if f.punct(j, ',') || f.kw(j) == kwThe && f.num(j+1) { // "Monday, 4 May", "Monday the 4th of May"
		j++
	}
	if j < len(f.t) {
		if m, n := f.absolute(j); n > j && (m.Grain == Day || m.End == 0) {
			if m.End > 0 {
				m.Start = f.t[i].start
				wd, _ := f.t[i].kw.weekday()
				f.agree(i, &m, (wd+6)%7)
			}
			return m, n
		}
	}
	wd, _ := f.t[i].kw.weekday()
	day := (wd + 6) % 7 // Monday = 0
	// "Friday next week", but not "every Friday this week"
	if m, n, ok := f.weekdayOfWeek(i, i+1, day); ok && f.kw(i-1) != kwEvery {
		return m, n
	}
	if m, n, ok := f.weekdayNth(i, i+1, day); ok {
		return m, n
	}
	if f.habitual(i) || f.word(i-1, "is") && f.word(i-2, "today") {
		return Mention{}, i + 1 // "today is Friday": today, not a Friday before it
	}
	if f.ahead(i) || f.status(i-1) && !f.behind(i) { // "by EOD Friday", "OOO Friday": a deadline, a plan
		fwd := cmp.Or((day-f.wd+7)%7, 7)
		return f.rel(i, f.partOfDay(i+1), Day, f.days(fwd, fwd+1))
	}
	back := cmp.Or((f.wd-day+7)%7, 7)
	return f.rel(i, f.partOfDay(i+1), Day, f.days(-back, -back+1))
}

// agree moves a day written without its year and after a weekday
// ("Monday 4 January", day: Monday = 0) to the year before or after when
// the day falls on that weekday there and not in the year m has, and
// that year is nearer ref: said on 26 December 2026, 4 January 2027 (a
// Monday), not 4 January 2026 (a Sunday). A weekday that matches neither
// (a slip: "Tuesday 18 March", a Wednesday this year) leaves m alone, and
// so does a future year for a sentence in the past ("we went skiing on
// Monday 4 January", said in July 2026).
func (f *finder) agree(i int, m *Mention, day int) {
	if m.Year != 0 || m.From.IsZero() || monday0(m.From) == day {
		return
	}
	behind := f.behind(i)
	for _, y := range [2]int{m.From.Year() - 1, m.From.Year() + 1} {
		if y < MinYear || y > MaxYear || m.Day > daysIn(y, m.Month) {
			continue
		}
		from, to := f.dayOf(y, m.Month, m.Day)
		if monday0(from) == day && f.fromRef(from) < f.fromRef(m.From) && !(behind && from.After(f.refDay())) {
			m.From, m.To = from, to
			return
		}
	}
}

// weekdayOfWeek reads "next week", "last week" or "this week" at j after
// a weekday at i (day: Monday = 0): that day of that week ("Friday next
// week").
func (f *finder) weekdayOfWeek(i, j, day int) (Mention, int, bool) {
	dir := 0
	switch f.kw(j) {
	case kwNext:
		dir = 1
	case kwLast:
		dir = -1
	case kwThis:
	default:
		return Mention{}, i, false
	}
	if !f.word(j+1, "week") {
		return Mention{}, i, false
	}
	off := 7*dir - f.wd + day
	m, n := f.rel(i, j+2, Day, f.days(off, off+1))
	return m, n, true
}

// weekdayNth reads a day of the month written with its ordinal ("the
// 4th") at j after a weekday at i (day: Monday = 0): the day of that
// number nearest ref, within three months, that falls on that weekday
// ("Monday the 4th" said on 30 December 2026 is 4 January 2027).
func (f *finder) weekdayNth(i, j, day int) (Mention, int, bool) {
	k := j
	if f.kw(k) == kwThe {
		k++
	}
	d, n := f.dayNum(k)
	if d == 0 || n != k+2 || !f.rightOK(n) || !f.has || f.kw(n) == kwOf || f.monthAt(n) != 0 || day == 4 && d == 13 {
		return Mention{}, i, false // "Friday the 13th of January", the film "Friday the 13th"
	}
	if n < len(f.t) && f.t[n].kind == kWord {
		if k := f.t[n].kw; !endsPhrase(k) && k != kwBy && k != kwMorning && k != kwNight {
			return Mention{}, i, false // "on Saturday the 2nd team won"
		}
	}
	var best period
	behind := f.behind(i) // "I saw her on Monday the 15th": not a Monday to come
	for dm := -3; dm <= 3; dm++ {
		y, m := addMonths(f.y, f.m, dm)
		if y < MinYear || y > MaxYear || d > daysIn(y, m) {
			continue
		}
		if from, to := f.dayOf(y, m, d); monday0(from) == day && !(behind && from.After(f.refDay())) && (best.from.IsZero() || f.fromRef(from) < f.fromRef(best.from)) {
			best = period{from, to}
		}
	}
	if best.from.IsZero() {
		return Mention{}, i, false
	}
	m, n := f.rel(i, n, Day, best)
	return m, n, true
}

// refDay is the start of ref's day.
func (f *finder) refDay() time.Time { return f.days(0, 1).from }

// fromRef is how far t lies from the start of ref's day, either way.
func (f *finder) fromRef(t time.Time) time.Duration {
	ref := f.refDay()
	return max(t.Sub(ref), ref.Sub(t))
}

// monday0 is t's weekday, Monday = 0.
func monday0(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }

// habitual reports a weekday at i that names no particular day: after a
// determiner (every, the, a, my, that: "the Sunday paper", "my Monday
// routine"), in a name ("Black Friday", "Motivation Monday"), as a heading
// or in a list item ("Monday:", "* Tuesday"), in a range or a choice
// ("Monday to Saturday", "Tuesday or Thursday", "Monday, Wednesday"),
// before a part of the day in the plural ("on Thursday evenings").
func (f *finder) habitual(i int) bool {
	switch f.kw(i - 1) {
	case kwEvery, kwThe, kwA, kwDet:
		return true
	case kwNone, kwHoliday: // "Black Friday", "Easter Sunday Mass"
		if i > 0 && f.t[i-1].kind == kWord && f.t[i-1].upper && !f.status(i-1) && !f.setAhead(i) {
			return true // but "by EOD Friday", "COB Monday", "OOO Friday", "Due Friday"
		}
	case kwTo, kwCue, kwOr:
		if _, ok := f.kw(i - 2).weekday(); ok {
			return true
		}
	}
	if f.punct(i-1, ',') {
		if _, ok := f.kw(i - 2).weekday(); ok {
			return true
		}
	}
	if i > 0 && f.t[i-1].kind == kPunct {
		switch f.s[f.t[i-1].start] {
		case '*', '|', '#':
			return true
		case '-': // "Monday-Friday", or a list item "- Tuesday"
			_, ok := f.kw(i - 2).weekday()
			return ok || f.t[i].space && f.t[i-1].space
		}
	}
	j := i + 1
	if f.glued(j) && f.punct(j, ':') {
		return true
	}
	for _, part := range []string{"mornings", "afternoons", "evenings", "nights"} {
		if f.word(j, part) { // "on Thursday evenings": every one
			return true
		}
	}
	if k := f.kw(j); k == kwTo || k == kwCue || k == kwOr || f.punct(j, '-') || f.punct(j, ',') {
		_, ok := f.kw(j + 1).weekday()
		return ok
	}
	return false
}

// dayBefore reads "[the] day before yesterday" and "[the] day after
// tomorrow" at i.
func (f *finder) dayBefore(i int) (Mention, int) {
	j := i
	if f.kw(j) == kwThe {
		j++
	}
	if f.kw(j) != kwDay {
		return Mention{}, i
	}
	switch {
	case f.kw(j+1) == kwBefore && f.kw(j+2) == kwYesterday:
		return f.back(true)(f.rel(i, j+3, Day, f.days(-2, -1)))
	case f.kw(j+1) == kwAfter && f.kw(j+2) == kwTomorrow:
		return f.rel(i, j+3, Day, f.days(2, 3))
	}
	return Mention{}, i
}

// theNth reads a day of a month the text does not name, "the 15th", after
// on, by, since, until, from or through at i ("I met my teammates on the
// 15th after my trip"): the latest 15th up to ref's day, or in a sentence
// about the future the first from it ("my exam is going to be on the
// 5th"). The ordinal is required, and the phrase must end there, as a
// year's must: "on the 3rd floor" and "by the 2nd half" are no dates, and
// "the 22nd of August" is absolute's.
func (f *finder) theNth(i int) (Mention, int) {
	if p := f.kw(i - 1); f.kw(i) != kwThe || p != kwOn && p != kwBy && p != kwCue || f.word(i-1, "during") {
		return Mention{}, i
	}
	d, j := f.dayNum(i + 1)
	if d == 0 || j != i+3 || !f.rightOK(j) || f.ordinalNext(j) {
		return Mention{}, i
	}
	if j < len(f.t) && f.t[j].kind == kWord && !f.word(j, "because") && !f.word(j, "near") {
		if k := f.t[j].kw; !endsPhrase(k) && k != kwBy && k != kwMorning && k != kwNight {
			return Mention{}, i
		}
	}
	if y, m := f.monthBefore(i); m > 0 { // "on February 10th, which arrived on the 14th"
		if y == 0 {
			return f.ymd(i, j, 0, m, d)
		}
		if checkDate(y, m, d) != nil {
			return Mention{}, j
		}
		from, to := f.dayOf(y, m, d)
		mm := f.mention(i, j, Day, false, from, to)
		mm.Month, mm.Day = m, d
		return mm, j
	}
	var p period
	if f.has {
		p = f.nth(d, f.ahead(i))
	}
	mm, _ := f.rel(i, j, Day, p)
	mm.Day = d
	return mm, j
}

// monthBefore is the month named last before i in its sentence ("earlier
// in February, on the 8th"), with the year it resolves to there ("on
// February 10th 2021", "last December"); the year is 0 when it does not
// resolve (no reference date), and the month 0 when none is named.
func (f *finder) monthBefore(i int) (y, m int) {
	for j := i - 1; j >= 0 && i-j <= 16 && !f.t[j+1].line; j-- {
		if t := f.t[j]; t.kind == kPunct && strings.ContainsRune(".!?;", rune(f.s[t.start])) {
			return 0, 0
		}
		if m = f.monthAt(j); m == 0 {
			continue
		}
		for k := max(0, j-2); k <= j; k++ { // the mention that names it: "last December", "in May", "May 8, 2021"
			if mm, n := f.at(k); n > j && !mm.From.IsZero() && int(mm.From.Month()) == m {
				return mm.From.Year(), m
			}
		}
		return 0, m
	}
	return 0, 0
}

// ordinalNext reports whether another ordinal follows at j, after "and",
// "or", "to", "through" or a dash (and "the"): a span of centuries ("from
// the 12th to the 15th centuries") or of days whose month comes after it
// ("the 15th and 16th of next month") is no day of its own.
func (f *finder) ordinalNext(j int) bool {
	if !f.punct(j, '-') && f.kw(j) != kwTo && f.kw(j) != kwOr && !f.word(j, "and") && !f.word(j, "through") {
		return false
	}
	if j++; f.kw(j) == kwThe {
		j++
	}
	d, n := f.dayNum(j)
	return d > 0 && n == j+2
}

// nth is the day d of the latest month up to ref's day that has it, or
// ahead the first from ref's day.
func (f *finder) nth(d int, ahead bool) period {
	y, m := f.y, f.m
	step := -1
	if ahead {
		step = 1
	}
	if ahead && d < f.d || !ahead && d > f.d {
		y, m = addMonths(y, m, step)
	}
	for d > daysIn(y, m) { // the 31st: a month that has one
		y, m = addMonths(y, m, step)
	}
	from, to := f.dayOf(y, m, d)
	return period{from, to}
}

// addMonths is month m of year y moved by n months.
func addMonths(y, m, n int) (int, int) {
	k := y*12 + m - 1 + n
	return k / 12, k%12 + 1
}

// lastNext reads last/this/next (and "this past") followed by night,
// week, weekend, month, year, morning/afternoon/evening, a weekday or a
// month at i.
func (f *finder) lastNext(i int) (Mention, int) {
	k, j := f.kw(i), i+1
	if f.kw(i-1) == kwThe && k != kwPrevious { // "the last week of May", "the next day"
		return Mention{}, i
	}
	dir := 0
	switch k {
	case kwPrevious:
		if f.kw(j) == kwDay {
			return f.rel(i, j+1, Day, f.days(-1, 0)) // "the previous day", asked: yesterday
		}
		dir, k = -1, kwLast
	case kwLast:
		dir = -1
	case kwNext:
		dir = 1
	}
	if k == kwThis && f.kw(j) == kwPast {
		dir, j = -1, j+1
	}
	mon := -f.wd // ref's Monday, in days from ref
	switch w := f.kw(j); {
	case w == kwNight && k == kwLast:
		return f.rel(i, j+1, Day, f.days(-1, 0))
	case w == kwMorning && k == kwThis && dir == 0:
		return f.rel(i, j+1, Day, f.days(0, 1))
	case w == kwWeek:
		return f.rel(i, j+1, Week, f.days(mon+7*dir, mon+7*dir+7))
	case w == kwWeekend:
		return f.rel(i, j+1, Weekend, f.days(mon+7*dir+5, mon+7*dir+7))
	case w == kwMonth:
		return f.rel(i, j+1, Month, f.months(dir, dir+1))
	case w == kwYear:
		return f.rel(i, j+1, Year, f.years(dir, dir+1))
	case f.word(j, "quarter"): // no keyword: "the Latin Quarter" stays a word
		return f.lastNextQuarter(i, j+1, dir)
	case w == kwSeason:
		return f.season(i, j, k, dir)
	case kwSun <= w && w <= kwSatAbbr:
		wd, _ := w.weekday()
		off := f.lastNextDay(i, (wd+6)%7, dir)
		return f.rel(i, f.partOfDay(j+1), Day, f.days(off, off+1))
	}
	m := f.monthAt(j)
	if m == 0 {
		return Mention{}, i
	}
	y := f.y
	switch {
	case dir < 0 && m >= f.m:
		y--
	case dir > 0 && m <= f.m:
		y++
	}
	from, to := f.monthOf(y, m)
	mm := f.mention(i, f.abbrDot(j), Month, true, from, to)
	mm.Month = m
	return mm, f.abbrDot(j)
}

// afterNext reads "the week after next" and "the week before last" at i,
// and so of weekends, months and years, and "the night before last".
func (f *finder) afterNext(i int) (Mention, int) {
	if f.kw(i) != kwThe {
		return Mention{}, i
	}
	dir := 0
	switch {
	case f.kw(i+2) == kwAfter && f.kw(i+3) == kwNext:
		dir = 2
	case f.kw(i+2) == kwBefore && f.kw(i+3) == kwLast:
		dir = -2
	default:
		return Mention{}, i
	}
	if f.startsDate(i + 3) {
		return Mention{}, i // "the week before last Christmas": its last is the holiday's
	}
	return f.back(dir < 0)(f.afterNextOf(i, dir))
}

// afterNextOf is afterNext's period, dir weeks, weekends, months or years
// (or, back, nights) from ref's.
func (f *finder) afterNextOf(i, dir int) (Mention, int) {
	mon := -f.wd // ref's Monday, in days from ref
	switch f.kw(i + 1) {
	case kwWeek:
		return f.rel(i, i+4, Week, f.days(mon+7*dir, mon+7*dir+7))
	case kwWeekend:
		return f.rel(i, i+4, Weekend, f.days(mon+7*dir+5, mon+7*dir+7))
	case kwMonth:
		return f.rel(i, i+4, Month, f.months(dir, dir+1))
	case kwYear:
		return f.rel(i, i+4, Year, f.years(dir, dir+1))
	case kwNight:
		if dir < 0 {
			return f.rel(i, i+4, Day, f.days(-2, -1))
		}
	}
	return Mention{}, i
}

// atWeekend reads "at the weekend" at i: the coming one (this week's) in
// a sentence that looks ahead ("what are you doing at the weekend?"),
// else the latest begun, as "over the weekend" ("I went hiking at the
// weekend"). "On the weekend" is mostly every weekend ("I work on the
// weekend", "I usually went hiking on the weekend"), even with a tense
// word: it is read so only in a question (Options.Recent) where a word
// says the tense ("What did we do on the weekend?", "What are you doing
// on the weekend?").
func (f *finder) atWeekend(i int) (Mention, int) {
	if f.kw(i+1) != kwThe || f.kw(i+2) != kwWeekend {
		return Mention{}, i
	}
	ahead, told := f.tenseOf(i + 2)
	if f.kw(i) == kwOn && (!told || !f.recent) {
		return Mention{}, i
	}
	if !ahead {
		return f.rel(i+1, i+3, Weekend, f.latestWeekend())
	}
	mon := -f.wd
	return f.rel(i+1, i+3, Weekend, f.days(mon+5, mon+7))
}

// latestWeekend is the latest weekend that has begun by ref's day.
func (f *finder) latestWeekend() period {
	mon := -f.wd
	if f.wd < 5 {
		mon -= 7
	}
	return f.days(mon+5, mon+7)
}

// lastNextDay is the day of "last", "this" (dir 0) or "next" weekday wd
// (Monday = 0) said at i, in days from ref's.
func (f *finder) lastNextDay(i, wd, dir int) int {
	off := wd - f.wd // this: in ref's ISO week
	switch dir {
	case -1:
		if off = -((f.wd - wd + 7) % 7); off == 0 {
			off = -7
		}
	case 1:
		// the coming one, unless it is tomorrow or the day after in
		// ref's week: "next Friday" said on a Thursday is not tomorrow
		// but the Friday of next week
		if off = (wd - f.wd + 7) % 7; off == 0 || off <= 2 && wd > f.wd {
			off += 7
		}
	default:
		if off < 0 && f.ahead(i) { // "I'll see him this Monday", said on a Wednesday
			off += 7
		}
	}
	return off
}

// earlier reads "earlier today", "later today", and "earlier/later this
// week/month/year" at i: the part of the period up to and including ref's
// day, or from it on.
func (f *finder) earlier(i int) (Mention, int) {
	later := f.kw(i) == kwLater
	if f.kw(i+1) == kwToday {
		return f.rel(i, i+2, Day, f.days(0, 1))
	}
	if f.kw(i+1) != kwThis {
		return Mention{}, i
	}
	var (
		g Grain
		p period
	)
	switch f.kw(i + 2) {
	case kwWeek:
		g, p = Week, f.days(-f.wd, 7-f.wd)
	case kwMonth:
		g, p = Month, f.months(0, 1)
	case kwYear:
		g, p = Year, f.years(0, 1)
	default:
		return Mention{}, i
	}
	today := f.days(0, 1)
	if later {
		p.from = today.from
	} else {
		p.to = today.to
	}
	return f.rel(i, i+3, g, p)
}

// quantity reads a count at i: digits, a number word, a/an, [a] couple
// [of], [a] few (2 to 4), several (3 to 7). It returns the range and the
// token after it.
func (f *finder) quantity(i int) (lo, hi, next int) {
	if f.num(i) {
		if v := int(f.t[i].val); v >= 1 && v <= 100000 && f.leftOK(i) && f.spaced(i+1) {
			return v, v, i + 1
		}
		return 0, 0, i
	}
	j := i
	if f.kw(j) == kwA && (f.kw(j+1) == kwCouple || f.kw(j+1) == kwFew) {
		j++
	}
	switch f.kw(j) {
	case kwNumber, kwA:
		return int(f.t[j].val), int(f.t[j].val), j + 1
	case kwCouple:
		if f.kw(j+1) == kwOf {
			j++
		}
		return 2, 2, j + 1
	case kwFew:
		return 2, 4, j + 1
	case kwSeveral:
		return 3, 7, j + 1
	}
	return 0, 0, i
}

// ago reads "N days/weeks/months/years ago" or "back" at i (and
// fortnights, as two weeks), and "N days/weeks/months/years from now" or "from today"
// (unlike "in two years", "from now" can only look ahead).
func (f *finder) ago(i int) (Mention, int) {
	lo, hi, j := f.quantity(i)
	if j == i {
		return Mention{}, i
	}
	u := f.kw(j)
	if f.word(j, "fortnight") || f.word(j, "fortnights") {
		u, lo, hi = kwWeek, 2*lo, 2*hi // "a fortnight ago": two weeks ago
	}
	if f.kw(j+1) == kwAgo || f.word(j+1, "back") && f.rightOK(j+2) && !f.delay(i) { // "two weeks back"
		return f.back(true)(f.span(i, j+2, u, -hi, -lo))
	}
	if f.word(j+1, "from") && (f.kw(j+2) == kwNow || f.kw(j+2) == kwToday) {
		return f.span(i, j+3, u, lo, hi)
	}
	return Mention{}, i
}

// delay reports a count of units at i whose "back" says a delay or an
// arrear, not "ago": after a verb that moves a date ("pushed the launch
// two weeks back"), a verb's object ("set us two weeks back") or "is"
// ("the project is two weeks back", "we're a day back").
func (f *finder) delay(i int) bool {
	if f.moves(i) || f.kw(i-1) == kwIs {
		return true
	}
	for _, w := range [...]string{"us", "me", "them", "it", "him", "her", "you"} {
		if f.word(i-1, w) {
			return true
		}
	}
	return false
}

// back returns a function that marks a mention found (End > Start) as
// Back when b is set: the expression says it is before ref.
func (f *finder) back(b bool) func(Mention, int) (Mention, int) {
	return func(m Mention, n int) (Mention, int) {
		m.Back = b && m.End > m.Start
		return m, n
	}
}

// word reports whether token i is the word w (w in lower case).
func (f *finder) word(i int, w string) bool {
	return i >= 0 && i < len(f.t) && f.t[i].kind == kWord && strings.EqualFold(f.s[f.t[i].start:f.t[i].end], w)
}

// in reads "in N days" and "in N weeks" at i. Months and years are left
// out ("I haven't seen her in two years" looks back), and so is a bare
// article ("built in a day"), unless its sentence looks ahead ("I'll be
// back in a week").
func (f *finder) in(i int) (Mention, int) {
	if f.kw(i+1) == kwA && f.kw(i+2) != kwFew && f.kw(i+2) != kwCouple && !f.ahead(i) {
		return Mention{}, i // "Rome wasn't built in a day"; "I'll be back in a week" looks ahead
	}
	lo, hi, j := f.quantity(i + 1)
	if j == i+1 || f.kw(j+1) == kwAgo {
		return Mention{}, i
	}
	if u := f.kw(j); u != kwDay && u != kwWeek {
		return Mention{}, i
	}
	return f.span(i, j+1, f.kw(j), lo, hi)
}

// span makes the mention of tokens [i, j) for the units a..b from ref's
// (a <= b, both included) of unit u.
// With Options.About, the period also covers the days around those
// exactly a..b units from ref (see around).
func (f *finder) span(i, j int, u kw, a, b int) (Mention, int) {
	var g Grain
	var p period
	switch u {
	case kwDay:
		g, p = Day, f.days(a, b+1)
	case kwWeek:
		mon := -f.wd
		g, p = Week, f.days(mon+7*a, mon+7*b+7)
	case kwMonth:
		g, p = Month, f.months(a, b+1)
	case kwYear:
		g, p = Year, f.years(a, b+1)
	default:
		return Mention{}, i
	}
	if f.about {
		p = f.aboutSpan(p, u, a, b)
	}
	return f.rel(i, j, g, p)
}

// season reads last/this/next <season> (the season word at j, k the word
// at i): "last summer" is the latest summer that has ended before ref's
// month, "next summer" the first that begins after it, "this summer" the
// one that begins from five months before ref's month to six after.
func (f *finder) season(i, j int, k kw, dir int) (Mention, int) {
	start := int(f.t[j].val) - 1 // its first month, 0-based
	cur := f.y*12 + f.m - 1      // ref's month, counted from year 0
	var y int
	switch {
	case dir < 0:
		y = floorDiv(cur-start-3, 12)
	case dir > 0:
		y = floorDiv(cur-start, 12) + 1
	default:
		y = floorDiv(cur+6-start, 12)
	}
	return f.rel(i, j+1, Season, f.seasonPeriod(y, start+1))
}

// seasonOf reads "summer 2022" and "summer of 2022" at i.
func (f *finder) seasonOf(i int) (Mention, int) {
	j := i + 1
	if f.kw(j) == kwOf {
		j++
	}
	if !f.leftOK(i) || !f.numN(j, 4) || !f.spaced(j) || !f.rightOK(j+1) {
		return Mention{}, i
	}
	y := int(f.t[j].val)
	if y < MinYear || y >= MaxYear {
		return Mention{}, j + 1
	}
	p := f.seasonPeriod(y, int(f.t[i].val))
	m := f.mention(i, j+1, Season, false, p.from, p.to)
	m.Year = y
	return m, j + 1
}

// seasonPeriod returns the three months from month m of year y.
func (f *finder) seasonPeriod(y, m int) period {
	return period{wallTime(y, time.Month(m), 1, 0, 0, 0, 0, f.loc), wallTime(y, time.Month(m+3), 1, 0, 0, 0, 0, f.loc)}
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

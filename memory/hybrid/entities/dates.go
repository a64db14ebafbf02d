package entities

import (
	"strconv"

	"agentmem/memory/dates"
)

// The extractor takes its dates from the grammar that ingest and recall
// use (package dates, loosely: see dates.Options), so that a date is read
// the same way wherever agentmem reads one. This file turns its mentions
// into entities; the rest of the package calls only date and isDate.

// dateState is where the walk is in the dates of the text (result.dates,
// found once before the tokens are walked).
type dateState struct {
	next int // the first date that may start at or after the current token
}

// dateSpan is a date written in bytes [start, end) of the text, and the
// entity it gives.
type dateSpan struct {
	start, end int
	entity     string
	year       bool // a year alone, which may be a number that counts: "2000 people"
}

// Every date the extractor keeps has a digit in it (a year, a day), so the
// grammar reads only the text around the numbers: windowContext tokens
// before the first and after the last number of a window, which is more
// than any date's words around its numbers ("Monday, May 8", "the summer
// of 2022") and the words before them that the grammar looks at ("every
// Monday", "in 2019"). A text without numbers costs nothing.
const windowContext = 6

// findDates fills x.res.dates with the dates in the text.
func (x *extractor) findDates() {
	next := 0 // the first token after the last window
	for i := 0; i < len(x.toks); i++ {
		if x.toks[i].kind != tNum {
			continue
		}
		first, last := max(i-windowContext, next), i
		for j := i + 1; j < len(x.toks) && j <= last+2*windowContext; j++ {
			if x.toks[j].kind == tNum {
				last = j
			}
		}
		end := min(last+windowContext, len(x.toks)-1)
		// Start and end at whitespace, as a text does.
		for first > next && !x.toks[first].space {
			first--
		}
		for end+1 < len(x.toks) && !x.toks[end+1].space {
			end++
		}
		x.window(x.toks[first].start, x.toks[end].end)
		i, next = end, end+1
	}
}

// window adds the dates in text[from:to].
func (x *extractor) window(from, to int) {
	// Apart: a range's two days are each an entity ("3 May to 7 May")
	for _, m := range dates.FindWith(x.s[from:to], dates.Options{Loose: true, Apart: true}) {
		if m.Relative || m.Holiday {
			continue // "last May", "two days ago": not concrete enough; a holiday ("for Christmas", "Christmas 2019") stays a word
		}
		s := dateSpan{start: x.dateStart(from+m.Start, from+m.End), end: from + m.End}
		switch {
		case m.Grain == dates.Day && m.Month == 0:
			s.entity = string(appendLower(nil, x.s[s.start:s.end])) // day/month order unknown: as written
		case m.Grain == dates.Day && m.Year == 0:
			s.entity = monthNames[m.Month-1] + " " + strconv.Itoa(m.Day)
		case m.Grain == dates.Day:
			s.entity = strconv.Itoa(m.Year) + "-" + twoDigits(m.Month) + "-" + twoDigits(m.Day)
		case m.Grain == dates.Month && m.Year != 0:
			s.entity = strconv.Itoa(m.Year) + "-" + twoDigits(m.Month)
		case m.Grain == dates.Year:
			s.entity, s.year = strconv.Itoa(m.Year), true
		case (m.Grain == dates.Season || m.Grain == dates.Quarter) && m.Year != 0:
			// "summer 2022" and "Q1 2023" give their year; the season's
			// word stays a word ("Summer" may be a name), and so does
			// the quarter's ("Q1").
			s.start, s.entity, s.year = s.end-len("2022"), strconv.Itoa(m.Year), true
		default:
			continue // a month without a year: not concrete enough
		}
		// in result, not in extractor: a slice stored there would move
		// the tokens to the heap
		x.res.dates = append(x.res.dates, s)
	}
}

// dateStart returns where the date in text[start:end] starts, past a
// weekday before it ("Cyber Monday, December 1st": the weekday stays a
// word of the name): at its first number or month name.
func (x *extractor) dateStart(start, end int) int {
	for i := start; i < end; {
		c := x.s[i]
		if isDigit(rune(c)) {
			return i
		}
		if !isASCIILetter(c) {
			i++
			continue
		}
		j := i
		for j < end && isASCIILetter(x.s[j]) {
			j++
		}
		if _, ok := months[string(lowerKey(x.s[i:j], x.key[:]))]; ok {
			return i
		}
		i = j
	}
	return start
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// date emits the date that starts at token i and returns the token after
// it, or i. The forms (see package dates for what is read): a full date as
// 2023-05-08 ("8 May, 2023", "Monday, May 8th, 2023", "the 8th of May
// 2023", "2023-5-8", "2023/05/08"), a month and year as 2023-05 ("May
// 2023", "Sept. 2023", "2023-05"), a day and month as "may 8", a year as
// 2023 ("in 2019", "2019 was great", "summer 2022", but not "2000 people"),
// and an all-digit date with the day or month first as written
// ("12/05/2019"). An impossible date gives nothing ("31 February 2023",
// "2023-13-01").
func (x *extractor) date(i int) int {
	if x.dates.next == len(x.res.dates) {
		return i // no date ahead: most tokens of most texts
	}
	s, ok := x.dateAt(i)
	if !ok {
		return i
	}
	j := i
	for j < len(x.toks) && x.toks[j].end < s.end {
		j++
	}
	if j == len(x.toks) || x.toks[j].end != s.end {
		return i // the date ends inside a token ("2023-05-08T14:00")
	}
	if s.year && x.unit(j+1) {
		return i // a quantity: "2000 people", "in 1999 dollars"
	}
	if !x.dry {
		x.res.buf = append(x.res.buf[:0], s.entity...)
		x.add()
	}
	return j + 1
}

// dateAt returns the date span that starts in token i, if any.
func (x *extractor) dateAt(i int) (dateSpan, bool) {
	d, spans, start := &x.dates, x.res.dates, x.toks[i].start
	if !x.dry {
		// The walk visits tokens in order, so spans before this one are
		// behind it for good; isDate (dry) looks ahead and moves nothing.
		for d.next < len(spans) && spans[d.next].start < start {
			d.next++
		}
	}
	// A date starts at the token, or inside it after a hyphen: "mid-August
	// 2023" is one word here, "mid", "-", "August" for the grammar.
	end := x.toks[i].end
	for k := d.next; k < len(spans) && spans[k].start < end; k++ {
		if spans[k].start >= start {
			return spans[k], true
		}
	}
	return dateSpan{}, false
}

// isDate reports whether a date starts at token i, without emitting it.
func (x *extractor) isDate(i int) bool {
	x.dry = true
	ok := x.date(i) > i
	x.dry = false
	return ok
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}

package dates

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// MaxLen is the longest field value Parse reads, in bytes; a longer value is
// an error that names the limit. The longest accepted form, "at 12:59:59
// p.m. on Wednesday, 30th of September, 2026", has 54 bytes; 64 leaves room
// for surrounding spaces and bounds the work Parse does on hostile input.
const MaxLen = 64

// forms is what an error says when the form of a value is unknown.
const forms = `use ISO 8601 (2023-05-07, 2023-05-07T14:00:00Z) or one of "8 May 2023", "May 8, 2023", ` +
	`"1:56 pm on 8 May, 2023", "2023/05/30 (Tue) 23:40"`

// Parse reads one date or date-time field value strictly, in one of the
// forms listed in the package documentation. dateOnly reports a value
// without a time of day (callers treat an upper bound "2023-05-07" as the end
// of that day). A value without a zone is in loc (UTC when loc is nil); a
// value with one keeps its offset, in loc when loc has that offset then
// ("Z" stays UTC).
// Errors read well after a field name:
//
//	cannot read "31 February, 2023" as a date: February 2023 has 28 days
func Parse(s string, loc *time.Location) (t time.Time, dateOnly bool, err error) {
	if len(s) > MaxLen {
		return time.Time{}, false, fmt.Errorf("cannot read a date of %d bytes: the limit is %d", len(s), MaxLen)
	}
	if loc == nil {
		loc = time.UTC
	}
	var buf [MaxLen]token
	p := parser{in: s, t: tokenize(s, buf[:0])}
	if err := p.parse(); err != nil {
		// The parser never lets a piece of s escape (that would move the
		// tokens to the heap); it says where the piece is instead.
		if e, ok := err.(*pieceError); ok {
			piece := s[e.from:e.to]
			if e.quote {
				piece = strconv.Quote(piece)
			}
			err = errors.New(e.before + piece + e.after)
		}
		return time.Time{}, false, fmt.Errorf("cannot read %q as a date: %w", s, err)
	}
	if !p.hasTime {
		return wallTime(p.y, time.Month(p.m), p.d, 0, 0, 0, 0, loc), true, nil
	}
	if !p.zone {
		return wallTime(p.y, time.Month(p.m), p.d, p.hh, p.mm, p.ss, p.ns, loc), false, nil
	}
	t = time.Date(p.y, time.Month(p.m), p.d, p.hh, p.mm, p.ss, p.ns, time.UTC).Add(-time.Duration(p.offset) * time.Second)
	switch {
	case p.utc:
		return t, false, nil
	case offsetAt(t, loc) == p.offset:
		return t.In(loc), false, nil
	}
	return t.In(time.FixedZone("", p.offset)), false, nil
}

// pieceError is an error that quotes the value's bytes [from, to).
type pieceError struct {
	before   string
	from, to int
	quote    bool
	after    string
}

func (e *pieceError) Error() string { return e.before + "…" + e.after }

type parser struct {
	in string
	t  []token

	y, m, d   int
	hh, mm    int
	ss, ns    int
	hasTime   bool
	zone      bool // an offset was given
	utc       bool // the offset was Z
	offset    int  // seconds east of UTC
	weekday   int  // the weekday written with the date, or -1
	wdEnd     int  // the token after the date, for weekday messages
	dateStart int
}

var (
	errForm     = errors.New(forms)
	errEmpty    = errors.New("it is empty; " + forms)
	errRelative = errors.New("relative dates (yesterday, last week) are not read here: give the date itself, as in 2023-05-07")
	errYear     = errors.New("a year alone is not a date: give a day, as in 2023-05-07")
	errMonth    = errors.New("a month alone is not a date: give a day, as in 8 May 2023 or 2023-05-07")
	errTwo      = errors.New("month and day take two digits, as in 2023-05-07")
	errNoYear   = errors.New("give the year, as in 8 May 2023")
	errYearLen  = errors.New("the year takes four digits, as in 8 May 2023")
)

func (p *parser) num(i int) bool { return i < len(p.t) && p.t[i].kind == kNum }

// numN reports a number of exactly n digits at i.
func (p *parser) numN(i, n int) bool { return p.num(i) && int(p.t[i].ndig) == n }

func (p *parser) punct(i int, c byte) bool {
	return i < len(p.t) && p.t[i].kind == kPunct && p.in[p.t[i].start] == c
}

func (p *parser) glued(i int) bool { return i < len(p.t) && !p.t[i].space }

func (p *parser) kw(i int) kw {
	if i < len(p.t) && p.t[i].kind == kWord {
		return p.t[i].kw
	}
	return kwNone
}

// letter reports the one-letter word c (either case) at i.
func (p *parser) letter(i int, c byte) bool {
	return i < len(p.t) && p.t[i].kind == kWord && p.t[i].end-p.t[i].start == 1 && p.in[p.t[i].start]|0x20 == c
}

// parse reads the value into p's fields.
func (p *parser) parse() error {
	if len(p.t) == 0 {
		return errEmpty
	}
	p.weekday = -1
	for i := range p.t {
		switch p.kw(i) {
		case kwToday, kwTonight, kwTomorrow, kwYesterday, kwNow, kwAgo, kwLast, kwNext:
			return errRelative
		}
	}
	var err error
	switch {
	case p.numN(0, 4) && len(p.t) == 1:
		return errYear
	case p.numN(0, 4) && p.glued(1) && p.punct(1, '-'):
		err = p.iso()
	case p.numN(0, 4) && p.glued(1) && p.punct(1, '/'):
		err = p.slash()
	default:
		err = p.human()
	}
	if err != nil {
		return err
	}
	if p.weekday >= 0 {
		if wd := weekdayOf(p.y, p.m, p.d); int(wd) != p.weekday {
			return &pieceError{from: p.t[p.dateStart].start, to: p.t[p.wdEnd-1].end,
				after: " is a " + wd.String() + ", not a " + time.Weekday(p.weekday).String()}
		}
	}
	if p.zone && (p.offset < -12*3600 || p.offset > 14*3600) {
		// no zone is that far from UTC: a typo, which would date the
		// memory on a day no bound finds
		sign, off := "+", p.offset
		if off < 0 {
			sign, off = "-", -off
		}
		return fmt.Errorf("offset %s%02d:%02d is beyond any time zone's (-12:00 to +14:00)", sign, off/3600, off%3600/60)
	}
	return nil
}

func offsetAt(t time.Time, loc *time.Location) int {
	_, off := t.In(loc).Zone()
	return off
}

// check validates the calendar date in p.
func (p *parser) check() error {
	return checkDate(p.y, p.m, p.d)
}

func checkDate(y, m, d int) error {
	switch {
	case y < MinYear || y > MaxYear:
		return fmt.Errorf("year %d is outside the supported range %d-%d", y, MinYear, MaxYear)
	case m < 1 || m > 12:
		return fmt.Errorf("there is no month %d", m)
	case d < 1:
		return fmt.Errorf("there is no day %d", d)
	case d > daysIn(y, m):
		return fmt.Errorf("%s %d has %d days", monthNames[m], y, daysIn(y, m))
	}
	return nil
}

// rest is the error for tokens left after a complete value.
func (p *parser) rest(i int) error {
	if i >= len(p.t) {
		return nil
	}
	return &pieceError{before: "unexpected ", from: p.t[i].start, to: p.t[len(p.t)-1].end, quote: true,
		after: " after the date; " + forms}
}

// iso reads 2023-05-07, 2023-05-07T14:00, 2023-05-07 14:00:05.5+02:00 ...
func (p *parser) iso() error {
	return p.numeric('-', true)
}

// slash reads LongMemEval's 2023/05/30 (Tue) 23:40.
func (p *parser) slash() error {
	return p.numeric('/', false)
}

// numeric reads year, month and day separated by sep, then for ISO an
// optional T or space, a time, a fraction and a zone; for the slash form an
// optional (weekday) and a time.
func (p *parser) numeric(sep byte, iso bool) error {
	p.y = int(p.t[0].val)
	if !p.glued(2) || !p.num(2) {
		return errForm
	}
	if !p.numN(2, 2) {
		return errTwo
	}
	p.m = int(p.t[2].val)
	if len(p.t) == 3 {
		return errMonth
	}
	if !p.glued(3) || !p.punct(3, sep) || !p.glued(4) || !p.num(4) {
		return errForm
	}
	if !p.numN(4, 2) {
		return errTwo
	}
	p.d = int(p.t[4].val)
	if err := p.check(); err != nil {
		return err
	}
	i := 5
	if i == len(p.t) {
		return nil
	}
	if iso {
		switch {
		case p.glued(i) && (p.letter(i, 't')) && p.glued(i+1) && p.num(i+1):
			i++
		case !p.glued(i) && p.num(i):
		default:
			return p.rest(i)
		}
		i, err := p.clock(i, true)
		if err != nil {
			return err
		}
		return p.rest(p.tz(i))
	}
	if !p.glued(i) && p.punct(i, '(') {
		wd, ok := p.kw(i + 1).weekday()
		if !ok || !p.glued(i+1) || !p.glued(i+2) || !p.punct(i+2, ')') {
			return fmt.Errorf("want a weekday in parentheses after the date, as in 2023/05/30 (Tue) 23:40")
		}
		p.weekday, p.dateStart, p.wdEnd = wd, 0, 5
		i += 3
	}
	if i < len(p.t) && !p.glued(i) && p.num(i) {
		var err error
		if i, err = p.clock(i, false); err != nil {
			return err
		}
	}
	return p.rest(i)
}

// clock reads a 24-hour hh:mm[:ss[.fraction]] at i (two digits each; a
// fraction only when frac is set) and returns the token after it.
func (p *parser) clock(i int, frac bool) (int, error) {
	if !p.numN(i, 2) || !p.glued(i+1) || !p.punct(i+1, ':') || !p.glued(i+2) || !p.numN(i+2, 2) {
		return i, fmt.Errorf("want a time as hh:mm after the date, as in 2023-05-07T14:00; %s", forms)
	}
	p.hasTime = true
	p.hh, p.mm = int(p.t[i].val), int(p.t[i+2].val)
	i += 3
	if p.glued(i) && p.punct(i, ':') && p.glued(i+1) && p.numN(i+1, 2) {
		p.ss = int(p.t[i+1].val)
		i += 2
		if frac && p.glued(i) && p.punct(i, '.') && p.glued(i+1) && p.num(i+1) {
			n := int(p.t[i+1].ndig)
			if n > 9 {
				return i, fmt.Errorf("a fraction of a second has at most 9 digits")
			}
			p.ns = int(p.t[i+1].val)
			for ; n < 9; n++ {
				p.ns *= 10
			}
			i += 2
		}
	}
	return i, p.checkClock(false)
}

func (p *parser) checkClock(ampm bool) error {
	switch {
	case ampm && (p.hh < 1 || p.hh > 12):
		return fmt.Errorf("hour %d is out of range 1-12 with am or pm", p.hh)
	case p.hh > 23:
		return fmt.Errorf("hour %d is out of range 0-23", p.hh)
	case p.mm > 59:
		return fmt.Errorf("minute %d is out of range 0-59", p.mm)
	case p.ss > 59:
		return fmt.Errorf("second %d is out of range 0-59", p.ss)
	}
	return nil
}

// tz reads a zone glued to the time: Z or ±hh:mm. It returns the token
// after it (i when there is none).
func (p *parser) tz(i int) int {
	if !p.glued(i) {
		return i
	}
	if p.letter(i, 'z') {
		p.zone, p.utc = true, true
		return i + 1
	}
	sign := 1
	switch {
	case p.punct(i, '+'):
	case p.punct(i, '-'):
		sign = -1
	default:
		return i
	}
	if !p.glued(i+1) || !p.numN(i+1, 2) || !p.glued(i+2) || !p.punct(i+2, ':') || !p.glued(i+3) || !p.numN(i+3, 2) {
		return i
	}
	h, m := int(p.t[i+1].val), int(p.t[i+3].val)
	if h > 23 || m > 59 {
		return i
	}
	p.zone, p.offset = true, sign*(h*3600+m*60)
	return i + 4
}

// human reads the written forms: [at] [time [on|,]] [weekday [,]] date
// [[,] [at] time], the date being "8 May 2023", "8th of May, 2023",
// "May 8, 2023" or "May 8th 2023".
func (p *parser) human() error {
	i := 0
	at := p.kw(i) == kwAt
	if at {
		i++
	}
	if p.isTime(i) {
		var err error
		if i, err = p.time12(i); err != nil {
			return err
		}
		if p.kw(i) == kwOn || p.punct(i, ',') {
			i++
		}
	} else if at {
		return errForm
	}
	if wd, ok := p.kw(i).weekday(); ok {
		p.weekday = wd
		i++
		if p.punct(i, ',') {
			i++
		}
	}
	p.dateStart = i
	i, err := p.date(i)
	if err != nil {
		return err
	}
	p.wdEnd = i
	if err := p.check(); err != nil {
		return err
	}
	if !p.hasTime && i < len(p.t) {
		j := i
		if p.punct(j, ',') {
			j++
		}
		at := p.kw(j) == kwAt
		if at {
			j++
		}
		if p.isTime(j) {
			return p.rest2(p.time12(j))
		}
		if at || j > i {
			return errForm
		}
	}
	return p.rest(i)
}

func (p *parser) rest2(i int, err error) error {
	if err != nil {
		return err
	}
	return p.rest(i)
}

// date reads the day, month and year of a written date at i.
func (p *parser) date(i int) (int, error) {
	if p.num(i) {
		if p.t[i].ndig > 2 {
			if p.t[i].ndig == 4 {
				return i, errForm
			}
			return i, errForm
		}
		p.d = int(p.t[i].val)
		i, err := p.ordinal(i + 1)
		if err != nil {
			return i, err
		}
		if p.kw(i) == kwOf {
			i++
		}
		m := p.kw(i).month()
		if m == 0 {
			return i, errForm
		}
		p.m = m
		i = p.abbrDot(i)
		if p.punct(i, ',') {
			i++
		}
		return p.year(i)
	}
	m := p.kw(i).month()
	if m == 0 {
		return i, errForm
	}
	p.m = m
	i = p.abbrDot(i)
	switch {
	case i == len(p.t):
		return i, errMonth
	case p.num(i) && p.t[i].ndig <= 2:
		p.d = int(p.t[i].val)
		i, err := p.ordinal(i + 1)
		if err != nil {
			return i, err
		}
		if p.punct(i, ',') {
			i++
		}
		return p.year(i)
	case p.numN(i, 4), p.punct(i, ',') && p.numN(i+1, 4):
		return i, errMonth
	}
	return i, errForm
}

// ordinal skips an ordinal suffix glued to the day before i ("8th").
func (p *parser) ordinal(i int) (int, error) {
	if p.glued(i) && p.kw(i) == kwOrd {
		if !ordinalOK(p.d, p.in[p.t[i].start:p.t[i].end]) {
			return i, &pieceError{from: p.t[i-1].start, to: p.t[i].end, after: " is not an ordinal"}
		}
		return i + 1, nil
	}
	return i, nil
}

// abbrDot skips the month at i and a dot glued to an abbreviation ("Aug.").
func (p *parser) abbrDot(i int) int {
	if k := p.kw(i); kwJanAbbr <= k && k <= kwDecAbbr && p.glued(i+1) && p.punct(i+1, '.') {
		return i + 2
	}
	return i + 1
}

func (p *parser) year(i int) (int, error) {
	switch {
	case p.numN(i, 4):
		p.y = int(p.t[i].val)
		return i + 1, nil
	case i == len(p.t) || p.isTime(i) || p.kw(i) == kwAt:
		return i, errNoYear
	case p.num(i):
		return i, errYearLen
	}
	return i, errForm
}

// isTime reports whether a time of day starts at i: h:mm, or h followed by
// am or pm.
func (p *parser) isTime(i int) bool {
	if !p.num(i) || p.t[i].ndig > 2 {
		return false
	}
	if p.glued(i+1) && p.punct(i+1, ':') {
		return true
	}
	_, _, ok := p.ampm(i + 1)
	return ok
}

// ampm reads am, pm, a.m. or p.m. at i.
func (p *parser) ampm(i int) (pm bool, next int, ok bool) {
	switch {
	case p.kw(i) == kwAM:
		return false, i + 1, true
	case p.kw(i) == kwPM:
		return true, i + 1, true
	case (p.letter(i, 'a') || p.letter(i, 'p')) && p.glued(i+1) && p.punct(i+1, '.') && p.glued(i+2) && p.letter(i+2, 'm'):
		pm, next = p.letter(i, 'p'), i+3
		if p.glued(next) && p.punct(next, '.') {
			next++
		}
		return pm, next, true
	}
	return false, i, false
}

// time12 reads h[:mm[:ss]] [am|pm] at i (minutes are required without am
// or pm).
func (p *parser) time12(i int) (int, error) {
	p.hasTime = true
	p.hh = int(p.t[i].val)
	i++
	minutes := false
	if p.glued(i) && p.punct(i, ':') {
		if !p.glued(i+1) || !p.numN(i+1, 2) {
			return i, fmt.Errorf("want minutes as two digits after the hour, as in 1:56 pm")
		}
		p.mm, minutes = int(p.t[i+1].val), true
		i += 2
		if p.glued(i) && p.punct(i, ':') {
			if !p.glued(i+1) || !p.numN(i+1, 2) {
				return i, fmt.Errorf("want seconds as two digits after the minutes, as in 1:56:30 pm")
			}
			p.ss = int(p.t[i+1].val)
			i += 2
		}
	}
	pm, next, ok := p.ampm(i)
	switch {
	case ok:
		if err := p.checkClock(true); err != nil {
			return i, err
		}
		p.hh %= 12
		if pm {
			p.hh += 12
		}
		return next, nil
	case !minutes:
		return i, errForm
	}
	return i, p.checkClock(false)
}

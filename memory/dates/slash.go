package dates

// slashDay reads at i a day written with slashes whose month is not in
// doubt, because one of its first two numbers is above 12: "2/15" and
// "2/15/2023" (the month first, as in the US), "15/2" and "15/02/23" (the
// day first, as in Europe). "5/8" may be 8 May or 5 August, so a date
// whose both numbers could be the month is not read (Options.Loose
// reports one with a year, unresolved, as before).
//
// A year of four digits makes it a date wherever it stands. Without one,
// or with two digits ("3/31/23": 2000 to 2068, 1969 to 1999), a word
// must announce a day before it ("on", "by", "since", "until", "from",
// "between", "before", "after", "due", "dated", "as of", "the week of",
// a weekday), and no noun it counts may follow it, nor a fraction after
// "to" or "or": "arrived on 1/20", "due 3/15", but not "a 1/16 inch
// drill", "by 1/16 inch" or "available 24/7". Its year, when not
// written, is read as a day's written in words is ("on May 8").
func (f *finder) slashDay(i int) (Mention, int) {
	if f.t[i].ndig > 2 || !f.leftOK(i) && !(f.punct(i-1, '-') && f.slashBefore(i-1)) || !f.glued(i+1) || !f.punct(i+1, '/') ||
		!f.glued(i+2) || !f.num(i+2) || f.t[i+2].ndig > 2 {
		return Mention{}, i
	}
	m, d, first := slashOrder(int(f.t[i].val), int(f.t[i+2].val))
	if m == 0 {
		return Mention{}, i
	}
	j, y, cue := i+3, 0, true
	if f.glued(j) && f.punct(j, '/') && f.glued(j+1) && f.num(j+1) {
		switch v := int(f.t[j+1].val); f.t[j+1].ndig {
		case 4:
			y, cue = v, false
		case 2:
			y = 2000 + v
			if v >= 69 {
				y = 1900 + v // POSIX's reading of a two-digit year
			}
		default:
			return Mention{}, i
		}
		j += 2
	}
	if joined := f.glued(j) && f.punct(j, '-') && f.slashAfter(j, first); !joined && (!f.rightOK(j) || f.glued(j) && (f.punct(j, '/') || f.punct(j, '-'))) {
		return Mention{}, i // "1/16-inch", "2/15/2023/4"
	}
	if f.glued(j) && (f.punct(j, '"') || f.punct(j, '\'') || f.s[f.t[j].start] >= 0x80) {
		return Mention{}, i // inches and feet: "1/16\"", "1/16”"
	}
	if cue {
		c := f.slashCued(i)
		if c == cueNone && f.slashAfter(j, first) {
			c = cueDay // the first of "2/15-2/20", read apart
		}
		if c == cueNone || c == cueWord && (f.counts(j) || f.fractionAfter(j, first)) {
			return Mention{}, i
		}
	}
	if y != 0 && (y < MinYear || y > MaxYear) {
		return Mention{}, j
	}
	return f.ymd(i, j, y, m, d)
}

// slashOrder is the month and day of a/b, and whether the month is
// first; 0 when both or neither could be the month.
func slashOrder(a, b int) (m, d int, monthFirst bool) {
	switch {
	case a >= 1 && a <= 12 && b > 12 && b <= 31:
		return a, b, true
	case b >= 1 && b <= 12 && a > 12 && a <= 31:
		return b, a, false
	}
	return 0, 0, false
}

// fractionAfter reports whether the range or list that the tokens from j
// go on with ("to", "or", "and", "-") ends in a number with a slash that
// is no day in the same order: "from 1/16 to 1/8 inch".
func (f *finder) fractionAfter(j int, monthFirst bool) bool {
	m, first, ok := f.slashJoined(j)
	return ok && (m == 0 || first != monthFirst)
}

// slashAfter reports whether the tokens from j join a day written with
// slashes in the same order: "2/15-2/20", "2/15 to 2/20".
func (f *finder) slashAfter(j int, monthFirst bool) bool {
	m, first, ok := f.slashJoined(j)
	return ok && m != 0 && first == monthFirst
}

// slashJoined reads at j a word or dash that joins two ends (to, and, or,
// through, thru, until, till, "-") and a number with a slash after it:
// ok, and the month it names (0 if in doubt) and whether first.
func (f *finder) slashJoined(j int) (m int, monthFirst, ok bool) {
	if !(f.kw(j) == kwTo || f.word(j, "or") || f.word(j, "and") || f.word(j, "through") || f.word(j, "thru") ||
		f.word(j, "until") || f.word(j, "till") || f.punct(j, '-')) ||
		!f.num(j+1) || !f.glued(j+2) || !f.punct(j+2, '/') || !f.glued(j+3) || !f.num(j+3) {
		return 0, false, false
	}
	m, _, monthFirst = slashOrder(int(f.t[j+1].val), int(f.t[j+3].val))
	return m, monthFirst, true
}

// What announces a day written with slashes (slashCued).
const (
	cueNone = iota
	cueWord // a word that may announce a number of another kind too: "by 1/16"
	cueDay  // a weekday ("Tue 2/14") or the day before in a range or list ("2/15 to 2/20")
)

// slashCued says what announces the day with slashes at i: on, by, since,
// until, till, from, through, between, before, after, due, dated, "as of" or
// "date:" (cueWord); a weekday, or a day with slashes and a word or dash
// that joins the two (cueDay).
func (f *finder) slashCued(i int) int {
	if f.punct(i-1, '-') && f.slashBefore(i-1) {
		return cueDay // "2/15-2/20"
	}
	if !f.t[i].space {
		return cueNone
	}
	k := f.kw(i - 1)
	if f.punct(i-1, ',') {
		k = f.kw(i - 2)
	}
	switch {
	case kwSun <= k && k <= kwSatAbbr:
		return cueDay
	case (k == kwTo || f.word(i-1, "and") || f.word(i-1, "or") || f.word(i-1, "through") || f.word(i-1, "thru") ||
		f.word(i-1, "until") || f.word(i-1, "till")) && f.slashBefore(i-1):
		return cueDay
	case k == kwOn, k == kwCue, k == kwBefore, k == kwAfter, f.word(i-1, "by"), f.word(i-1, "between"),
		f.word(i-1, "due"), f.word(i-1, "dated"), f.word(i-1, "of") && (f.word(i-2, "as") || f.word(i-2, "week")),
		f.punct(i-1, ':') && f.word(i-2, "date"):
		return cueWord
	}
	return cueNone
}

// slashBefore reports whether the tokens before j end in a day written
// with slashes whose month is not in doubt.
func (f *finder) slashBefore(j int) bool {
	if j >= 5 && f.numN(j-1, 4) && f.punct(j-2, '/') {
		j -= 2 // "2/15/2023 to 2/20/2023"
	}
	if j < 3 || !f.num(j-1) || !f.punct(j-2, '/') || !f.num(j-3) || f.t[j-1].space || f.t[j-2].space {
		return false
	}
	m, _, _ := slashOrder(int(f.t[j-3].val), int(f.t[j-1].val))
	return m != 0
}

// counts reports whether the token at j is a word that a number before it
// may count ("1/16 inch", "24/7 support"): a word in lower case that does
// not end a phrase.
func (f *finder) counts(j int) bool {
	k := f.kw(j)
	return f.sameLine(j) && f.t[j].kind == kWord && !f.t[j].upper && !endsPhrase(k) && !f.questionWord(j) &&
		k != kwLast && k != kwNext && k != kwThis // "on 2/15 last year"
}

// slashEnd reads at i an end of a range written with slashes whose
// month is not in doubt ("from 2/15 to 2/20", "15/2 - 20/2/2023"); both
// ends must be (rangeAt checks that they are written in the same order),
// so "from 1/16 to 1/8 inch" is no range.
func (f *finder) slashEnd(i int) (e rangeEnd, ok bool) {
	if !f.num(i) || f.t[i].ndig > 2 || !f.glued(i+1) || !f.punct(i+1, '/') || !f.glued(i+2) || !f.num(i+2) || f.t[i+2].ndig > 2 {
		return e, false
	}
	m, d, first := slashOrder(int(f.t[i].val), int(f.t[i+2].val))
	if m == 0 {
		return e, false
	}
	e = rangeEnd{m: m, d: d, next: i + 3, slash: 2}
	if first {
		e.slash = 1
	}
	if j := i + 3; f.glued(j) && f.punct(j, '/') && f.glued(j+1) && f.numN(j+1, 4) {
		e.y, e.next = int(f.t[j+1].val), j+2
	}
	if f.glued(e.next) && (f.punct(e.next, '/') || f.punct(e.next, '-') && !f.spaced(e.next+1) && !f.num(e.next+1)) {
		return e, false
	}
	return e, true
}

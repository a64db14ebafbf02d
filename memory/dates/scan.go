package dates

import (
	"unicode"
	"unicode/utf8"
)

// kind is the class of a token.
type kind uint8

const (
	kNum   kind = iota + 1 // a run of ASCII digits
	kWord                  // a run of letters (ASCII or any Unicode letter or mark)
	kPunct                 // one other character
)

// token is a piece of the text. Digits and letters are split apart, so
// "8th" is "8" then "th", and "07T14" is "07", "T", "14"; space tells
// whether whitespace (or the start of the text) comes before the token.
type token struct {
	start, end int
	val        int32 // value of a number (-1 when it has more than 9 digits), or of a number word
	kind       kind  // kNum, kWord or kPunct
	kw         kw    // keyword of a word, kwNone if it is none
	ndig       uint8
	space      bool // whitespace or the start of the text comes before it
	line       bool // a line break comes before it
	upper      bool // a word that starts with an ASCII capital
}

// tokenize appends the tokens of s to toks. It reads every byte once.
func tokenize(s string, toks []token) []token {
	space, line := true, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			line = line || c == '\n' || c == '\r'
			i++
			continue
		case '0' <= c && c <= '9':
			j, v := i, int32(0)
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				if j-i < 9 {
					v = v*10 + int32(s[j]-'0')
				}
				j++
			}
			n := j - i
			if n > 9 {
				v = -1
			}
			if n > 255 {
				n = 255
			}
			toks = append(toks, token{start: i, end: j, val: v, kind: kNum, ndig: uint8(n), space: space, line: line})
			i = j
		case c < utf8.RuneSelf && !isASCIILetter(c):
			toks = append(toks, token{start: i, end: i + 1, kind: kPunct, space: space, line: line})
			i++
		default:
			j := wordEnd(s, i)
			if j == i {
				// a non-ASCII rune that is not a letter: space or punctuation
				r, size := utf8.DecodeRuneInString(s[i:])
				if unicode.IsSpace(r) {
					space = true
					i += size
					continue
				}
				toks = append(toks, token{start: i, end: i + size, kind: kPunct, space: space, line: line})
				i += size
				break
			}
			k, v := keyword(s[i:j])
			toks = append(toks, token{start: i, end: j, val: v, kind: kWord, kw: k, space: space, line: line, upper: 'A' <= c && c <= 'Z'})
			i = j
		}
		space, line = false, false
	}
	return toks
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// wordEnd returns the end of the run of letters that starts at i (i when
// there is none).
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isASCIILetter(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || !unicode.IsLetter(r) && !unicode.IsMark(r) {
			return i
		}
		i += size
	}
	return i
}

// kw is a word the grammar knows.
type kw uint8

const (
	kwNone kw = iota
	// kwJan..kwDec are the full month names, in order.
	kwJan
	kwFeb
	kwMar
	kwApr
	kwMay
	kwJun
	kwJul
	kwAug
	kwSep
	kwOct
	kwNov
	kwDec
	// kwJanAbbr..kwDecAbbr are their abbreviations ("jan", "sept").
	kwJanAbbr
	_
	_
	_
	_
	_
	_
	_
	_
	_
	_
	kwDecAbbr
	// kwSun..kwSat are the full weekday names, in time.Weekday order.
	kwSun
	_
	_
	_
	_
	_
	kwSat
	// kwSunAbbr..kwSatAbbr are their abbreviations ("tue", "thurs").
	kwSunAbbr
	_
	_
	_
	_
	_
	kwSatAbbr

	kwToday
	kwTonight
	kwTomorrow
	kwYesterday
	kwNow
	kwDay
	kwWeek
	kwWeekend
	kwMonth
	kwYear
	kwSeason // spring, summer, autumn, fall, winter; val holds the first month
	kwAgo
	kwLast
	kwNext
	kwThis
	kwPast
	kwEarlier
	kwLater
	kwMorning // also afternoon, evening: a part of the day
	kwNight
	kwThe
	kwBefore
	kwAfter
	kwOver
	kwEvery
	kwNumber // one..twenty; val holds the number
	kwA      // a, an
	kwCouple
	kwFew
	kwSeveral
	kwOf
	kwIn
	kwOn
	kwAt
	kwCue    // since, during, until, till, from, through: they announce a month or a year
	kwBy     // by, around: they announce a month, not a year ("grew by 2000")
	kwPeriod // early, mid, late
	kwAM
	kwPM
	kwOrd    // st, nd, rd, th
	kwClause // a word that can follow a year that ends a phrase: "in 2022 we moved"
	kwDet    // my, your, that, each...: "my Sunday routine" is no date
	kwTo
	kwOr
	kwWill    // will, shall, gonna, going, plan(s/ning), ll ("we'll"), starts, begins, ends, arrives, launches, upcoming: a weekday near it is ahead
	kwHoliday // the first word of a holiday's name (holiday.go): christmas, new, easter, …
	kwModal   // should, need(s), let: what is to be done, ahead when before the date (finder.ahead)
	kwWas     // was, were, went, did, had: a weekday near it is behind
	kwIs      // is, are, re ("we're"): "is on Friday" is ahead
	kwPrevious
)

// month returns the month a keyword names (full or abbreviated), or 0.
func (k kw) month() int {
	switch {
	case kwJan <= k && k <= kwDec:
		return int(k-kwJan) + 1
	case kwJanAbbr <= k && k <= kwDecAbbr:
		return int(k-kwJanAbbr) + 1
	}
	return 0
}

// weekday returns the weekday a keyword names (full or abbreviated) and
// whether it names one.
func (k kw) weekday() (int, bool) {
	switch {
	case kwSun <= k && k <= kwSat:
		return int(k - kwSun), true
	case kwSunAbbr <= k && k <= kwSatAbbr:
		return int(k - kwSunAbbr), true
	}
	return 0, false
}

// keyword classifies a word, case-insensitively. Most words are answered
// by the length test (the longest keywords, "thanksgiving" and
// "independence", have 12 letters).
func keyword(w string) (kw, int32) {
	if len(w) > 12 {
		return kwNone, 0
	}
	var b [12]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return kwNone, 0
		}
		b[i] = c | 0x20
	}
	s := string(b[:len(w)])
	if k, v := calendarWord(s); k != kwNone {
		return k, v
	}
	if k, v := timeWord(s); k != kwNone {
		return k, v
	}
	return otherWord(s)
}

// calendarWord classifies the names of months and weekdays, full and
// abbreviated (keyword).
func calendarWord(s string) (kw, int32) {
	switch s {
	case "january":
		return kwJan, 0
	case "february":
		return kwFeb, 0
	case "march":
		return kwMar, 0
	case "april":
		return kwApr, 0
	case "may":
		return kwMay, 0
	case "june":
		return kwJun, 0
	case "july":
		return kwJul, 0
	case "august":
		return kwAug, 0
	case "september":
		return kwSep, 0
	case "october":
		return kwOct, 0
	case "november":
		return kwNov, 0
	case "december":
		return kwDec, 0
	case "jan":
		return kwJanAbbr, 0
	case "feb":
		return kwJanAbbr + 1, 0
	case "mar":
		return kwJanAbbr + 2, 0
	case "apr":
		return kwJanAbbr + 3, 0
	case "jun":
		return kwJanAbbr + 5, 0
	case "jul":
		return kwJanAbbr + 6, 0
	case "aug":
		return kwJanAbbr + 7, 0
	case "sep", "sept":
		return kwJanAbbr + 8, 0
	case "oct":
		return kwJanAbbr + 9, 0
	case "nov":
		return kwJanAbbr + 10, 0
	case "dec":
		return kwDecAbbr, 0
	case "sunday":
		return kwSun, 0
	case "monday":
		return kwSun + 1, 0
	case "tuesday":
		return kwSun + 2, 0
	case "wednesday":
		return kwSun + 3, 0
	case "thursday":
		return kwSun + 4, 0
	case "friday":
		return kwSun + 5, 0
	case "saturday":
		return kwSat, 0
	case "sun":
		return kwSunAbbr, 0
	case "mon":
		return kwSunAbbr + 1, 0
	case "tue", "tues":
		return kwSunAbbr + 2, 0
	case "wed", "weds":
		return kwSunAbbr + 3, 0
	case "thu", "thur", "thurs":
		return kwSunAbbr + 4, 0
	case "fri":
		return kwSunAbbr + 5, 0
	case "sat":
		return kwSatAbbr, 0
	}
	return kwNone, 0
}

// timeWord classifies the words of relative dates and times of day
// (keyword).
func timeWord(s string) (kw, int32) {
	switch s {
	case "today":
		return kwToday, 0
	case "tonight":
		return kwTonight, 0
	case "tomorrow":
		return kwTomorrow, 0
	case "yesterday":
		return kwYesterday, 0
	case "now":
		return kwNow, 0
	case "day", "days":
		return kwDay, 0
	case "week", "weeks":
		return kwWeek, 0
	case "weekend":
		return kwWeekend, 0
	case "month", "months":
		return kwMonth, 0
	case "year", "years":
		return kwYear, 0
	case "spring":
		return kwSeason, 3
	case "summer":
		return kwSeason, 6
	case "autumn", "fall":
		return kwSeason, 9
	case "winter":
		return kwSeason, 12
	case "ago":
		return kwAgo, 0
	case "last":
		return kwLast, 0
	case "next":
		return kwNext, 0
	case "this":
		return kwThis, 0
	case "past":
		return kwPast, 0
	case "earlier":
		return kwEarlier, 0
	case "later":
		return kwLater, 0
	case "morning", "afternoon", "evening":
		return kwMorning, 0
	case "night":
		return kwNight, 0
	case "the":
		return kwThe, 0
	case "before":
		return kwBefore, 0
	case "after":
		return kwAfter, 0
	case "over":
		return kwOver, 0
	case "every":
		return kwEvery, 0
	case "christmas", "boxing", "new", "halloween", "valentine", "easter", "thanksgiving", "memorial", "labor", "fourth", "independence":
		return kwHoliday, 0
	}
	return kwNone, 0
}

// otherWord classifies number words and the grammatical words around a
// date (keyword).
func otherWord(s string) (kw, int32) {
	switch s {
	case "one":
		return kwNumber, 1
	case "two":
		return kwNumber, 2
	case "three":
		return kwNumber, 3
	case "four":
		return kwNumber, 4
	case "five":
		return kwNumber, 5
	case "six":
		return kwNumber, 6
	case "seven":
		return kwNumber, 7
	case "eight":
		return kwNumber, 8
	case "nine":
		return kwNumber, 9
	case "ten":
		return kwNumber, 10
	case "eleven":
		return kwNumber, 11
	case "twelve":
		return kwNumber, 12
	case "thirteen":
		return kwNumber, 13
	case "fourteen":
		return kwNumber, 14
	case "fifteen":
		return kwNumber, 15
	case "sixteen":
		return kwNumber, 16
	case "seventeen":
		return kwNumber, 17
	case "eighteen":
		return kwNumber, 18
	case "nineteen":
		return kwNumber, 19
	case "twenty":
		return kwNumber, 20
	case "thirty":
		return kwNumber, 30
	case "a", "an":
		return kwA, 1
	case "couple":
		return kwCouple, 0
	case "few":
		return kwFew, 0
	case "several":
		return kwSeveral, 0
	case "of":
		return kwOf, 0
	case "in":
		return kwIn, 0
	case "on":
		return kwOn, 0
	case "at":
		return kwAt, 0
	case "since", "during", "until", "till", "from", "through":
		return kwCue, 0
	case "by", "around":
		return kwBy, 0
	case "early", "mid", "late":
		return kwPeriod, 0
	case "am":
		return kwAM, 0
	case "pm":
		return kwPM, 0
	case "st", "nd", "rd", "th":
		return kwOrd, 0
	case "or":
		return kwOr, 0
	case "will", "shall", "gonna", "going", "plan", "plans", "planning", "ll",
		// a schedule in the present tense: "the job starts in September"
		"starts", "begins", "ends", "arrives", "launches", "upcoming":
		return kwWill, 0
	case "should", "need", "needs", "let":
		return kwModal, 0
	case "was", "were", "went", "did", "had":
		return kwWas, 0
	case "is", "are", "re":
		return kwIs, 0
	case "and", "but", "when", "while", "where", "as", "so", "then",
		"i", "we", "you", "he", "she", "they", "it",
		"for", "with", "has", "have", "would", "there":
		return kwClause, 0
	case "my", "our", "your", "his", "her", "their", "its", "that", "each", "any", "some":
		return kwDet, 0
	case "to":
		return kwTo, 0
	case "previous":
		return kwPrevious, 0
	}
	return kwNone, 0
}

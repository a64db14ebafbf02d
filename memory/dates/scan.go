package dates

import (
	"strings"
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
	kwWill // will, shall, gonna, going, plan(s/ning), ll ("we'll"): a weekday near it is ahead
	kwWas  // was, were, went, did, had: a weekday near it is behind
	kwIs   // is, are, re ("we're"): "is on Friday" is ahead
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
// by the length test.
func keyword(w string) (kw, int32) {
	if len(w) > 9 {
		return kwNone, 0
	}
	var b [9]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return kwNone, 0
		}
		b[i] = c | 0x20
	}
	e := keywords[string(b[:len(w)])]
	return e.kw, e.val
}

// entry is a keyword and its value.
type entry struct {
	kw  kw
	val int32
}

// keywords are the words the grammar knows, lower-case, with their keyword
// and value (a season's first month, a number word's number).
var keywords = func() map[string]entry {
	m := map[string]entry{}
	add := func(k kw, v int32, words string) {
		for _, w := range strings.Fields(words) {
			if _, twice := m[w]; twice {
				panic("dates: keyword " + w + " twice")
			}
			m[w] = entry{k, v}
		}
	}
	// each of these lists is in order: the months from January, the
	// weekdays from Sunday, the numbers from one
	seq := func(first kw, words string) {
		for i, w := range strings.Fields(words) {
			if w != "-" {
				add(first+kw(i), 0, w)
			}
		}
	}
	seq(kwJan, "january february march april may june july august september october november december")
	seq(kwJanAbbr, "jan feb mar apr - jun jul aug sep oct nov dec")
	seq(kwSun, "sunday monday tuesday wednesday thursday friday saturday")
	seq(kwSunAbbr, "sun mon tue wed thu fri sat")
	add(kwJanAbbr+8, 0, "sept")
	add(kwSunAbbr+2, 0, "tues")
	add(kwSunAbbr+4, 0, "thur thurs")
	for i, w := range strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty") {
		add(kwNumber, int32(i+1), w)
	}
	add(kwNumber, 30, "thirty")
	for season, month := range map[string]int32{"spring": 3, "summer": 6, "autumn fall": 9, "winter": 12} {
		add(kwSeason, month, season)
	}
	add(kwA, 1, "a an")
	for k, words := range map[kw]string{
		kwToday: "today", kwTonight: "tonight", kwTomorrow: "tomorrow", kwYesterday: "yesterday", kwNow: "now",
		kwDay: "day days", kwWeek: "week weeks", kwWeekend: "weekend", kwMonth: "month months", kwYear: "year years",
		kwAgo: "ago", kwLast: "last", kwNext: "next", kwThis: "this", kwPast: "past", kwEarlier: "earlier", kwLater: "later",
		kwMorning: "morning afternoon evening", kwNight: "night", kwThe: "the", kwBefore: "before", kwAfter: "after",
		kwOver: "over", kwEvery: "every", kwCouple: "couple", kwFew: "few", kwSeveral: "several",
		kwOf: "of", kwIn: "in", kwOn: "on", kwAt: "at", kwCue: "since during until till from through", kwBy: "by around",
		kwPeriod: "early mid late", kwAM: "am", kwPM: "pm", kwOrd: "st nd rd th", kwOr: "or", kwTo: "to",
		kwWill:   "will shall gonna going plan plans planning ll",
		kwWas:    "was were went did had",
		kwIs:     "is are re",
		kwClause: "and but when while where as so then i we you he she they it for with has have would there",
		kwDet:    "my our your his her their its that each any some",
	} {
		add(k, 0, words)
	}
	return m
}()

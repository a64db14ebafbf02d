package entities

import (
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// name emits the run of capitalised words starting at token i ("Golden
// Gate Bridge", "Bank of America", "Barnes & Noble", "Apollo 11") and
// returns the token after it, or i.
func (x *extractor) name(i int) int {
	t := x.toks[i]
	if t.kind != tWord || !capitalised(x.word(i)) {
		return i
	}
	if x.never(i) || t.sent && x.opener(i) {
		return i + 1
	}
	if x.in(i, articles) {
		return i + 1 // "The Alchemist" is named by "Alchemist"
	}
	last, words, caps := i, 1, 0
	if allCaps(x.word(i)) {
		caps++
	}
run:
	for j := i + 1; j < len(x.toks); {
		u := x.toks[j]
		if u.sent {
			break
		}
		switch {
		case u.kind == tWord && capitalised(x.word(j)):
			if x.never(j) || x.isDate(j) {
				break run // "Caroline May 2023" is a name and a date
			}
			if allCaps(x.word(j)) {
				caps++
			}
			last, words = j, words+1
			j++
		case u.kind == tWord && x.connects(j):
			j++
		case u.kind == tPunct && u.r == '&' && u.space && j+1 < len(x.toks) && x.toks[j+1].space &&
			x.toks[j+1].kind == tWord && capitalised(x.word(j+1)):
			j++
		case u.kind == tNum && u.space && len(x.word(j)) <= 3 && allDigits(x.word(j)) && !x.unit(j+1) && !x.isDate(j):
			last = j
			break run
		default:
			break run
		}
	}
	if words == 1 {
		_, month := months[string(x.lower(i))]
		if month || x.in(i, weekdays) || utf8.RuneCountInString(x.word(i)) == 1 {
			return last + 1 // a month or weekday on its own, an initial
		}
	}
	if caps == words && (words >= 3 || words > 1 && (x.capsWord(i-1) || x.capsWord(last+1))) {
		return last + 1 // shouting, not a name
	}
	x.res.buf = x.res.buf[:0]
	for j := i; j <= last; j++ {
		if j > i {
			x.res.buf = append(x.res.buf, ' ')
		}
		x.res.buf = appendLower(x.res.buf, x.word(j))
	}
	x.res.buf = dropPossessive(x.res.buf)
	x.add()
	return last + 1
}

var possessive = en.NewPossessiveFilter()

// dropPossessive strips a trailing "'s" as the index's English analyzer
// does ("Caroline's" -> "caroline", "JOHN'S" -> "john").
func dropPossessive(b []byte) []byte {
	tok := analysis.Token{Term: b}
	possessive.Filter(analysis.TokenStream{&tok})
	return tok.Term
}

// capsWord reports whether token i is a word in capitals.
func (x *extractor) capsWord(i int) bool {
	return i >= 0 && i < len(x.toks) && x.toks[i].kind == tWord && allCaps(x.word(i))
}

// connects reports whether the lower-case word at i joins two parts of a
// name ("Bank of America", "Lord of the Rings", "Vincent van Gogh").
func (x *extractor) connects(i int) bool {
	if !x.in(i, connectors) || !isLowerStart(x.word(i)) {
		return false
	}
	next := i + 1
	if x.is(i, "of") && x.is(next, "the") && isLowerStart(x.word(next)) {
		next++
	}
	return next < len(x.toks) && x.toks[next].kind == tWord && !x.toks[next].sent &&
		capitalised(x.word(next)) && !x.never(next)
}

// never reports whether the capitalised word at i is never part of a name:
// "I" and its contractions, titles like "Mr", "OK", and function words in
// capitals ("THE", "AND").
func (x *extractor) never(i int) bool {
	w := x.word(i)
	if len(w) <= len("i’ll") && x.in(i, notNames) {
		return true
	}
	if len(w) > 1 && allCaps(w) {
		return x.in(i, stopWords)
	}
	return false
}

// opener reports whether the capitalised first word of a sentence at i is
// just a common word: "When", "Yesterday", "Thanks", "That's", "Painting".
func (x *extractor) opener(i int) bool {
	k := x.lower(i)
	if k == nil {
		return false
	}
	if stopWords.has(string(k)) {
		return true
	}
	if a := strings.LastIndexByte(string(k), '\''); a > 0 {
		if suf := string(k[a:]); suf == "'s" {
			return stopWords.has(string(k[:a])) // "That's"
		} else if openerContractions.has(suf) {
			return true // "We're", "I'd"
		}
		if strings.HasSuffix(string(k), "n't") {
			return true // "Didn't"
		}
	}
	// "Painting is fun", "Visited Mohammed": in chat a sentence opening
	// with a verb form has dropped its subject. The cost is the rare name
	// in the same place ("Sterling said", "Mohammed said").
	for _, v := range verbEndings {
		if len(k) >= v.min && strings.HasSuffix(string(k), v.suffix) {
			for _, n := range v.not {
				if strings.HasSuffix(string(k), n) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// title emits the text between the opening quote at i and its closing
// quote if it looks like a title: short, on one line, and capitalised or
// introduced by a word like "called" or "book" (or in a caseless script).
// The words inside are then extracted as usual.
func (x *extractor) title(i int) {
	t := x.toks[i]
	want := closer(t.r)
	// Straight quotes double as apostrophes and inch marks, so they open
	// only before a word and after a space or bracket.
	straight := t.r == '"' || t.r == '\''
	if straight && !t.space && i > 0 && !strings.ContainsRune(sentenceCarriers, x.toks[i-1].r) ||
		i+1 >= len(x.toks) || x.toks[i+1].space || x.toks[i+1].kind == tPunct {
		return
	}
	words, content, capsContent, caseless := 0, 0, 0, false
	for j := i + 1; j < len(x.toks) && j <= i+24; j++ {
		u := x.toks[j]
		if u.line || u.start-x.toks[i].end > 100 {
			return // crossed a line or ran too long
		}
		if u.kind == tPunct {
			if (u.r == want || want == '”' && u.r == '"' || want == '\'' && u.r == '’') && !u.space &&
				(!straight || j+1 >= len(x.toks) || x.toks[j+1].space || x.toks[j+1].kind == tPunct) {
				// Title case, or an announced title: most content words
				// capitalised, unlike quoted speech ("Honestly it was the
				// best day.") or scare quotes ("no big deal").
				titled := content > 0 && 2*capsContent >= content
				if words > 0 && (titled || caseless || x.cued(i)) {
					x.res.buf = appendLower(x.res.buf[:0], x.s[x.toks[i+1].start:x.toks[j-1].end])
					for n := len(x.res.buf); n > 0 && strings.IndexByte(titleTrailing, x.res.buf[n-1]) >= 0; n-- {
						x.res.buf = x.res.buf[:n-1]
					}
					if utf8.RuneCount(x.res.buf) >= 2 {
						x.add()
					}
				}
				return
			}
			continue
		}
		if words++; words > 8 {
			return
		}
		w := x.word(j)
		if r, _ := utf8.DecodeRuneInString(w); isCaseless(r) {
			caseless = true
		}
		if u.kind == tWord && !x.in(j, stopWords) && !x.in(j, firstPerson) {
			content++
			if capitalised(w) {
				capsContent++
			}
		}
	}
}

// cued reports whether one of the three words before the quote at i
// announces a title, as in `a book called "the silent patient"`.
func (x *extractor) cued(i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if x.in(j, titleCues) {
			return true
		}
	}
	return false
}

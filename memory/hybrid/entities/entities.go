// Package entities extracts, without any model, the named things in a text
// that a dense vector of a long turn dilutes: names, titles, quantities,
// dates, e-mails and URLs. The search kit indexes them in their own field
// and matches a query's entities against it.
//
// The extractor is a small pipeline over word lists: tokenize (tokens.go)
// splits the text into words, numbers, punctuation and web tokens
// (e-mails, URLs, domains, hashtags, handles), and marks sentence starts;
// then, token by token, the first matcher that takes it wins: a web token
// as written, a quoted title (names.go), a date (dates.go, which takes the
// dates package's reading of the text around each number), a number with
// its unit (numbers.go), a run of capitalised words (names.go). What the
// matchers look up (units, number words, months, top-level domains,
// sentence openers, name connectors, title cues ...) is data, in
// tables.go.
package entities

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Extract extracts, without any model, the named things in text that a
// dense vector of a long turn tends to dilute: proper-noun phrases, quoted
// titles, numbers with units, dates, e-mail addresses and URL-like tokens.
// Results are lower-cased, de-duplicated and in order of first appearance.
//
// The forms are chosen so that the same thing written two ways usually
// comes out the same: full dates as 2023-05-08 (from "8 May, 2023", "May
// 8th 2023" or "2023-05-08"), a month and year as 2023-05, a day and month
// as "may 8", a year as 2023 (see date for all the forms); number words before a unit as digits ("three weeks" -> "3
// weeks"), attached units spaced ("5km" -> "5 km"), "20 percent" as "20%";
// a trailing possessive dropped ("Caroline's" -> "caroline"), curly
// apostrophes straightened. A quoted title is given both whole and as any
// names in it ('The Alchemist' -> "the alchemist", "alchemist").
//
// Being a heuristic it errs towards names: a capitalised word that starts a
// sentence is taken unless it is a common sentence opener ("The", "When",
// "Yesterday", "Thanks", "Painting ..."). Weekdays, a month on its own,
// relative dates ("last Tuesday") and clock times are left out: they are
// not concrete enough to pick a memory by. Caseless scripts yield only
// numbers, dates, quoted titles and URL-like tokens.
func Extract(text string) []string {
	if text == "" {
		return nil
	}
	var arr [96]token
	x := extractor{s: text, toks: tokenize(text, arr[:0]), res: new(result)}
	x.findDates()
	for i := 0; i < len(x.toks); {
		i = x.step(i)
	}
	return x.res.out
}

// Word is a word of a text as the extractor reads it into a name: its
// key, lower-cased as the name is, with the punctuation around it and a
// trailing possessive left out ("Caroline's," -> "caroline", "JOHN’S" ->
// "john"), and whether it is written as a name starts (a capital first).
func Word(w string) (key string, capital bool) {
	w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return string(dropPossessive(appendLower(nil, w))), capitalised(w)
}

type extractor struct {
	s     string
	toks  []token
	res   *result
	key   [24]byte  // scratch for lowerKey
	dry   bool      // when set, matchers report without emitting
	dates dateState // where the walk is in res.dates (dates.go)
}

// step extracts whatever starts at token i and returns the next token to
// look at.
func (x *extractor) step(i int) int {
	t := x.toks[i]
	switch t.kind {
	case tWeb:
		x.emit(x.word(i))
		return i + 1
	case tPunct:
		if closer(t.r) != 0 {
			x.title(i)
		}
		return i + 1
	}
	if j := x.date(i); j > i {
		return j
	}
	if j := x.number(i); j > i {
		return j
	}
	if j := x.name(i); j > i {
		return j
	}
	return i + 1
}

func (x *extractor) word(i int) string { return x.s[x.toks[i].start:x.toks[i].end] }

// lower returns token i lower-cased if it is short and ASCII (curly
// apostrophes straightened), else nil. It is for looking words up in the
// tables, and valid until the next call.
func (x *extractor) lower(i int) []byte {
	if i < 0 || i >= len(x.toks) || x.toks[i].kind == tPunct {
		return nil
	}
	return lowerKey(x.word(i), x.key[:])
}

// in reports whether token i, lower-cased, is in the table.
func (x *extractor) in(i int, table words) bool { return table.has(string(x.lower(i))) }

// is reports whether token i, lower-cased, is w.
func (x *extractor) is(i int, w string) bool { return string(x.lower(i)) == w }

func (x *extractor) punct(i int, r rune) bool {
	return i < len(x.toks) && x.toks[i].kind == tPunct && x.toks[i].r == r
}

// emit adds the lower-cased concatenation of parts, if new.
func (x *extractor) emit(parts ...string) {
	x.res.buf = x.res.buf[:0]
	for _, p := range parts {
		x.res.buf = appendLower(x.res.buf, p)
	}
	x.add()
}

// add adds the entity being built, less trailing spaces, if new.
func (x *extractor) add() {
	if x.dry {
		return
	}
	b := x.res.buf
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return
	}
	x.res.add(b)
}

// result collects the entities in order, without repeats. It is apart
// from extractor so that the tokens can stay on the stack.
type result struct {
	buf   []byte // the entity being built
	out   []string
	seen  map[string]struct{} // only once out is long
	dates []dateSpan          // the dates of the text, in order (dates.go)
}

func (r *result) add(b []byte) {
	if r.seen != nil {
		if _, ok := r.seen[string(b)]; ok {
			return
		}
	} else {
		for _, o := range r.out {
			if o == string(b) {
				return
			}
		}
	}
	s := string(b)
	r.out = append(r.out, s)
	if r.seen == nil && len(r.out) > 24 {
		// Linear search is faster for the dozen or so of a normal turn;
		// a long document switches to a set.
		r.seen = make(map[string]struct{}, 2*len(r.out))
		for _, o := range r.out {
			r.seen[o] = struct{}{}
		}
	} else if r.seen != nil {
		r.seen[s] = struct{}{}
	}
}

// lowerKey writes s lower-cased into buf, with curly apostrophes
// straightened, and returns it; nil if s is not ASCII or is too long.
func lowerKey(s string, buf []byte) []byte {
	n := 0
	for i := 0; i < len(s); i++ {
		if n == len(buf) {
			return nil
		}
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			if !strings.HasPrefix(s[i:], "’") {
				return nil
			}
			c, i = '\'', i+len("’")-1
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n]
}

// appendLower appends s lower-cased, with curly apostrophes straightened,
// runs of whitespace as one space, and invalid UTF-8 dropped.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case c == ' ' || '\t' <= c && c <= '\r': // as isSpace
				c = ' '
				if len(b) == 0 || b[len(b)-1] == ' ' {
					i++
					continue
				}
			}
			b = append(b, c)
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r == utf8.RuneError && w == 1:
		case r == '’':
			b = append(b, '\'')
		case isSpace(r):
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return b
}

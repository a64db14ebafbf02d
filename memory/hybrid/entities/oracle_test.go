// This file is the extractor as it was at commit 44291cc, renamed
// (Extract -> referenceExtract) and otherwise unchanged but for the lines
// marked CHANGED, the intended changes of behaviour: the oracle that
// differential_test.go compares the package against.

package entities_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"agentmem/memory/dates"
)

// referenceExtract is Extract as it was before the extractor was rebuilt
// over bleve's analysis and data tables (commit 44291cc), kept verbatim
// as the oracle of the differential tests. Its documentation follows.
//
// Extract extracts, without any model, the named things in text that a
// dense vector of a long turn tends to dilute: proper-noun phrases, quoted
// titles, numbers with units, dates, e-mail addresses and URL-like tokens.
// Results are lower-cased, de-duplicated and in order of first appearance.
//
// The forms are chosen so that the same thing written two ways usually
// comes out the same: full dates as 2023-05-08 (from "8 May, 2023", "May
// 8th 2023" or "2023-05-08"), a month and year as 2023-05, a day and month
// as "may 8"; number words before a unit as digits ("three weeks" -> "3
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
func referenceExtract(text string) []string {
	if text == "" {
		return nil
	}
	var arr [96]token
	x := extractor{s: text, toks: tokenize(text, arr[:0]), res: new(result)}
	x.dates = findDates(text) // CHANGED: see findDates
	for i := 0; i < len(x.toks); {
		i = x.step(i)
	}
	return x.res.out
}

type tokKind uint8

const (
	tWord    tokKind = iota // starts with a letter
	tNum                    // starts with a digit or a currency symbol and a digit
	tPunct                  // a single rune of anything else
	tSpecial                // e-mail, URL, domain, #hashtag or @handle
)

type token struct {
	start, end int
	r          rune // the rune of a tPunct
	kind       tokKind
	space      bool // preceded by whitespace, or first
	line       bool // first of a line
	sent       bool // first of a sentence, line or quotation
}

// tokenize appends the tokens of s to toks. Words keep their inner
// apostrophes and hyphens ("Charlotte's", "Jean-Luc"), numbers their inner
// separators ("1,200", "2023-05-08", "10:30", "1.5") and a trailing "%".
func tokenize(s string, toks []token) []token {
	space, line := true, true
	spStart, spEnd := -1, -1
	for i := 0; i < len(s); {
		r, w := decode(s, i)
		if isSpace(r) {
			if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' {
				line = true
			}
			space = true
			i += w
			continue
		}
		if space {
			spStart, spEnd = special(s, i)
		}
		t := token{start: i, space: space, line: line}
		switch {
		case i == spStart:
			t.kind, t.end = tSpecial, spEnd
		case isLetter(r):
			t.kind, t.end = tWord, scanWord(s, i)
		case isDigit(r):
			t.kind, t.end = tNum, scanWord(s, i)
		case isCurrency(r) && i+w < len(s) && isDigit(rune(s[i+w])):
			t.kind, t.end = tNum, scanWord(s, i+w)
		default:
			t.kind, t.end, t.r = tPunct, i+w, r
		}
		if line || len(toks) == 0 {
			t.sent = true
		} else if p := &toks[len(toks)-1]; p.kind == tPunct {
			// An opening quote starts a sentence of its own; other openers
			// (brackets, dashes, bullets) carry over the sentence start.
			t.sent = endsSentence(p.r) || opens(p.r) && (p.sent || p.space && closer(p.r) != 0)
		}
		toks = append(toks, t)
		space, line = false, false
		i = t.end
	}
	return toks
}

// scanWord returns the end of the word or number starting at i.
func scanWord(s string, i int) int {
	var prev rune
	seg := 0 // letters since the last joiner, to allow "U.S" but not "end.Next"
	j := i
	for j < len(s) {
		if c := s[j]; c < utf8.RuneSelf && ('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9') {
			prev = rune(c)
			seg++
			j++
			continue // the common case, without decoding
		}
		r, w := decode(s, j)
		if isLetter(r) || isDigit(r) || (r >= utf8.RuneSelf && unicode.Is(unicode.M, r)) {
			prev = r
			seg++
			j += w
			continue
		}
		n, _ := decode(s, j+w)
		ok := false
		switch r {
		case '\'', '’':
			ok = isLetter(prev) && isLetter(n)
		case '-', '‐', '‑':
			ok = (isLetter(prev) || isDigit(prev)) && (isLetter(n) || isDigit(n))
		case '.':
			ok = isDigit(prev) && isDigit(n) || seg == 1 && isLetter(prev) && isLetter(n)
		case ',':
			ok = isDigit(prev) && threeDigits(s, j+w)
		case ':', '/':
			ok = isDigit(prev) && isDigit(n)
		case '%':
			if isDigit(prev) {
				return j + w
			}
		}
		if !ok {
			break
		}
		prev, seg = r, 0
		j += w
	}
	return j
}

// threeDigits reports whether s has exactly three digits at i, as after a
// thousands separator.
func threeDigits(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+3]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return i+3 == len(s) || s[i+3] < '0' || s[i+3] > '9'
}

// special returns the bounds of an e-mail address, URL, domain, hashtag or
// handle in the whitespace-delimited chunk starting at i, less surrounding
// punctuation, or -1, -1.
func special(s string, i int) (int, int) {
	e, hint := i, false
	for ; e < len(s) && s[e] > ' '; e++ {
		switch s[e] {
		case '@', '#', '/':
			hint = true
		case '.':
			// Only a dot with something after it: "end." is common and
			// never special.
			hint = hint || e+1 < len(s) && isAlnum(s[e+1])
		}
	}
	if !hint {
		return -1, -1
	}
	a, b := i, e
	for a < b {
		r, w := utf8.DecodeRuneInString(s[a:b])
		if !strings.ContainsRune(`([{<"'“‘«`, r) {
			break
		}
		a += w
	}
	for b > a {
		r, w := utf8.DecodeLastRuneInString(s[a:b])
		if !strings.ContainsRune(`.,;:!?)]}>"'”’»`, r) {
			break
		}
		b -= w
	}
	if body := s[a:b]; isURL(body) || isEmail(body) || isTag(body) || isDomain(body) {
		return a, b
	}
	return -1, -1
}

func isURL(s string) bool {
	for _, p := range []string{"https://", "http://", "ftp://", "www."} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			if p == "www." {
				return strings.Contains(s[len(p):], ".")
			}
			return true
		}
	}
	return false
}

func isEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || strings.Count(s, "@") != 1 {
		return false
	}
	for _, c := range []byte(s[:at]) {
		if !isAlnum(c) && !strings.ContainsRune("._%+-", rune(c)) {
			return false
		}
	}
	return hostname(s[at+1:]) >= 0
}

// hostname returns the index of the top-level label of a dotted host name
// of ASCII letters, digits and hyphens, or -1.
func hostname(s string) int {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || len(s)-dot-1 < 2 {
		return -1
	}
	prev := byte('.')
	for _, c := range []byte(s) {
		if c == '.' && prev == '.' || !isAlnum(c) && c != '-' && c != '.' {
			return -1
		}
		prev = c
	}
	for _, c := range []byte(s[dot+1:]) {
		if c < 'a' || c > 'z' {
			if c < 'A' || c > 'Z' {
				return -1
			}
		}
	}
	return dot + 1
}

// isDomain reports whether s looks like "nordstrom.com" or
// "github.com/owner/repo": a host name with a well-known top-level
// domain, so that "e.g" or "Node.js" are not taken.
func isDomain(s string) bool {
	host := s
	if k := strings.IndexByte(s, '/'); k >= 0 {
		host = s[:k]
	}
	t := hostname(host)
	if t < 0 || !isLetter(rune(host[0])) {
		return false
	}
	var buf [8]byte
	k := lowerKey(host[t:], buf[:])
	_, ok := tlds[string(k)]
	return ok
}

func isTag(s string) bool {
	if len(s) < 2 || (s[0] != '#' && s[0] != '@') {
		return false
	}
	letter := false
	for _, r := range s[1:] {
		switch {
		case isLetter(r):
			letter = true
		case isDigit(r) || r == '_' || s[0] == '@' && r == '.':
		default:
			return false
		}
	}
	return letter
}

type extractor struct {
	s    string
	toks []token
	res  *result
	key  [24]byte // scratch for lowerKey
	dry  bool     // when set, matchers report without emitting
	// CHANGED: the dates of the text, from package dates (see findDates).
	dates []dateSpan
}

// step extracts whatever starts at token i and returns the next token to
// look at.
func (x *extractor) step(i int) int {
	t := x.toks[i]
	switch t.kind {
	case tSpecial:
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

func (x *extractor) is(i int, words ...string) bool {
	k := x.lower(i)
	for _, w := range words {
		if string(k) == w {
			return true
		}
	}
	return false
}

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
	buf  []byte // the entity being built
	out  []string
	seen map[string]struct{} // only once out is long
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

// appendLower appends s lower-cased, with curly apostrophes straightened,
// runs of whitespace as one space, and invalid UTF-8 dropped.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			// CHANGED: \v and \f are spaces here too, as for the tokenizer;
			// they were kept, so that "'B\f!'" gave "b\f":
			//	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			case c == ' ' || '\t' <= c && c <= '\r':
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
	if straight && !t.space && i > 0 && !opens(x.toks[i-1].r) || i+1 >= len(x.toks) || x.toks[i+1].space || x.toks[i+1].kind == tPunct {
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
					for n := len(x.res.buf); n > 0 && strings.IndexByte(".,;:!?", x.res.buf[n-1]) >= 0; n-- {
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
		if u.kind == tWord && !x.stop(j) {
			content++
			if capitalised(w) {
				capsContent++
			}
		}
	}
}

// stop reports whether token i is a stop word or "I".
func (x *extractor) stop(i int) bool {
	k := x.lower(i)
	_, ok := stopWords[string(k)]
	return ok || string(k) == "i'm" || string(k) == "i've" || string(k) == "i'll" || string(k) == "i'd"
}

// cued reports whether one of the three words before the quote at i
// announces a title, as in `a book called "the silent patient"`.
func (x *extractor) cued(i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if _, ok := titleCues[string(x.lower(j))]; ok {
			return true
		}
	}
	return false
}

// CHANGED: the dates are those of package dates (FindWith, Loose), as
// the package takes them, in place of the extractor's own date grammar:
// read on the whole text at once where the package reads windows around
// the numbers, so that the differential tests check the windows too. The
// grammar it replaced read a lower-case month as no month, "May.\n4." as
// May 4, "31 February 2023" as 2023-02, years before 1900 after "in" as
// no year, "mid-August 2023" as 2023, and a year glued to Markdown's
// "**" as none.

// dateSpan is a date in bytes [start, end) of the text and its entity.
type dateSpan struct {
	start, end int
	entity     string
	year       bool
}

// findDates returns the dates in s, as entities.
func findDates(s string) []dateSpan {
	var out []dateSpan
	for _, m := range dates.FindWith(s, dates.Options{Loose: true}) {
		if m.Relative {
			continue
		}
		d := dateSpan{start: m.Start, end: m.End}
		switch {
		case m.Grain == dates.Day && m.Month == 0:
			d.entity = strings.ToLower(s[m.Start:m.End])
		case m.Grain == dates.Day && m.Year == 0:
			d.entity = fmt.Sprintf("%s %d", monthNames[m.Month-1], m.Day)
		case m.Grain == dates.Day:
			d.entity = fmt.Sprintf("%04d-%02d-%02d", m.Year, m.Month, m.Day)
		case m.Grain == dates.Month && m.Year != 0:
			d.entity = fmt.Sprintf("%04d-%02d", m.Year, m.Month)
		case m.Grain == dates.Year || m.Grain == dates.Season && m.Year != 0:
			d.start, d.entity, d.year = m.End-4, strconv.Itoa(m.Year), true
		default:
			continue
		}
		// A weekday before the date stays a word: the date starts at its
		// first number or month name.
		for _, w := range dateWords.FindAllStringIndex(s[d.start:d.end], -1) {
			if _, ok := months[strings.ToLower(s[d.start+w[0]:d.start+w[1]])]; ok || isDigit(rune(s[d.start+w[0]])) {
				d.start += w[0]
				break
			}
		}
		out = append(out, d)
	}
	return out
}

var dateWords = regexp.MustCompile(`[0-9]|[A-Za-z]+`)

// date emits the date that starts in token i (or after a hyphen in it:
// "mid-August 2023") and ends with a token, unless it is a year before a
// unit, and returns the token after it, or i.
func (x *extractor) date(i int) int {
	for _, d := range x.dates {
		if d.start < x.toks[i].start || d.start >= x.toks[i].end {
			continue
		}
		for j := i; j < len(x.toks); j++ {
			if x.toks[j].end == d.end {
				if d.year && x.unit(j+1) {
					return i
				}
				if !x.dry {
					x.res.buf = append(x.res.buf[:0], d.entity...)
					x.add()
				}
				return j + 1
			}
		}
	}
	return i
}

// isDate reports whether a date starts at token i, without emitting it.
func (x *extractor) isDate(i int) bool {
	x.dry = true
	ok := x.date(i) > i
	x.dry = false
	return ok
}

// month returns the month named by token i (capitalised, full or
// abbreviated) and the token after it, skipping an abbreviation's dot.
func (x *extractor) month(i int) (int, int) {
	if i >= len(x.toks) || x.toks[i].kind != tWord {
		return 0, i
	}
	// Every word is asked; most are answered without a map lookup.
	if w := x.word(i); len(w) < 3 || len(w) > 9 || strings.IndexByte("JFMASOND", w[0]) < 0 {
		return 0, i
	}
	m, ok := months[string(x.lower(i))]
	if !ok {
		return 0, i
	}
	if len(x.word(i)) <= 4 && x.punct(i+1, '.') && !x.toks[i+1].space {
		return m, i + 2
	}
	return m, i + 1
}

// number emits a number with its unit starting at token i ("5 km",
// "$1,200", "20%", "3 weeks", "two kids" -> "2 kids", "30th birthday") and
// returns the token after it, or i. Bare numbers are skipped: without a
// unit they rarely identify anything.
func (x *extractor) number(i int) int {
	t := x.toks[i]
	if t.kind == tWord {
		// Cheap tests first: this runs for every word.
		if w := x.word(i); len(w) < 3 || len(w) > 9 || strings.IndexByte("otfsenhOTFSENH", w[0]) < 0 ||
			i+1 >= len(x.toks) || x.toks[i+1].kind != tWord {
			return i
		}
		d, ok := numberWord(x.lower(i))
		if !ok || !t.sent && !isLowerStart(x.word(i)) {
			return i
		}
		if x.unit(i + 1) {
			x.emit(d, " ", x.word(i+1))
			return i + 2
		}
		return i
	}
	if t.kind != tNum {
		return i
	}
	w := x.word(i)
	cur, num, suf := splitNumber(w)
	if strings.IndexByte(num, ':') >= 0 {
		// A clock time; skip it and its am/pm.
		if x.is(i+1, "am", "pm", "a.m", "p.m") {
			return i + 2
		}
		return i + 1
	}
	var skey [12]byte
	sk := lowerKey(suf, skey[:])
	switch {
	case suf == "%":
		x.emit(w)
		return i + 1
	case suf == "":
	case string(sk) == "k" || string(sk) == "bn":
		x.emit(w)
		return i + 1
	case isOrdinal(string(sk)):
		if x.content(i + 1) {
			x.emit(w, " ", x.word(i+1))
			return i + 2
		}
		return i + 1
	case strings.HasPrefix(suf, "-") || strings.HasPrefix(suf, "‐"):
		if _, ok := units[string(lowerKey(strings.TrimLeft(suf, "-‐"), skey[:]))]; ok || strings.Count(suf, "-") > 1 {
			x.emit(w) // "5-day", "3-year-old"
		}
		return i + 1
	default:
		if _, ok := units[string(sk)]; ok {
			x.emit(cur, num, " ", suf)
		}
		return i + 1
	}

	j := i + 1
	if x.punct(j, '%') {
		x.emit(w, "%")
		return j + 1
	}
	if x.is(j, "percent", "pct") {
		x.emit(w, "%")
		return j + 1
	}
	if x.is(j, "am", "pm", "a.m", "p.m") {
		return j + 1 // a clock time
	}
	mag := ""
	if x.is(j, "thousand", "million", "billion", "trillion", "k", "bn") {
		mag = " " + x.word(j)
		j++
	}
	switch {
	case cur != "":
		x.emit(w, mag)
		return j
	case x.unit(j):
		x.emit(w, mag, " ", x.word(j))
		return j + 1
	case mag != "":
		x.emit(w, mag)
		return j
	}
	return i + 1
}

// splitNumber splits "$1,200" into "$", "1,200", "" and "5km" into "",
// "5", "km".
func splitNumber(w string) (cur, num, suf string) {
	i := 0
	for i < len(w) && !isDigit(rune(w[i])) {
		i++
	}
	cur = w[:i]
	j := i
	for j < len(w) {
		c := w[j]
		if isDigit(rune(c)) || (c == ',' || c == '.' || c == ':' || c == '/' || c == '-') && j+1 < len(w) && isDigit(rune(w[j+1])) {
			j++
			continue
		}
		break
	}
	return cur, w[i:j], w[j:]
}

func isOrdinal(s string) bool { return s == "st" || s == "nd" || s == "rd" || s == "th" }

// unit reports whether token i is a unit or a counted plural noun that
// can follow a number: "km", "weeks", "dollars", "kids".
func (x *extractor) unit(i int) bool {
	if i >= len(x.toks) || x.toks[i].kind != tWord {
		return false
	}
	k := x.lower(i)
	if _, ok := units[string(k)]; ok {
		return true
	}
	// A plural noun: lower-case letters ending in a single "s"; "kids",
	// "tickets", but not "is", "was", "this", "class", "famous".
	w := x.word(i)
	if len(k) < 4 || w != string(k) || k[len(k)-1] != 's' || strings.ContainsRune("sui", rune(k[len(k)-2])) {
		return false
	}
	for _, c := range k {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	_, stop := stopWords[string(k)]
	return !stop
}

// content reports whether token i is a lower-case content word, as after
// an ordinal: "30th birthday", "3rd place".
func (x *extractor) content(i int) bool {
	if i >= len(x.toks) || x.toks[i].kind != tWord || x.toks[i].sent {
		return false
	}
	k := x.lower(i)
	if len(k) < 3 || string(k) != x.word(i) {
		return false
	}
	_, stop := stopWords[string(k)]
	return !stop
}

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
	if k := x.lower(i); string(k) == "the" || string(k) == "a" || string(k) == "an" {
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
			if x.never(j) {
				break run
			}
			if m, _ := x.month(j); m > 0 && x.isDate(j) {
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
		k := x.lower(i)
		_, mon := months[string(k)]
		_, day := weekdays[string(k)]
		if mon || day || utf8.RuneCountInString(x.word(i)) == 1 {
			return last + 1
		}
	}
	if caps == words && (words >= 3 || words > 1 && (x.capsWord(i-1) || x.capsWord(last+1))) {
		return last + 1 // shouting, not a name
	}
	x.res.buf = x.res.buf[:0]
	for j := i; j <= last; j++ {
		w := x.word(j)
		if j > i {
			x.res.buf = append(x.res.buf, ' ')
		}
		x.res.buf = appendLower(x.res.buf, w)
	}
	// CHANGED: the possessive is dropped as bleve's possessive_en does it,
	// once and in any case ("JOHN'S" -> "john"); it was dropped before
	// lower-casing, in lower case only, from the raw last word:
	//	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	x.res.buf = bytes.TrimSuffix(x.res.buf, []byte("'s"))
	x.add()
	return last + 1
}

// capsWord reports whether token i is a word in capitals.
func (x *extractor) capsWord(i int) bool {
	return i >= 0 && i < len(x.toks) && x.toks[i].kind == tWord && allCaps(x.word(i))
}

// connects reports whether the lower-case word at i joins two parts of a
// name ("Bank of America", "Lord of the Rings", "Vincent van Gogh").
func (x *extractor) connects(i int) bool {
	if !isConnector(x.lower(i)) || !isLowerStart(x.word(i)) {
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
	k := x.lower(i)
	if len(w) <= len("i’ll") {
		if skipped(k) {
			return true
		}
	}
	if len(w) > 1 && allCaps(w) {
		_, stop := stopWords[string(k)]
		return stop
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
	if _, ok := stopWords[string(k)]; ok {
		return true
	}
	if a := strings.LastIndexByte(string(k), '\''); a > 0 {
		switch suf := string(k[a:]); suf {
		case "'s":
			_, ok := stopWords[string(k[:a])]
			return ok
		case "'re", "'ve", "'ll", "'d", "'m":
			return true
		}
		if strings.HasSuffix(string(k), "n't") {
			return true
		}
	}
	// "Painting is fun", "Visited Mohammed": in chat a sentence opening
	// with a verb form has dropped its subject. The cost is the rare name
	// in the same place ("Sterling said", "Mohammed said"); "-jing" and
	// "-qing" are never English verbs ("Beijing is huge").
	ks := string(k)
	if len(k) >= 6 && strings.HasSuffix(ks, "ing") {
		return !strings.HasSuffix(ks, "jing") && !strings.HasSuffix(ks, "qing")
	}
	return len(k) >= 7 && strings.HasSuffix(ks, "ed")
}

func decode(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r) || r == '\u200b'
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return r != utf8.RuneError && unicode.IsLetter(r)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isCurrency(r rune) bool {
	return r == '$' || r == '€' || r == '£' || r == '¥' || r == '₹'
}

// isCaseless reports whether r is a letter of a script without case
// (Chinese, Japanese, Arabic, Hebrew, Thai ...).
func isCaseless(r rune) bool {
	return r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r) && !unicode.IsTitle(r)
}

func isLowerStart(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLower(r)
}

// capitalised reports whether w starts with a capital, or is written like
// "iPhone" or "eBay".
func capitalised(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) || unicode.IsTitle(r) {
		return true
	}
	if !unicode.IsLower(r) || len(w) < 3 {
		return false
	}
	r2, _ := utf8.DecodeRuneInString(w[n:])
	return unicode.IsUpper(r2)
}

func allCaps(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters > 0
}

func allDigits(w string) bool {
	for _, c := range []byte(w) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return w != ""
}

// endsSentence reports whether a word after r starts a sentence.
func endsSentence(r rune) bool {
	switch r {
	case '.', '!', '?', '…', ':', ';', '¿', '¡', '。', '！', '？':
		return true
	}
	return false
}

// opens reports whether r may open a quotation, bracket or list item, after
// which a sentence start carries over to the next word.
func opens(r rune) bool {
	switch r {
	case '"', '\'', '“', '‘', '„', '«', '「', '『', '(', '[', '-', '–', '—', '*', '•', '>':
		return true
	}
	return false
}

// closer returns the quote closing the opening quote r, or 0.
func closer(r rune) rune {
	switch r {
	case '"':
		return '"'
	case '\'', '‘':
		return '\''
	case '“', '„':
		return '”'
	case '«':
		return '»'
	case '「':
		return '」'
	case '『':
		return '』'
	}
	return 0
}

var monthNames = [12]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// The tables below are read-only after initialisation.

var months = func() map[string]int {
	m := make(map[string]int)
	for i, n := range monthNames {
		m[n] = i + 1
		m[n[:3]] = i + 1
	}
	m["sept"] = 9
	return m
}()

var weekdays = set("monday tuesday wednesday thursday friday saturday sunday tues weds thurs")

// numberWord returns the digits for a number word before a unit.
func numberWord(k []byte) (string, bool) {
	switch string(k) {
	case "one":
		return "1", true
	case "two":
		return "2", true
	case "three":
		return "3", true
	case "four":
		return "4", true
	case "five":
		return "5", true
	case "six":
		return "6", true
	case "seven":
		return "7", true
	case "eight":
		return "8", true
	case "nine":
		return "9", true
	case "ten":
		return "10", true
	case "eleven":
		return "11", true
	case "twelve":
		return "12", true
	case "thirteen":
		return "13", true
	case "fourteen":
		return "14", true
	case "fifteen":
		return "15", true
	case "sixteen":
		return "16", true
	case "seventeen":
		return "17", true
	case "eighteen":
		return "18", true
	case "nineteen":
		return "19", true
	case "twenty":
		return "20", true
	case "thirty":
		return "30", true
	case "forty":
		return "40", true
	case "fifty":
		return "50", true
	case "sixty":
		return "60", true
	case "seventy":
		return "70", true
	case "eighty":
		return "80", true
	case "ninety":
		return "90", true
	case "hundred":
		return "100", true
	}
	return "", false
}

var units = set(`
	second seconds sec secs minute minutes min mins hour hours hr hrs h
	day days week weeks wk wks month months year years yr yrs decade decades century centuries
	night nights weekend weekends semester semesters season seasons episode episode
	km kms kilometer kilometers kilometre kilometres m meter meters metre metres cm mm
	mi mile miles ft feet foot inch inches yard yards yd
	kg kgs kilo kilos kilogram kilograms g gram grams lb lbs pound pounds oz ounce ounces
	ton tons tonne tonnes stone
	l liter liters litre litres ml gallon gallons gal cup cups
	dollar dollars buck bucks euro euros cent cents yen usd eur gbp grand
	percent mph kph kmh calorie calories cal kcal degree degrees
	gb mb tb kb ghz mhz mp hp k bn
	times people person kid child children book page step steps rep reps set sets
	star stars point points`)

var tlds = set("com org net edu gov io co uk us ca de fr au in ai app dev me info biz tv ly gg xyz nl eu ch es it jp se no fi")

// isConnector reports whether k joins two parts of a name.
func isConnector(k []byte) bool {
	switch string(k) {
	case "of", "the", "de", "del", "della", "da", "di", "du", "la", "le", "van", "von", "der", "den", "y":
		return true
	}
	return false
}

// skipped reports whether k is never part of a name, though capitalised.
func skipped(k []byte) bool {
	switch string(k) {
	case "i", "i'm", "i've", "i'd", "i'll", "ok", "okay", "mr", "mrs", "ms", "mx", "dr", "prof", "sr", "jr":
		return true
	}
	return false
}

var titleCues = set(`called titled named entitled read reading reread watched watching
	book novel memoir movie film show series song songs album track podcast game play poem
	painting paintings class course documentary episode article blog channel`)

// stopWords are words that, capitalised at the start of a sentence, are
// not names: function words, question words, interjections, and the
// words conversations most often open with.
var stopWords = set(`
	a an the this that these those there here it its me my mine myself we our ours us ourselves
	you your yours yourself he him his she her hers they them their theirs i
	who whom whose what which when where why how whoever whatever whenever wherever however
	is am are was were be been being do does did doing done have has had having
	can could will would shall should may might must need ought
	and but or nor so yet for because since although though if unless until while as than then
	also too just only even still already again ever never always sometimes often usually
	maybe perhaps probably actually really very quite pretty almost
	in on at to from by with about of off over under into onto up down out after before during
	through between among around without within across against along behind beyond near
	not no yes yeah yep yup nope nah ok okay oh ah aw aww ahh hmm hm um uh wow whoa haha hahaha lol lmao
	omg hey hi hello bye goodbye thanks thank thx please sorry congrats congratulations cheers
	welcome great good nice cool awesome amazing wonderful fantastic lovely sweet perfect fun
	sure definitely absolutely totally exactly right true well alright anyway anyways btw plus
	besides speaking indeed glad happy sad excited sounds sound love loved hope wish guess
	let remember imagine tell check keep take make look see guys honestly seriously basically
	literally apparently luckily unfortunately fortunately hopefully finally recently lately
	today tonight tomorrow yesterday now soon later earlier once every each all any some
	many much more most few several both either neither other another such same
	first second third last next lots something anything everything nothing someone anyone
	everyone nobody somebody everybody
	one two three four five six seven eight nine ten
	went got made saw bought took met found felt thought knew told said gave came ran wrote
	kept left lost won began brought caught taught sent spent built tried
	going being having getting doing trying looking thinking feeling working
	looks seems sounds feels means reminds makes takes gets
	like likes want wants know knows think agreed agree yours
	dear note please wait stop listen ask email call text send visit try come
	our let's`)

func set(words string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(words) {
		m[w] = struct{}{}
	}
	return m
}

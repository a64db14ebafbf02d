package entities

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tWord  tokKind = iota // starts with a letter
	tNum                  // starts with a digit or a currency symbol and a digit
	tPunct                // a single rune of anything else
	tWeb                  // e-mail, URL, domain, #hashtag or @handle
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
	webStart, webEnd := -1, -1
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
			webStart, webEnd = webToken(s, i)
		}
		t := token{start: i, space: space, line: line}
		switch {
		case i == webStart:
			t.kind, t.end = tWeb, webEnd
		case isLetter(r):
			t.kind, t.end = tWord, scanWord(s, i)
		case isDigit(r):
			t.kind, t.end = tNum, scanWord(s, i)
		case strings.ContainsRune(currencies, r) && i+w < len(s) && isDigit(rune(s[i+w])):
			t.kind, t.end = tNum, scanWord(s, i+w)
		default:
			t.kind, t.end, t.r = tPunct, i+w, r
		}
		if line || len(toks) == 0 {
			t.sent = true
		} else if p := &toks[len(toks)-1]; p.kind == tPunct {
			// An opening quote starts a sentence of its own; other openers
			// (brackets, dashes, bullets) carry over the sentence start.
			t.sent = strings.ContainsRune(sentenceEnds, p.r) ||
				strings.ContainsRune(sentenceCarriers, p.r) && (p.sent || p.space && closer(p.r) != 0)
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

// webToken returns the bounds of an e-mail address, URL, domain, hashtag
// or handle that is the whole of the whitespace-delimited chunk starting
// at i, less surrounding punctuation, or -1, -1.
//
// bleve's web tokenizer (analysis/tokenizer/web) recognises the same
// kinds by regular expressions, but they disagree with these rules on
// about 1,200 chunks of the development data: handles cut after 15
// characters, hashtags at the first non-ASCII letter, "#5" taken as a
// tag, an e-mail with capitals split into a word and a @handle, bare
// domains left to the word tokenizer (which splits "Earth911.com"),
// "doi:10.1038/..." taken as a URL. It also
// costs 17 times as much per chunk, so it is not used; the rules here
// decide, over the tables in tables.go.
func webToken(s string, i int) (int, int) {
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
		if !strings.ContainsRune(webLeading, r) {
			break
		}
		a += w
	}
	for b > a {
		r, w := utf8.DecodeLastRuneInString(s[a:b])
		if !strings.ContainsRune(webTrailing, r) {
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
	for _, p := range urlPrefixes {
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
		if !isAlnum(c) && strings.IndexByte(emailSymbols, c) < 0 {
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
	return tlds.has(string(lowerKey(host[t:], buf[:])))
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

// closer returns the quote closing the opening quote r, or 0.
func closer(r rune) rune {
	for _, q := range quotes {
		if q.open == r {
			return q.close
		}
	}
	return 0
}

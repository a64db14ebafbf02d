package entities

import (
	"strings"
)

// number emits a number with its unit starting at token i ("5 km",
// "$1,200", "20%", "3 weeks", "two kids" -> "2 kids", "30th birthday") and
// returns the token after it, or i. Bare numbers are skipped: without a
// unit they rarely identify anything.
func (x *extractor) number(i int) int {
	t := x.toks[i]
	if t.kind == tWord {
		// Cheap tests first: this runs for every word.
		if w := x.word(i); len(w) < 3 || len(w) > 9 || strings.IndexByte(numberWordInitials, w[0]) < 0 ||
			i+1 >= len(x.toks) || x.toks[i+1].kind != tWord {
			return i
		}
		d, ok := numberWords[string(x.lower(i))]
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
		if x.in(i+1, clock) {
			return i + 2
		}
		return i + 1
	}
	var skey [12]byte
	sk := string(lowerKey(suf, skey[:]))
	switch {
	case suf == "%":
		x.emit(w)
		return i + 1
	case suf == "":
	case attachedMagnitudes.has(sk):
		x.emit(w)
		return i + 1
	case isOrdinal(sk):
		if x.content(i + 1) {
			x.emit(w, " ", x.word(i+1))
			return i + 2
		}
		return i + 1
	case strings.HasPrefix(suf, "-") || strings.HasPrefix(suf, "‐"):
		if units.has(string(lowerKey(strings.TrimLeft(suf, "-‐"), skey[:]))) || strings.Count(suf, "-") > 1 {
			x.emit(w) // "5-day", "3-year-old"
		}
		return i + 1
	default:
		if units.has(sk) {
			x.emit(cur, num, " ", suf)
		}
		return i + 1
	}

	j := i + 1
	if x.punct(j, '%') || x.in(j, percent) {
		x.emit(w, "%")
		return j + 1
	}
	if x.in(j, clock) {
		return j + 1 // a clock time
	}
	mag := ""
	if x.in(j, magnitudes) {
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

func isOrdinal(s string) bool { return ordinals.has(s) }

// unit reports whether token i is a unit or a counted plural noun that
// can follow a number: "km", "weeks", "dollars", "kids".
func (x *extractor) unit(i int) bool {
	if i >= len(x.toks) || x.toks[i].kind != tWord {
		return false
	}
	k := x.lower(i)
	if units.has(string(k)) {
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
	return !stopWords.has(string(k))
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
	return !stopWords.has(string(k))
}

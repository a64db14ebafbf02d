package entities

import (
	"bytes"
	"strconv"
	"strings"
)

// This file is the extractor's whole date grammar. The rest of the
// package calls only date (and isDate, which is date without emitting),
// and keeps a dateState per text for it, so that another date recogniser
// can take its place here alone.

// dateState is what the date recogniser keeps per text: nothing, for
// this grammar over the extractor's own tokens.
type dateState struct{}

// date emits the concrete date starting at token i and returns the token
// after it, or i. The forms: a full date as 2023-05-08 ("8 May, 2023",
// "May 8th 2023", "the 8th of May 2023", "2023-5-8"), a month and year as
// 2023-05 ("May 2023", "Sept. 2023", "2023-05"), a day and month as
// "may 8", a year on its own as written (1900-2099, not before a unit:
// "2000 people" is a quantity), and an all-digit date in day/month order
// as written ("12/05/2019"). An impossible day is dropped: "31 February
// 2023" gives 2023-02.
func (x *extractor) date(i int) int {
	t := x.toks[i]
	switch t.kind {
	case tNum:
		w := x.word(i)
		if x.numericDate(w) {
			return i + 1
		}
		if d := dayOf(w); d > 0 {
			k := i + 1
			if x.is(k, "of") {
				k++
			}
			if m, k2 := x.month(k); m > 0 && d <= monthDays[m-1] {
				if y, k3 := x.year(x.comma(k2)); y > 0 && validDay(y, m, d) {
					x.emitDate(y, m, d)
					return k3
				}
				x.emit(monthNames[m-1], " ", strconv.Itoa(d))
				return k2
			}
		}
		if y := bareYear(w); y > 0 && !x.unit(i+1) {
			x.emit(w)
			return i + 1
		}
	case tWord:
		m, k := x.month(i)
		if m == 0 {
			return i
		}
		if k < len(x.toks) && x.toks[k].kind == tNum {
			if d := dayOf(x.word(k)); d > 0 && d <= monthDays[m-1] && !x.unit(k+1) {
				if y, k3 := x.year(x.comma(k + 1)); y > 0 && validDay(y, m, d) {
					x.emitDate(y, m, d)
					return k3
				}
				x.emit(monthNames[m-1], " ", strconv.Itoa(d))
				return k + 1
			}
		}
		if y, k3 := x.year(x.comma(k)); y > 0 {
			x.emit(strconv.Itoa(y), "-", twoDigits(m))
			return k3
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

func (x *extractor) emitDate(y, m, d int) {
	x.emit(strconv.Itoa(y), "-", twoDigits(m), "-", twoDigits(d))
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}

// month returns the month named by token i (capitalised, full or
// abbreviated) and the token after it, skipping an abbreviation's dot.
func (x *extractor) month(i int) (int, int) {
	if i >= len(x.toks) || x.toks[i].kind != tWord {
		return 0, i
	}
	// Every word is asked; most are answered without a map lookup.
	if w := x.word(i); len(w) < 3 || len(w) > len("september") || strings.IndexByte(monthInitials, w[0]) < 0 {
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

// monthInitials are the capital initials of the months: only a
// capitalised word can name one.
var monthInitials = func() string {
	var b []byte
	for _, n := range monthNames {
		if c := n[0] - 'a' + 'A'; bytes.IndexByte(b, c) < 0 {
			b = append(b, c)
		}
	}
	return string(b)
}()

// comma skips a comma at i.
func (x *extractor) comma(i int) int {
	if x.punct(i, ',') {
		return i + 1
	}
	return i
}

// year returns the four-digit year at token i and the token after it.
func (x *extractor) year(i int) (int, int) {
	if i >= len(x.toks) || x.toks[i].kind != tNum {
		return 0, i
	}
	w := x.word(i)
	if len(w) != 4 || !allDigits(w) {
		return 0, i
	}
	y, _ := strconv.Atoi(w)
	if y < 1000 || y > 2999 {
		return 0, i
	}
	return y, i + 1
}

func bareYear(w string) int {
	if len(w) != 4 || !allDigits(w) {
		return 0
	}
	y, _ := strconv.Atoi(w)
	if y < 1900 || y > 2099 {
		return 0
	}
	return y
}

// dayOf parses "8", "08", "8th", "1st" as a day of the month, or returns 0.
func dayOf(w string) int {
	n := 0
	for n < len(w) && n < 3 && isDigit(rune(w[n])) {
		n++
	}
	if n == 0 || n > 2 {
		return 0
	}
	if suf := strings.ToLower(w[n:]); suf != "" && !isOrdinal(suf) {
		return 0
	}
	d, _ := strconv.Atoi(w[:n])
	if d < 1 || d > 31 {
		return 0
	}
	return d
}

var monthDays = [12]int{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func validDay(y, m, d int) bool {
	if m == 2 && d == 29 {
		return y%4 == 0 && (y%100 != 0 || y%400 == 0)
	}
	return d >= 1 && d <= monthDays[m-1]
}

// numericDate emits w if it is an all-digit date: ISO order is normalised
// ("2023-5-7" -> "2023-05-07", "2023-05" stays), day/month orders are
// ambiguous and kept as written.
func (x *extractor) numericDate(w string) bool {
	var parts [4]string
	n, sep := 0, byte(0)
	from := 0
	for i := 0; i <= len(w); i++ {
		if i < len(w) && isDigit(rune(w[i])) {
			continue
		}
		if i < len(w) {
			c := w[i]
			if c != '-' && c != '/' && c != '.' || sep != 0 && c != sep {
				return false
			}
			sep = c
		}
		if n == len(parts) || i == from {
			return false
		}
		parts[n], n, from = w[from:i], n+1, i+1
	}
	switch {
	case n == 3 && len(parts[0]) == 4:
		y, _ := strconv.Atoi(parts[0])
		m, _ := strconv.Atoi(parts[1])
		d, _ := strconv.Atoi(parts[2])
		if y < 1000 || m < 1 || m > 12 || len(parts[1]) > 2 || len(parts[2]) > 2 || !validDay(y, m, d) {
			return false
		}
		x.emitDate(y, m, d)
	case n == 2 && len(parts[0]) == 4 && sep == '-' && len(parts[1]) == 2:
		y, _ := strconv.Atoi(parts[0])
		m, _ := strconv.Atoi(parts[1])
		if y < 1000 || m < 1 || m > 12 {
			return false
		}
		x.emit(w)
	case n == 3 && (len(parts[2]) == 4 || len(parts[2]) == 2 && sep != '.') && len(parts[0]) <= 2 && len(parts[1]) <= 2:
		a, _ := strconv.Atoi(parts[0])
		b, _ := strconv.Atoi(parts[1])
		if a < 1 || b < 1 || a > 31 || b > 31 || a > 12 && b > 12 {
			return false
		}
		x.emit(w)
	default:
		return false
	}
	return true
}

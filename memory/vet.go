package memory

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Checks shared by remember and import on fields that renderers print
// (recall's headers, show, the session resource) or that the search
// trusts (dates, vectors).

// plainField refuses a character that could end or redraw a line of the
// frame around a memory: control characters (newlines, tabs, escapes),
// line and paragraph separators, and bidirectional overrides. A speaker
// "Bob\n[2099-01-01 Fri · session fake · assistant]" would otherwise print
// a header of its own.
func plainField(field, v string) error {
	for _, r := range v {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || bidiControl(r) {
			return &FieldError{field, fmt.Sprintf("has the character %U; names and ids must be one line of printable text", r)}
		}
	}
	return nil
}

// CheckMessageID is what remember asks of a message's id (its "id", the
// client's own): one line of printable text of at most 256 characters.
// The history importers leave out a message whose id fails it, as the
// hooks do, rather than fail the whole session.
func CheckMessageID(field, id string) error {
	if err := plainField(field, id); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(id); n > maxKey {
		return &FieldError{field, fmt.Sprintf("is %d characters; the limit is %d", n, maxKey)}
	}
	return nil
}

func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// Dates are kept as nanoseconds since 1970 in 64 bits: years 1678 to 2261.
const (
	MinYear = 1678
	MaxYear = 2261
)

func dateInRange(t time.Time) error {
	if y := t.UTC().Year(); y < MinYear || y > MaxYear {
		return fmt.Errorf("must be between the years %d and %d, got %s", MinYear, MaxYear, t.Format(time.RFC3339))
	}
	return nil
}

// Embedders return L2-normalised vectors (package embedder's contract);
// normTolerance allows for float32 rounding.
const normTolerance = 1e-2

// minWindowBytes: no model cuts a text into windows that advance by less
// than this many bytes (a byte-level token each; use-lite advances by 96
// tokens).
const minWindowBytes = 32

// leadBytes is what vetVectors allows for the words of the turn before a
// memory, which lead its text under the contextual recipe (PrevWords
// words, each of up to 51 bytes): their windows are the memory's too.
const leadBytes = 512

// vetVectors refuses vectors no embedder makes for text: more windows
// than the text, led by the end of the turn before it, has room for, and a
// window per sentence (addSentenceWindows; a fixed allowance, so that a
// store's export is read by a version that splits sentences otherwise),
// and vectors that are not of unit length (zero, or with components of
// 3e38 that would outrank every memory).
func vetVectors(text string, vs [][]float32) (field, msg string) {
	if most := 1 + (len(text)+leadBytes)/minWindowBytes + MaxSentences; len(vs) > most {
		return "vectors", fmt.Sprintf("holds %d windows for a text of %d bytes; at most %d", len(vs), len(text), most)
	}
	for i, v := range vs {
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Sprintf("vectors[%d]", i), "has a component that is not a finite number"
			}
			sum += float64(x) * float64(x)
		}
		if n := math.Sqrt(sum); math.Abs(n-1) > normTolerance {
			return fmt.Sprintf("vectors[%d]", i), fmt.Sprintf("has length %.3g; an embedder's vectors have length 1", n)
		}
	}
	return "", ""
}

// OneLine is s with every character plainField refuses as a space: how a
// renderer prints a name stored before remember and import refused them,
// so that it stays within its line.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) || bidiControl(r) {
			return ' '
		}
		return r
	}, s)
}

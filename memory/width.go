package memory

import (
	"strings"
	"unicode/utf8"

	"agentmem/memory/internal/script"
)

// units is the length of s as a recall's budget measures it, four to a
// token: a character is one, as common tokenizers read about four
// characters of English a token, and a character of the scripts they
// read about a character a token (script.Wide) is four. An ASCII text is
// its length in bytes. Counted in runes alone, a Chinese turn of 1,800
// characters was taken for 450 tokens.
func units(s string) int {
	n := utf8.RuneCountInString(s)
	if n == len(s) {
		return n // ASCII
	}
	for _, r := range s {
		if script.Wide(r) {
			n += 3
		}
	}
	return n
}

// firstPieces is text's words (script.Pieces) from its start for as long
// as fits takes the next one, joined as they were written, and whether
// one was left out.
func firstPieces(text string, fits func(piece string) bool) (string, bool) {
	var b strings.Builder
	cut := false
	for _, f := range strings.Fields(text) {
		script.Pieces(f, func(p string, glued bool) {
			if cut = cut || !fits(p); cut {
				return
			}
			if b.Len() > 0 && !glued {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		})
		if cut {
			break
		}
	}
	return b.String(), cut
}

// firstTokens is text cut, at a word, to about n tokens, and whether it
// was cut: a word of characters read about one a token (units) costs its
// units, any other word 0.75 of a token, as the budget reads English.
func firstTokens(text string, n int) (string, bool) {
	cost := 0 // in thirds of a token
	return firstPieces(text, func(p string) bool {
		c := 4
		if u := units(p); u != utf8.RuneCountInString(p) {
			c = 3 * u / 4
		}
		cost += c
		return cost <= 3*n
	})
}

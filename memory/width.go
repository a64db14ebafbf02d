package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// units is the length of s as a recall's budget measures it, four to a
// token: a character is one, as common tokenizers read about four
// characters of English a token, and a character of the scripts they
// read about a character a token is four (Han, Hiragana, Katakana with
// its prolonged sound mark, Hangul, CJK punctuation and full-width
// forms). An ASCII text is its length in bytes. Counted in runes alone,
// a Chinese turn of 1,800 characters was taken for 450 tokens.
func units(s string) int {
	n := utf8.RuneCountInString(s)
	if n == len(s) {
		return n // ASCII
	}
	for _, r := range s {
		if wide(r) {
			n += 3
		}
	}
	return n
}

// wide says whether r is of a script that tokenizers read about a
// character a token (see units).
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x3000 && r <= 0x303f, r == 0x30fc, r >= 0xff00 && r <= 0xffef:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// spaceless says whether r is of a script written without spaces between
// its words (Han, Hiragana, Katakana, with the Katakana prolonged sound
// mark ー): excerpts and query words take each such character as a word.
func spaceless(r rune) bool {
	return r >= 0x3040 && (r == 0x30fc || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana))
}

// pieces calls fn with each word of w, a run of text without spaces: w
// itself, or where it holds characters of a script written without
// spaces, each such character alone and each run of other characters
// between them; and a run of more than maxPiece characters (Korean or
// Thai typed without spaces, a key, a long URL) in parts of maxPiece, so
// that an excerpt or a preview can cut it. glued says the piece follows
// the one before it with no space between them.
func pieces(w string, fn func(piece string, glued bool)) {
	if plain(w) {
		fn(w, false)
		return
	}
	glued := false
	run := func(r string) { // a run without such characters
		for utf8.RuneCountInString(r) > maxPiece {
			cut := 0
			for range maxPiece {
				_, n := utf8.DecodeRuneInString(r[cut:])
				cut += n
			}
			fn(r[:cut], glued)
			r, glued = r[cut:], true
		}
		fn(r, glued)
		glued = true
	}
	start := 0
	for i, r := range w {
		if !spaceless(r) {
			continue
		}
		if start < i {
			run(w[start:i])
		}
		n := utf8.RuneLen(r)
		fn(w[i:i+n], glued)
		glued, start = true, i+n
	}
	if start < len(w) {
		run(w[start:])
	}
}

// maxPiece is the most characters a piece of a word holds (see pieces):
// longer than English's words, so that they stay whole.
const maxPiece = 24

// plain says whether w is one piece (see pieces): no longer than
// maxPiece bytes, so characters, and no character of a script written
// without spaces.
func plain(w string) bool { return len(w) <= maxPiece && !maySplit(w) }

// functionCharacter says whether r, a character of a script written
// without spaces read as a word of its own, is too common to be one of a
// query's words: a Hiragana character (the particles and endings that
// join Japanese words) or one of Chinese's commonest function
// characters, as "the" and "in" are not query words of English.
func functionCharacter(r rune) bool {
	if r >= 0x3041 && r <= 0x309f {
		return true
	}
	return strings.ContainsRune("的了在是我你他她它们这那哪里什么吗呢吧啊和与就都也还又很把被给对从到有个一不没", r)
}

// maySplit says whether w may hold a character of a script written
// without spaces: a byte that starts a character from U+3000 on.
func maySplit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0xe3 {
			return true
		}
	}
	return false
}

// firstTokens is text cut, at a word, to about n tokens, and whether it
// was cut: a word (see pieces) of characters read about one a token
// (units) costs its units, any other word 0.75 of a token, as the
// budget reads English; pieces are joined as they were written.
func firstTokens(text string, n int) (string, bool) {
	var b strings.Builder
	cost, cut := 0, false // in thirds of a token
	for _, f := range strings.Fields(text) {
		pieces(f, func(p string, glued bool) {
			if cut {
				return
			}
			c := 4
			if u := units(p); u != utf8.RuneCountInString(p) {
				c = 3 * u / 4
			}
			if cost+c > 3*n {
				cut = true
				return
			}
			if b.Len() > 0 && !glued {
				b.WriteByte(' ')
			}
			b.WriteString(p)
			cost += c
		})
		if cut {
			break
		}
	}
	return b.String(), cut
}

// Package script says how a text's characters read as words and tokens
// where scripts differ: which are written without spaces between words
// (Han, Hiragana, Katakana), which a tokenizer reads about one a token,
// and how a run of text without spaces splits into words. The recall's
// budget and excerpts (package memory) and the learned order's word scan
// (package hybrid) read words by the same rules.
package script

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wide says whether r is of a script that tokenizers read about a
// character a token: Han, Hiragana, Katakana with its prolonged sound
// mark, Hangul, CJK punctuation and full-width forms. Common tokenizers
// read about four characters of English a token.
func Wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x3000 && r <= 0x303f, r == 0x30fc, r >= 0xff00 && r <= 0xffef:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Spaceless says whether r is of a script written without spaces between
// its words (Han, Hiragana, Katakana, with the Katakana prolonged sound
// mark ー), from U+3000 on: each such character is read as a word.
func Spaceless(r rune) bool {
	return r >= 0x3000 && (r == 0x30fc || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana))
}

// FunctionCharacter says whether r, a character of a script written
// without spaces read as a word of its own, is too common to be one of a
// query's words: a Hiragana character (the particles and endings that
// join Japanese words) or one of Chinese's commonest function
// characters, as "the" and "in" are not query words of English.
func FunctionCharacter(r rune) bool {
	if r >= 0x3041 && r <= 0x309f {
		return true
	}
	return strings.ContainsRune("的了在是我你他她它们这那哪里什么吗呢吧啊和与就都也还又很把被给对从到有个一不没", r)
}

// MaxPiece is the most characters a piece of a word holds (see Pieces):
// longer than English's words, so that they stay whole.
const MaxPiece = 24

// Plain says whether w is one piece (see Pieces): no longer than
// MaxPiece bytes, so characters, and no character from U+3000 on.
func Plain(w string) bool {
	if len(w) > MaxPiece {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= 0xe3 { // the first byte of U+3000 and above
			return false
		}
	}
	return true
}

// Pieces calls fn with each word of w, a run of text without spaces: w
// itself, or where it holds characters of a script written without
// spaces, each such character alone and each run of other characters
// between them; and a run of more than MaxPiece characters (Korean or
// Thai typed without spaces, a key, a long URL) in parts of MaxPiece, so
// that an excerpt or a preview can cut it. glued says the piece follows
// the one before it with no space between them.
func Pieces(w string, fn func(piece string, glued bool)) {
	if Plain(w) {
		fn(w, false)
		return
	}
	glued := false
	run := func(r string) { // a run without such characters
		for utf8.RuneCountInString(r) > MaxPiece {
			cut := 0
			for range MaxPiece {
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
		if !Spaceless(r) {
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

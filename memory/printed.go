package memory

import (
	"strings"
	"unicode/utf8"
)

// Indent is a stored text as a renderer prints it inside its frame: each
// of its lines after the first begins with prefix, and the caller writes
// prefix before the first, so that no line of the text starts at the
// margin, where the frame's own lines (headers, speakers) start. Every
// line break a terminal or a model may honour counts: \n, \r\n, a bare
// \r, vertical tab, form feed, U+0085, U+2028 and U+2029, each written as
// one \n. Other control characters are shown (see visible): an escape
// sequence in a memory would otherwise recolour or redraw the terminal
// that prints it. What is stored is never changed: this is only what is
// printed of it.
func Indent(text, prefix string) string {
	if !strings.ContainsFunc(text, special) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 8*len(prefix))
	for i, r := range text {
		switch {
		case r == '\r' && strings.HasPrefix(text[i+1:], "\n"):
			// the \n that follows breaks the line
		case lineBreak(r):
			b.WriteByte('\n')
			b.WriteString(prefix)
		default:
			b.WriteRune(visible(r))
		}
	}
	return b.String()
}

// special says whether Indent changes r.
func special(r rune) bool { return lineBreak(r) || visible(r) != r }

func lineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// visible is how a character is printed for reading: a C0 control
// character (but tab) or DEL as its Control Pictures symbol (␀, ␇, ␛,
// ␡), a C1 control character as U+FFFD, which has no symbol; any other
// as itself.
func visible(r rune) rune {
	switch {
	case r == '\t':
		return r
	case r < 0x20:
		return 0x2400 + r
	case r == 0x7f:
		return 0x2421
	case r >= 0x80 && r <= 0x9f:
		return utf8.RuneError
	}
	return r
}

package memory

import "strings"

// Indent is a stored text as a renderer prints it inside its frame: each
// of its lines after the first begins with prefix, and the caller writes
// prefix before the first, so that no line of the text starts at the
// margin, where the frame's own lines (headers, speakers) start. Every
// line break a terminal or a model may honour counts: \n, \r\n, a bare
// \r, vertical tab, form feed, U+0085, U+2028 and U+2029, each written as
// one \n. What is stored is never changed: this is only what is printed
// of it.
func Indent(text, prefix string) string {
	if !strings.ContainsFunc(text, lineBreak) {
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
			b.WriteRune(r)
		}
	}
	return b.String()
}

func lineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

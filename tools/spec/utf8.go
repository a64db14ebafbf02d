package spec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// notUTF8 is a *FieldError naming the string of raw, a JSON text, that
// holds bytes that are not UTF-8, or nil when raw is UTF-8. encoding/json
// would read such bytes as U+FFFD without a word, and the memory would
// store a text that is not the one sent (an import refuses such a line
// the same way).
func notUTF8(raw []byte) error {
	if utf8.Valid(raw) { // the common case, at memory speed
		return nil
	}
	bad := -1
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			bad = i
			break
		}
		i += n
	}
	if bad < 0 {
		return nil
	}
	msg := fmt.Sprintf("is not valid UTF-8 (byte 0x%02x); send text as UTF-8", raw[bad])
	type frame struct {
		array   bool
		index   int
		key     string
		wantKey bool
	}
	var stack []frame
	path := func() string {
		p := ""
		for _, f := range stack {
			if f.array {
				p = fmt.Sprintf("%s[%d]", p, f.index)
			} else {
				p = join(p, f.key)
			}
		}
		return p
	}
	done := func() { // a value of the innermost container is read
		if len(stack) > 0 {
			if f := &stack[len(stack)-1]; f.array {
				f.index++
			} else {
				f.wantKey = true
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		from := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return &FieldError{Field: "arguments", Msg: msg}
		}
		in := int(from) <= bad && bad < int(dec.InputOffset())
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{wantKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = t, false
				if in {
					return &FieldError{Field: path(), Msg: "(a name) " + msg}
				}
				continue
			}
			if in {
				return &FieldError{Field: cmp.Or(path(), "arguments"), Msg: msg}
			}
			done()
		default:
			done()
		}
	}
}

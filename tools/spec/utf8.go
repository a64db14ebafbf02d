package spec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
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

// outOfRange is a *FieldError naming the first number of raw, a JSON
// text, too large for a float64 (1e400), or nil. encoding/json refuses
// such a number without saying which argument held it, and mcp-go, which
// decodes a call before any tool sees it, answers with its own error.
func outOfRange(raw []byte) error {
	if !mayOverflow(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil // not JSON: the decode that follows says so
	}
	return rangeIn(v, "")
}

// mayOverflow says whether raw may hold a number too large for a
// float64: a run of 300 digits or more, or a digit followed by an
// exponent of three digits or more (1e400). It reads raw once, strings
// included, where a decode would read it again: most calls have no such
// number, and a large remember is then not decoded a third time.
func mayOverflow(raw []byte) bool {
	digits := 0
	for i, c := range raw {
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits >= 300 {
				return true
			}
		case (c == 'e' || c == 'E') && digits > 0:
			j := i + 1
			if j < len(raw) && (raw[j] == '+' || raw[j] == '-') {
				j++
			}
			n := 0
			for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
				j, n = j+1, n+1
			}
			if n >= 3 {
				return true
			}
			digits = 0
		case c == '.' && digits > 0:
		default:
			digits = 0
		}
	}
	return false
}

func rangeIn(v any, path string) error {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			return &FieldError{Field: cmp.Or(path, "arguments"), Msg: fmt.Sprintf("%s is out of the range of a number", clip(string(x)))}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if err := rangeIn(x[k], join(path, k)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := rangeIn(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// OutOfRange is outOfRange for a tools/call request: the *FieldError of
// its arguments' first number too large for a float64, or nil.
func OutOfRange(request []byte) error {
	if !bytes.Contains(request, []byte(`"tools/call"`)) {
		return nil
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Arguments json.RawMessage `json:"arguments"` // held as sent
		} `json:"params"`
	}
	if json.Unmarshal(request, &req) != nil || req.Method != "tools/call" {
		return nil
	}
	return outOfRange(req.Params.Arguments)
}

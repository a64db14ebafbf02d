package spec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The checks of a call's raw JSON that encoding/json cannot make, or
// makes without naming the argument at fault: bytes that are not UTF-8,
// and escapes of half a surrogate pair ("\ud800"), both read as U+FFFD
// without a word, so that a memory would store a text that is not the
// one sent, and numbers too large for a float64 (refused
// naming no argument). Both find the argument by walkJSON.

// notUTF8 is a *FieldError naming the string of raw, a JSON text, that
// holds bytes that are not UTF-8 (an import refuses such a line the same
// way) or an escape of half a surrogate pair (loneSurrogate), or nil.
func notUTF8(raw []byte) error {
	bad, msg := 0, ""
	switch {
	case !utf8.Valid(raw):
		for bad < len(raw) {
			r, n := utf8.DecodeRune(raw[bad:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			bad += n
		}
		msg = fmt.Sprintf("is not valid UTF-8 (byte 0x%02x); send text as UTF-8", raw[bad])
	default:
		var ok bool
		if bad, ok = loneSurrogate(raw); !ok {
			return nil // the common case, at memory speed
		}
		msg = fmt.Sprintf("holds %s, half of a UTF-16 surrogate pair, which is no character; send text as UTF-8", raw[bad:bad+6])
	}
	err := walkJSON(raw, func(path string, _ json.Token, key bool, from, to int) error {
		switch {
		case bad < from || bad >= to:
			return nil
		case key:
			return &FieldError{Field: path, Msg: "(a name) " + msg}
		}
		return &FieldError{Field: cmp.Or(path, "arguments"), Msg: msg}
	})
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return fe
	}
	return &FieldError{Field: "arguments", Msg: msg}
}

// loneSurrogate finds an escape of half a UTF-16 surrogate pair in raw,
// a JSON text ("\ud800" without its low half after it, or a low half
// alone), which encoding/json reads as U+FFFD without a word, so that a
// memory would store a text that is not the one sent: the offset of its
// backslash. Outside strings valid JSON holds no backslash, so raw is
// read once, escape by escape.
func loneSurrogate(raw []byte) (int, bool) {
	if !bytes.Contains(raw, []byte(`\u`)) {
		return 0, false
	}
	high := -1 // the offset of a high half waiting for its low half
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		r, isU := rune(-1), raw[i+1] == 'u' && i+6 <= len(raw)
		if isU {
			if v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16); err == nil {
				r = rune(v)
			}
		}
		switch {
		case high >= 0 && (i != high+6 || r < 0xdc00 || r > 0xdfff):
			return high, true // a high half with no low half after it
		case high >= 0:
			high = -1 // a pair
		case 0xd800 <= r && r <= 0xdbff:
			high = i
		case 0xdc00 <= r && r <= 0xdfff:
			return i, true // a low half alone
		}
		if isU {
			i += 5
		} else {
			i++ // "\\", "\n": the escaped byte is no escape's start
		}
	}
	return high, high >= 0
}

// outOfRange is a *FieldError naming the first number of raw, a JSON
// text, too large for a float64 (1e400), or nil.
func outOfRange(raw []byte) error {
	if !mayOverflow(raw) {
		return nil
	}
	err := walkJSON(raw, func(path string, tok json.Token, _ bool, _, _ int) error {
		if n, ok := tok.(json.Number); ok {
			if _, err := strconv.ParseFloat(string(n), 64); err != nil {
				return &FieldError{Field: cmp.Or(path, "arguments"), Msg: fmt.Sprintf("%s is out of the range of a number", clip(string(n)))}
			}
		}
		return nil
	})
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return fe
	}
	return nil // not JSON: the decode that follows says so
}

// OutOfRange is outOfRange for a tools/call request: the *FieldError of
// its arguments' first number too large for a float64, or nil. mcp-go
// decodes a call before any tool sees it, refusing such a number with an
// error that names no argument.
func OutOfRange(request []byte) error {
	if !mayOverflow(request) || !bytes.Contains(request, []byte(`"tools/call"`)) {
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

// mayOverflow says whether raw may hold a number too large for a
// float64: a run of 300 digits or more, or a digit followed by an
// exponent of three digits or more (1e400). It reads raw once, strings
// included, so that most calls, which have no such number, are not
// decoded once more.
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

// walkJSON calls fn with every name and scalar of raw, a JSON text, in
// order: its path (messages[1].content, as the schema checks name a
// field), the token (numbers as json.Number, whatever their size),
// whether it is an object's name, and the bytes [from, to) it was read
// from. It stops at fn's first error, or at raw's end or first syntax
// error, and returns it.
func walkJSON(raw []byte, fn func(path string, tok json.Token, key bool, from, to int) error) error {
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
	dec.UseNumber()
	for {
		from := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		to := int(dec.InputOffset())
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{wantKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				done()
			}
			continue
		}
		if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = tok.(string), false
			if err := fn(path(), tok, true, from, to); err != nil {
				return err
			}
			continue
		}
		if err := fn(path(), tok, false, from, to); err != nil {
			return err
		}
		done()
	}
}

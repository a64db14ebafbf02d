package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// keyOrder is the order of an object's keys in a settings file as the
// user left it, and of the objects inside it (by key, and by position in
// an array), so that setup writes the file back in that order: a user's
// settings.json is theirs to read, and "your other servers and hooks stay,
// in their order" (docs/claude-code.md).
type keyOrder struct {
	keys  []string
	child map[string]*keyOrder
	elems []*keyOrder
}

// orderOf reads the key order of the JSON document b (nil for an empty or
// unreadable one: keys are then written sorted).
func orderOf(b []byte) *keyOrder {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	o, err := readOrder(d)
	if err != nil {
		return nil
	}
	return o
}

func readOrder(d *json.Decoder) (*keyOrder, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := &keyOrder{child: map[string]*keyOrder{}}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			c, err := readOrder(d)
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k)
			o.child[k] = c
		}
		_, err := d.Token() // }
		return o, err
	case json.Delim('['):
		o := &keyOrder{}
		for d.More() {
			c, err := readOrder(d)
			if err != nil {
				return nil, err
			}
			o.elems = append(o.elems, c)
		}
		_, err := d.Token() // ]
		return o, err
	}
	return nil, nil // a scalar
}

// indentOf is the indentation unit of the JSON text b: the leading
// whitespace of its first indented line ("  " when it has none).
func indentOf(b []byte) string {
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]; ws != "" && strings.TrimSpace(line) != "" {
			return ws
		}
	}
	return "  "
}

// encodeDocLike writes doc as encodeDoc does, but with the key order and
// the indentation of old, the file it was read from: keys old held come
// in its order, new ones after them, sorted.
func encodeDocLike(doc map[string]any, old []byte) []byte {
	var b bytes.Buffer
	writeValue(&b, doc, orderOf(old), indentOf(old), "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(w *bytes.Buffer, v any, o *keyOrder, unit, indent string) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			w.WriteString("{}")
			return
		}
		var keys []string
		if o != nil {
			for _, k := range o.keys {
				if _, ok := v[k]; ok && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		var rest []string
		for k := range v {
			if !slices.Contains(keys, k) {
				rest = append(rest, k)
			}
		}
		slices.Sort(rest)
		w.WriteString("{\n")
		for i, k := range append(keys, rest...) {
			var c *keyOrder
			if o != nil {
				c = o.child[k]
			}
			w.WriteString(indent + unit)
			writeScalar(w, k)
			w.WriteString(": ")
			writeValue(w, v[k], c, unit, indent+unit)
			if i < len(v)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case []any:
		if len(v) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, e := range v {
			var c *keyOrder
			if o != nil && i < len(o.elems) {
				c = o.elems[i]
			}
			w.WriteString(indent + unit)
			writeValue(w, e, c, unit, indent+unit)
			if i < len(v)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	default:
		writeScalar(w, v)
	}
}

// writeScalar writes v as JSON, its text as is (no \u003e for ">").
func writeScalar(w *bytes.Buffer, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		w.WriteString("null")
		return
	}
	w.Write(bytes.TrimRight(b.Bytes(), "\n"))
}

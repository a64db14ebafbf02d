package memory

import (
	"strings"
	"testing"
)

func TestNewTurns(t *testing.T) {
	mk := func(s string) []turn {
		var out []turn
		for _, f := range strings.Fields(s) {
			out = append(out, turn{Hash: f})
		}
		return out
	}
	str := func(ts []turn) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Hash)
		}
		return strings.Join(out, " ")
	}
	cases := []struct{ have, in, want string }{
		{"", "a b", "a b"},              // new session
		{"a b c", "a b c", ""},          // resend
		{"a b c", "b c", ""},            // resend of a part
		{"a b c", "a b c d e", "d e"},   // resend plus new turns
		{"a b c", "c d", "d"},           // overlap with the tail
		{"a b c", "d e", "d e"},         // only the new turns
		{"a b a", "a b a b", "b"},       // repeated turns
		{"ok ok", "ok ok ok", "ok"},     // a repeated short turn
		{"a b c", "x b c y", "x b c y"}, // no contiguous overlap: all new
	}
	for _, c := range cases {
		have := strings.Fields(c.have)
		if got := str(newTurns(have, mk(c.in))); got != c.want {
			t.Errorf("have %q, in %q: new = %q, want %q", c.have, c.in, got, c.want)
		}
	}
}

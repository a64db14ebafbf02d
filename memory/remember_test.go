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
	session := func(s string) []Memory {
		var out []Memory
		for i, f := range strings.Fields(s) {
			out = append(out, Memory{ID: MemoryID("s", i), Hash: f})
		}
		return out
	}
	// fresh is what newTurns leaves to store: the incoming turns it holds no id for
	fresh := func(in []turn, held []string) string {
		var out []string
		for i, t := range in {
			if held[i] == "" {
				out = append(out, t.Hash)
			}
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
		// a single turn that repeats an earlier one is new ("yes" twice in
		// one session), unless it repeats the last one
		{"yes delA", "yes", "yes"},
		{"yes delA yes", "delB", "delB"},
		{"a b c", "c", ""},
		// an exchange repeated later is new: only the tail is a resend
		{"yes delA no ok", "yes delA", "yes delA"},
		{"a b c d", "a b", "a b"},
		{"a b c d", "c d e", "e"},
	}
	for _, c := range cases {
		in := mk(c.in)
		held := newTurns(session(c.have), session(c.have), in, nil, nil)
		if got := fresh(in, held); got != c.want {
			t.Errorf("have %q, in %q: new = %q, want %q", c.have, c.in, got, c.want)
		}
	}
	// a resend maps each message to the memory that holds it
	held := newTurns(session("a b c"), session("a b c"), mk("b c d"), nil, nil)
	if held[0] != "s:1" || held[1] != "s:2" || held[2] != "" {
		t.Errorf("held = %q, want [s:1 s:2 \"\"]", held)
	}
}

// With client keys, a key decides: a held key is a resend whatever its
// text, and a new key is a new turn whatever its text.
func TestNewTurnsKeyed(t *testing.T) {
	have := []Memory{{ID: "s:0", Key: "m1", Hash: "yes"}, {ID: "s:1", Key: "m2", Hash: "del"}}
	in := []turn{{Key: "m1", Hash: "yes"}, {Key: "m3", Hash: "yes"}, {Key: "m2", Hash: "other"}}
	held := newTurns(have, have, in, nil, nil)
	if held[0] != "s:0" || held[1] != "" || held[2] != "s:1" {
		t.Errorf("held = %q", held)
	}
}

// A turn read live and then as forgotten (a forget between Remember's two
// reads) is compared once, as it was: a resend of the session matches it.
func TestWithForgottenComparesATurnOnce(t *testing.T) {
	var have []Memory
	var in []turn
	for i, h := range []string{"a", "b", "c", "d"} {
		have = append(have, Memory{ID: MemoryID("s", i), Turn: i, Hash: h})
		in = append(in, turn{Hash: h})
	}
	have = have[:3]
	gone := []Memory{{ID: have[1].ID, Turn: have[1].Turn, Hash: have[1].Hash}}
	seen, forgot := withForgotten(have, gone, nil)
	if len(seen) != 3 || len(forgot) != 0 {
		t.Fatalf("seen %d turns, forgot %v: want the 3 live turns once", len(seen), forgot)
	}
	if held := newTurns(have, seen, in, nil, nil); held[0] == "" || held[2] == "" || held[3] != "" {
		t.Errorf("held %q, want a b c held and d new", held)
	}
}

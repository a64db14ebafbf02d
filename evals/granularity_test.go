package evals

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCalls(t *testing.T) {
	u := Unit{Sessions: []Session{{ID: "s1", Date: time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC), Turns: []Turn{
		{Ref: "a", Role: "user", Speaker: "Ann", Text: "hi"},
		{Ref: "b", Role: "assistant", Speaker: "Bob", Text: "hello"},
		{Ref: "c", Role: "user", Speaker: "Ann", Text: "one"},
		{Ref: "d", Role: "user", Speaker: "Ann", Text: "   "},
		{Ref: "e", Role: "user", Speaker: "Ann", Text: "two"},
		{Ref: "f", Role: "assistant", Text: "reply"},
	}}}}
	for _, tc := range []struct {
		g        Granularity
		contents []string
		ids      map[string][]string // by the ids remember would give: m0, m1...
	}{
		{ByTurn, []string{"hi", "hello", "one", "two", "reply"},
			map[string][]string{"m0": {"a"}, "m1": {"b"}, "m2": {"c"}, "m3": {"e"}, "m4": {"f"}}},
		{ByRound, []string{"Ann: hi\nBob: hello", "one", "two\nassistant: reply"},
			map[string][]string{"m0": {"a", "b"}, "m1": {"c"}, "m2": {"e", "f"}}},
		{BySession, []string{"Ann: hi\nBob: hello\nAnn: one\nAnn: two\nassistant: reply"},
			map[string][]string{"m0": {"a", "b", "c", "e", "f"}}},
	} {
		t.Run(string(tc.g), func(t *testing.T) {
			calls := Calls(u, tc.g)
			if len(calls) != 1 {
				t.Fatalf("%d calls", len(calls))
			}
			var got []string
			for _, m := range calls[0].Messages {
				got = append(got, m.Content)
			}
			// The round of "two" and its reply starts with "Ann: ".
			if tc.g == ByRound {
				tc.contents[2] = "Ann: " + tc.contents[2]
			}
			if !reflect.DeepEqual(got, tc.contents) {
				t.Errorf("contents %q, want %q", got, tc.contents)
			}
			ids := IDMap{}
			ids.add(calls[0], serverIDs(len(calls[0].Messages)))
			for id, want := range tc.ids {
				if h := ids[id]; h.Session != "s1" || !reflect.DeepEqual(h.Refs, want) {
					t.Errorf("%s holds %+v, want session s1 and %v", id, h, want)
				}
			}
			if len(ids) != len(tc.ids) {
				t.Errorf("ids %v, want %v", ids, tc.ids)
			}
			if n := Turns(calls); n != 5 {
				t.Errorf("Turns = %d, want 5 (the blank turn is not stored)", n)
			}
		})
	}
}

func TestCallsSplitsLongText(t *testing.T) {
	long := strings.Repeat("é", maxMessage) // two bytes each: two messages
	u := Unit{Sessions: []Session{{ID: "s", Turns: []Turn{{Ref: "x", Role: "user", Text: long}}}}}
	calls := Calls(u, ByTurn)
	msgs := calls[0].Messages
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(msgs))
	}
	if msgs[0].Content+msgs[1].Content != long || len(msgs[0].Content) > maxMessage {
		t.Error("split lost text or exceeded the limit")
	}
	ids := IDMap{}
	ids.add(calls[0], serverIDs(2))
	if ids["m0"].Refs[0] != "x" || ids["m1"].Refs[0] != "x" {
		t.Errorf("both parts must map to the turn: %v", ids)
	}
}

// serverIDs are the ids a server might give n messages.
func serverIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("m%d", i)
	}
	return out
}

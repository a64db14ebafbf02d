package evals

import (
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
		ids      IDMap
	}{
		{ByTurn, []string{"hi", "hello", "one", "two", "reply"},
			IDMap{"s1:0": {"a"}, "s1:1": {"b"}, "s1:2": {"c"}, "s1:3": {"e"}, "s1:4": {"f"}}},
		{ByRound, []string{"Ann: hi\nBob: hello", "one", "two\nassistant: reply"},
			IDMap{"s1:0": {"a", "b"}, "s1:1": {"c"}, "s1:2": {"e", "f"}}},
		{BySession, []string{"Ann: hi\nBob: hello\nAnn: one\nAnn: two\nassistant: reply"},
			IDMap{"s1:0": {"a", "b", "c", "e", "f"}}},
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
			if ids := NewIDMap(calls); !reflect.DeepEqual(ids, tc.ids) {
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
	if ids := NewIDMap(calls); ids["s:0"][0] != "x" || ids["s:1"][0] != "x" {
		t.Errorf("both parts must map to the turn: %v", ids)
	}
}

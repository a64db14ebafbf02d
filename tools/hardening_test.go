package tools_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"agentmem/memory/store/embedded"
	"agentmem/tools/spec"
)

// Every date argument is refused by its length before it is parsed, with
// the field and the limit named: a megabyte date costs a length check, not
// a parse (issue 10: 1 MB of session_date once pinned a core for minutes).
func TestLongDatesRefused(t *testing.T) {
	c := connect(t)
	long := strings.Repeat("8 May 2023 ", 1<<20/11)
	msg := func(extra map[string]any) map[string]any {
		m := map[string]any{"role": "user", "content": "hello"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"remember", map[string]any{"messages": []any{msg(nil)}, "session_date": long}, "session_date"},
		{"remember", map[string]any{"messages": []any{msg(map[string]any{"timestamp": long})}}, "messages[0].timestamp"},
		{"recall", map[string]any{"query": "x", "after": long}, "after"},
		{"recall", map[string]any{"query": "x", "before": long}, "before"},
	}
	for _, tc := range cases {
		text, _, isErr := call(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.field+": ") || !strings.Contains(text, "64") {
			t.Errorf("%s with a 1 MiB %s: error=%v %.200q, want an error naming the field and the limit of 64", tc.tool, tc.field, isErr, text)
		}
	}
	if text, _, _ := call(t, c, "recall", map[string]any{"query": "hello"}); !strings.HasPrefix(text, testToday+"No stored memories match.\nNamespace default holds no memories, and no namespace readable here does.") {
		t.Errorf("a refused call stored something: %q", text)
	}
}

// Dates outside the range the index can hold (1678 to 2261) are client
// errors naming the field and the range, never stored dates that no
// filter matches, and never internal errors.
func TestDatesOutOfRange(t *testing.T) {
	c := connect(t)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}}, "session_date": "1600-01-01"}, "session_date"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}}, "session_date": "2262-05-01T00:00:00Z"}, "session_date"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x", "timestamp": "9999-12-31"}}}, "messages[0].timestamp"},
		{"recall", map[string]any{"query": "x", "after": "1677-09-20"}, "after"},
		{"recall", map[string]any{"query": "x", "after": "0001-01-01T00:00:00Z"}, "after"},
		{"recall", map[string]any{"query": "x", "before": "2262-04-12"}, "before"},
	} {
		text, _, isErr := call(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, "invalid argument "+tc.field+": ") || !strings.Contains(text, "1678-2261") || strings.Contains(text, "internal") {
			t.Errorf("%s %v: error=%v %q, want a client error naming %s and the range 1678-2261", tc.tool, tc.args, isErr, text, tc.field)
		}
	}
	// the edges of the range are stored and filtered like any date
	ctx := context.Background()
	for _, d := range []string{"1678-01-01", "2261-12-31"} {
		if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s-" + d[:4], SessionDate: d, Messages: []spec.Message{{Role: "user", Content: "edge of time"}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct{ after, before, want string }{
		{"", "1678-01-01", "s-1678"},
		{"2261-12-31", "", "s-2261"},
	} {
		rec, _, err := c.Recall(ctx, spec.RecallArgs{Query: "edge of time", After: f.after, Before: f.before})
		if err != nil || len(rec.Memories) != 1 || rec.Memories[0].SessionID != f.want {
			t.Errorf("after %q before %q: %+v %v, want only %s", f.after, f.before, rec.Memories, err, f.want)
		}
	}
}

// Every float argument is bounded, and at its bounds (and just inside
// them) every result is finite and encodes as JSON (issue 10: weights.text
// 1e308 gave NaN scores, a result no client ever received).
func TestExtremeWeightsEncode(t *testing.T) {
	c := connectWith(t, embedded.Options{NoSync: true})
	ctx := context.Background()
	for i, text := range []string{"Caroline ran the Boston marathon in May 2023.", "Melanie painted a lake last week.", "yes", "Boston, Boston, Boston marathon"} {
		if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s" + string(rune('a'+i)), SessionDate: "2023-05-0" + string(rune('1'+i)),
			Messages: []spec.Message{{Role: "user", Content: text, Speaker: "Caroline"}, {Role: "assistant", Content: "Tell me more about " + text}}}); err != nil {
			t.Fatal(err)
		}
	}
	// beyond the bounds: refused, naming the field
	for _, w := range []map[string]any{{"text": 1e308}, {"vector": math.MaxFloat64}, {"entity": 101}, {"text": -1}, {"time": 1e308}, {"time": -1e-300}, {"adjacent": 1.5}, {"adjacent": -0.5}} {
		text, _, isErr := call(t, c, "recall", map[string]any{"query": "Boston marathon", "weights": w})
		if !isErr || !strings.Contains(text, "invalid argument weights.") {
			t.Errorf("weights %v: error=%v %q, want an error naming the weight", w, isErr, text)
		}
	}
	tiny := math.SmallestNonzeroFloat64
	one := func(v float64) *float64 { return &v }
	weights := []spec.Weights{
		{Text: 100, Vector: 100, Entity: 100, Time: one(100), Adjacent: one(1), RankConstant: 1},
		{Text: tiny, Vector: tiny, Entity: tiny, Time: one(tiny), Adjacent: one(tiny), RankConstant: 1000},
		{Text: 100, Entity: tiny, Time: one(100), RankConstant: 1},
		{Text: tiny, Entity: 100, Time: one(0)},
	}
	excerpt := 1
	for _, w := range weights {
		for _, fusion := range []string{"rrf", "rsf", "text"} {
			for _, q := range []string{"Boston marathon in May 2023 last week", "yes", "zzz"} {
				args := spec.RecallArgs{Query: q, K: 100, Pool: 1000, Fusion: fusion, Weights: &w, Context: 3, Excerpt: &excerpt, Format: "json"}
				_, raw, isErr := call(t, c, "recall", args)
				if isErr {
					t.Errorf("recall %+v %+v: an error", args, w)
					continue
				}
				var res spec.RecallResult
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatalf("result does not decode: %v", err)
				}
				for _, m := range res.Memories {
					if math.IsNaN(m.Score) || math.IsInf(m.Score, 0) {
						t.Errorf("weights %+v fusion %s: score %v", w, fusion, m.Score)
					}
				}
				if math.IsNaN(res.TimeBoost) || math.IsInf(res.TimeBoost, 0) {
					t.Errorf("time boost %v", res.TimeBoost)
				}
				if _, err := json.Marshal(res); err != nil {
					t.Errorf("weights %+v: %v", w, err)
				}
			}
		}
	}
}

// The weights that measurement rejected and that were removed
// (neighbours, session, diversity: EVALS.md, "Recall defaults") are refused
// by name, never ignored: a client that still sends one learns it is gone.
func TestRemovedWeightsRefused(t *testing.T) {
	c := connectWith(t, embedded.Options{NoSync: true})
	for _, name := range []string{"neighbours", "session", "diversity"} {
		text, _, isErr := call(t, c, "recall", map[string]any{"query": "greyhound", "weights": map[string]any{name: 0.5}})
		if !isErr || !strings.Contains(text, "invalid argument weights."+name+": is not an argument") {
			t.Errorf("weights.%s: error=%v %q, want an error naming it", name, isErr, text)
		}
	}
}

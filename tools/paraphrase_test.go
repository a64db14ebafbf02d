package tools_test

import (
	"context"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/embedder/uselite"
	"agentmem/memory/store/embedded"
)

// With the built-in model, recall finds a memory that shares no content
// word with the question, through the tools, among distractors.
func TestBuiltinParaphraseRecall(t *testing.T) {
	ctx := context.Background()
	model, err := uselite.New()
	if err != nil {
		t.Fatal(err)
	}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: model.ID(), Dims: model.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := memory.New(memory.Options{Store: st, Embedder: model})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, svc)
	memories := []string{
		"My daughter started learning the violin at school.",
		"I finally fixed the leaking tap in the bathroom last weekend.",
		"We are flying to Japan in April to see the cherry blossoms.",
		"My doctor told me to cut down on coffee because of my blood pressure.",
		"I adopted a rescue greyhound; he sleeps all day.",
		"The quarterly report is due on Friday and my manager is stressed.",
		"I've been baking sourdough bread every Sunday morning.",
		"My car's battery died again, so I took the bus to work.",
	}
	var msgs []any
	for _, m := range memories {
		msgs = append(msgs, map[string]any{"role": "user", "content": m})
	}
	call(t, c, "remember", map[string]any{"session_id": "s1", "session_date": "2023-05-07", "messages": msgs})
	cases := []struct{ query, want string }{
		{"Which musical instrument is my kid studying?", "violin"},
		{"Where am I going on holiday this spring?", "Japan"},
		{"What pet do I have?", "greyhound"},
		{"How did I get to the office when my vehicle would not start?", "bus"},
		{"What did my physician advise about my diet?", "coffee"},
	}
	for _, tc := range cases {
		// the vector ranking alone puts the paraphrased memory first
		text, _, isErr := call(t, c, "recall", map[string]any{"query": tc.query, "k": 1, "fusion": "vector"})
		if isErr || !strings.Contains(text, tc.want) {
			t.Errorf("vector recall %q = %q, want the memory about %s", tc.query, text, tc.want)
		}
		// hybrid keeps it near the top even when a common word ("start" in
		// "started") gives a distractor a BM25 match
		text, _, isErr = call(t, c, "recall", map[string]any{"query": tc.query, "k": 3})
		if isErr || !strings.Contains(text, tc.want) {
			t.Errorf("hybrid recall %q = %q, want the memory about %s in the top 3", tc.query, text, tc.want)
		}
	}
}

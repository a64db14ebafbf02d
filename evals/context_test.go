package evals

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The context shown to the answer model with the prefix on is exactly the
// recall tool's own text rendering; without it, the bare texts.
func TestContextMatchesToolText(t *testing.T) {
	st, e := openStore(t)
	ctx := context.Background()
	conn, err := InProcess{Store: st, Embedder: e}.Dial(ctx, time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	u := loadLoCoMo(t).Units[0]
	for _, c := range Calls(u, ByTurn) {
		if err := conn.Remember(ctx, "ctx", c); err != nil {
			t.Fatal(err)
		}
	}
	ms, text, err := conn.Recall(ctx, map[string]any{"query": "golden retriever dog", "k": 3, "namespace": "ctx"})
	if err != nil {
		t.Fatal(err)
	}
	if got := Context(ms, false); got != text {
		t.Errorf("context with prefix:\n%s\nwant the tool's text:\n%s", got, text)
	}
	bare := Context(ms, true)
	if strings.Contains(bare, "[20") || !strings.Contains(bare, "golden retriever") {
		t.Errorf("context without prefix:\n%s", bare)
	}
}

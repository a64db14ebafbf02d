package evals

import (
	"context"
	"strings"
	"testing"
	"time"
)

// storedConn is an in-process connection whose namespace ns holds the
// first LoCoMo fixture conversation, turn by turn.
func storedConn(t testing.TB, ns string) *Conn {
	t.Helper()
	st, e := openStore(t)
	ctx := context.Background()
	conn, err := InProcess{Store: st, Embedder: e}.Dial(ctx, time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	for _, c := range Calls(loadLoCoMo(t).Units[0], ByTurn) {
		if err := conn.Remember(ctx, ns, c); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// The context shown to the answer model with the prefix on is exactly the
// recall tool's own text rendering; without it, the bare texts.
func TestContextMatchesToolText(t *testing.T) {
	ctx := context.Background()
	conn := storedConn(t, "ctx")
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

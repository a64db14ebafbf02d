package evals

import (
	"agentmem/tools/client"
	"agentmem/tools/spec"
	"context"
	"strings"
	"testing"
	"time"
)

// storedConn is an in-process connection whose namespace ns holds the
// first LoCoMo fixture conversation, turn by turn.
func storedConn(t testing.TB, ns string) *client.Client {
	t.Helper()
	ctx := context.Background()
	conn, err := inProcess(t).Dial(ctx, time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	for _, c := range Calls(loadLoCoMo(t).Units[0], ByTurn) {
		if _, err := remember(ctx, conn, ns, c); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// The context shown to the answer model with the prefix on is exactly the
// recall tool's own text; without it, the same text without the header
// lines, and a recency cut keeps whole memories.
func TestContextIsToolText(t *testing.T) {
	ctx := context.Background()
	conn := storedConn(t, "ctx")
	res, text, err := conn.Recall(ctx, spec.RecallArgs{Query: "golden retriever dog", K: 3, Namespace: "ctx"})
	if err != nil {
		t.Fatal(err)
	}
	if got := Context(text, false); got != text {
		t.Errorf("context with prefix:\n%s\nwant the tool's text:\n%s", got, text)
	}
	bare := Context(text, true)
	if strings.Contains(bare, " · session ") || !strings.Contains(bare, "golden retriever") {
		t.Errorf("context without prefix:\n%s", bare)
	}
	// the bare text is the memories' texts, as the server rendered them
	// (with its date annotations), one block each
	for i, b := range memoryBlocks(bare) {
		if first := strings.Fields(res.Memories[i].Text)[0]; !strings.HasPrefix(b, first) {
			t.Errorf("block %d %q does not start with memory %d's text %q", i, b, i, res.Memories[i].Text)
		}
	}
	if blocks := memoryBlocks(text); len(blocks) != len(res.Memories) {
		t.Errorf("%d blocks for %d memories", len(blocks), len(res.Memories))
	}
	one := firstMemories(text, 1)
	if !strings.HasPrefix(text, one) || !strings.Contains(one, res.Memories[0].Text) || strings.Contains(one, res.Memories[1].Text) {
		t.Errorf("first memory of\n%s\nis\n%s", text, one)
	}
}

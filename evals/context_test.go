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
// lines, and a recency cut keeps the first k memories, inside a passage of
// several turns too.
func TestContextIsToolText(t *testing.T) {
	ctx := context.Background()
	conn := storedConn(t, "ctx")
	res, text, err := conn.Recall(ctx, spec.RecallArgs{Query: "golden retriever dog", K: 3, Namespace: "ctx"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "Today is ") {
		t.Errorf("recall's text does not start with the date:\n%s", text)
	}
	text = WithoutToday(text)
	if strings.Contains(text, "Today is") {
		t.Errorf("WithoutToday left the date in:\n%s", text)
	}
	if got := Context(text, false); got != text {
		t.Errorf("context with prefix:\n%s\nwant the tool's text:\n%s", got, text)
	}
	bare := Context(text, true)
	if strings.Contains(bare, " · session ") || !strings.Contains(bare, "golden retriever") {
		t.Errorf("context without prefix:\n%s", bare)
	}
	passages := res.Memories[len(res.Memories)-1].Passage + 1
	if blocks := passageBlocks(text); len(blocks) != passages {
		t.Errorf("%d blocks for %d passages:\n%s", len(blocks), passages, text)
	}
	if len(passageBlocks(bare)) != passages {
		t.Errorf("without prefix, %d blocks for %d passages", len(passageBlocks(bare)), passages)
	}
	grouped := false
	for k := 1; k <= len(res.Memories); k++ {
		cut := firstMemories(text, res.Memories, k)
		if !strings.HasPrefix(text, cut) || strings.HasSuffix(cut, "\n…") {
			t.Errorf("k=%d: the cut is not the text's beginning, or ends on a gap:\n%s", k, cut)
		}
		// memories in the cut: a header naming a speaker, or a speaker's line
		n := 0
		for _, l := range strings.Split(cut, "\n") {
			if header.MatchString(l) && strings.Count(l, " · ") == 2 {
				n++
			}
			for _, m := range res.Memories {
				if saysWho(l, m) {
					n++
					grouped = true
					break
				}
			}
		}
		if n != k {
			t.Errorf("k=%d: the cut shows %d memories:\n%s", k, n, cut)
		}
	}
	if !grouped {
		t.Errorf("no passage of several turns to cut inside:\n%s", text)
	}
}

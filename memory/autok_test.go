package memory_test

import (
	"fmt"
	"testing"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// k grows with the history: DefaultK up to AutoKFrom memories, then
// one more for each quarter more (10 a tenfold), up to AutoKMost.
func TestAutoK(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{0, 10}, {600, 10}, {1000, 10}, {1200, 11}, {2000, 13}, {5152, 17}, {10000, 20}, {1000000, 20},
	} {
		if got := memory.AutoK(c.n); got != c.want {
			t.Errorf("AutoK(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// A recall that names no k takes AutoK of its namespace's memories (the
// embedded store counts them), and says which; one that names a k, or
// searches one session, takes its own or DefaultK.
func TestRecallTakesKFromTheHistory(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "autok"})
	const sessions, turns = 60, 25 // 1,500 memories: k 12
	for s := range sessions {
		req := memory.RememberRequest{Namespace: "big", SessionID: fmt.Sprintf("s%02d", s), SessionDate: "2023-05-01"}
		for i := range turns {
			req.Messages = append(req.Messages, memory.Message{Role: "user", Content: fmt.Sprintf("turn %d of session %d about the garden and the bees", i, s)})
		}
		if _, err := svc.Remember(bg, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "small", Messages: []memory.Message{{Role: "user", Content: "the garden"}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req  memory.RecallRequest
		want int
	}{
		{memory.RecallRequest{Query: "bees", Namespace: "big"}, memory.AutoK(sessions * turns)},
		{memory.RecallRequest{Query: "bees", Namespace: "big", K: 5}, 5},
		{memory.RecallRequest{Query: "bees", Namespace: "big", SessionID: "s07"}, memory.DefaultK},
		{memory.RecallRequest{Query: "garden", Namespace: "small"}, memory.DefaultK},
		{memory.RecallRequest{Query: "garden", Namespace: "empty"}, memory.DefaultK},
	} {
		res, err := svc.Recall(bg, c.req)
		if err != nil {
			t.Fatal(err)
		}
		if res.K != c.want || c.req.SessionID == "" && c.req.Namespace == "big" && len(res.Hits) != c.want {
			t.Errorf("%+v: k %d with %d hits, want k %d", c.req, res.K, len(res.Hits), c.want)
		}
	}
	if memory.AutoK(sessions*turns) == memory.DefaultK {
		t.Fatal("the history is too small to test AutoK")
	}
}

package memory_test

import (
	"fmt"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// BenchmarkDigest times digests in a history of 2,000 sessions of 20
// turns, four sessions a day: of a period that holds every session ("in
// the last 100 years": the listing of the sessions, the turns of the 3k
// read, their ranking), of a week (28 sessions; the listing costs the
// same), and, to compare, a search that names the same week.
func BenchmarkDigest(b *testing.B) {
	st, err := embedded.Open(bg, b.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	for s := range 2000 {
		req := memory.RememberRequest{Namespace: "n", SessionID: fmt.Sprintf("s%04d", s), SessionDate: now.AddDate(0, 0, -s/4).Format(time.DateOnly)}
		for i := range 20 {
			req.Messages = append(req.Messages, memory.Message{Role: "user", Content: fmt.Sprintf("Turn %d of session %d: we moved the billing queue %d and fixed the flaky websocket test with a longer timeout.", i, s, i)})
		}
		if _, err := svc.Remember(bg, req); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, query string
		digest      bool
		sessions    int
	}{
		{"century", "What did we do in the last 100 years?", true, 2000},
		{"week", "What did we do last week?", true, 28},
		{"search", "How did we fix the flaky websocket test last week?", false, 0},
	} {
		req := memory.RecallRequest{Query: c.query, Namespace: "n", Fill: true, Excerpt: memory.DefaultExcerpt}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := svc.Recall(bg, req)
				if err != nil || res.Digest != c.digest || res.Sessions != c.sessions {
					b.Fatalf("digest %v of %d sessions, %v", res.Digest, res.Sessions, err)
				}
			}
		})
	}
}

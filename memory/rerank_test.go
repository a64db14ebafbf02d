package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// scripted is a reranker whose scores come from score(document); it keeps
// what it was sent.
type scripted struct {
	score   func(doc string) float64
	err     error
	block   bool          // wait for the caller to give up
	entered chan struct{} // closed when a blocking call has begun
	mu      sync.Mutex
	query   string
	docs    []string
	calls   int
}

func (r *scripted) ID() string { return "rerank:scripted" }

func (r *scripted) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	r.mu.Lock()
	r.query, r.docs = query, docs
	r.calls++
	r.mu.Unlock()
	if r.block {
		close(r.entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i] = r.score(d)
	}
	return out, nil
}

// openReranked is open with a reranker.
func openReranked(t *testing.T, r memory.Reranker, candidates int) *memory.Service {
	t.Helper()
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Reranker: r, RerankCandidates: candidates, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	// thirty notes on the garden: five short ones, which BM25 puts first,
	// then the one that answers, then longer ones
	var msgs []memory.Message
	for i := range 30 {
		c := fmt.Sprintf("Note %d: the garden.", i)
		if i >= 5 {
			c = fmt.Sprintf("Note %d: the garden, then the shed, the fence, the path, the gate, the hedge, the pond, the bench, the lawn and the wall.", i)
		}
		msgs = append(msgs, memory.Message{Role: "user", Speaker: "Maria", Content: c})
	}
	msgs[17].Content = "Yesterday the garden had its first tomato: RIPE."
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "answer_7f3a", SessionDate: "2023-05-08", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	return svc
}

func ripeFirst(doc string) float64 {
	if strings.Contains(doc, "RIPE") {
		return 9
	}
	return -float64(len(doc)) // the rest: any order but the fused one
}

func TestRerankerOrdersTheFusedCandidates(t *testing.T) {
	r := &scripted{score: ripeFirst}
	svc := openReranked(t, r, 0)
	plain, err := svc.Recall(bg, memory.RecallRequest{Query: "the garden last week", Namespace: "n", K: 3, Reranker: new(false)})
	if err != nil {
		t.Fatal(err)
	}
	if r.calls != 0 || plain.Reranker != "" {
		t.Fatalf("reranker: false still reranked (%d calls, %q)", r.calls, plain.Reranker)
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "the garden last week", Namespace: "n", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranker != "rerank:scripted" || res.RerankError != "" {
		t.Errorf("result names reranker %q, error %q", res.Reranker, res.RerankError)
	}
	if len(res.Hits) != 3 || !strings.Contains(res.Hits[0].Memory.Text, "RIPE") || res.Hits[0].Score != 9 {
		t.Fatalf("first hit %+v, want the one the reranker scored 9", res.Hits[0])
	}
	// it was among the fused candidates, though not first among them
	if res.Hits[0].FusedRank < 2 {
		t.Errorf("fused rank %d, want below the first", res.Hits[0].FusedRank)
	}
	// candidates: 4k, and never fewer than at the default k (40): all 30
	if len(r.docs) != 30 {
		t.Errorf("the reranker was sent %d memories, want all 30", len(r.docs))
	}
	for _, d := range r.docs {
		if strings.Contains(d, "answer_7f3a") || strings.Contains(d, "Maria (user)") == false || !strings.HasPrefix(d, "2023-05-08 Mon · ") {
			t.Fatalf("document %q: want its date and speaker, never its session id", d)
		}
	}
	if !strings.Contains(r.query, "last week [2023-05-") {
		t.Errorf("query sent %q, want its relative date resolved against today", r.query)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("hits not in the reranker's order: %v then %v", res.Hits[i-1].Score, res.Hits[i].Score)
		}
	}
	if !strings.Contains(res.Text(), "RIPE") {
		t.Error("the text does not show the reranked hit")
	}
}

func TestRerankerCandidates(t *testing.T) {
	r := &scripted{score: ripeFirst}
	svc := openReranked(t, r, 25)
	if _, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 2, Excerpt: 40, Fill: true}); err != nil {
		t.Fatal(err)
	}
	if len(r.docs) != 25 {
		t.Errorf("sent %d, want the 25 configured", len(r.docs))
	}
	// fewer than the fill's 4k: the recall returns only memories the
	// reranker read, and never fewer candidates than k
	for _, c := range []struct{ n, k, sent int }{{6, 5, 6}, {2, 5, 5}, {1, 1, 1}} {
		r := &scripted{score: ripeFirst}
		res, err := openReranked(t, r, c.n).Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: c.k, Excerpt: 40, Fill: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.docs) != c.sent {
			t.Errorf("%d candidates, k=%d: sent %d, want %d", c.n, c.k, len(r.docs), c.sent)
		}
		for i, h := range res.Hits {
			if h.FusedRank == 0 || res.Reranker == "" {
				t.Errorf("%d candidates, k=%d: hit %d was not reranked (%q)", c.n, c.k, i, res.Reranker)
			}
		}
	}
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := memory.New(memory.Options{Store: st, Reranker: r, RerankCandidates: memory.MaxK + 1}); err == nil || !strings.Contains(err.Error(), "rerank candidates") {
		t.Errorf("%d candidates: %v, want an error naming the limit", memory.MaxK+1, err)
	}
}

// A reranker that fails leaves the fused order, says why, and fails no
// recall; one the caller gives up on fails the recall.
func TestRerankerFailure(t *testing.T) {
	for name, r := range map[string]memory.Reranker{
		"error":       &scripted{err: errors.New("status 503: loading model")},
		"wrong count": short{},
	} {
		t.Run(name, func(t *testing.T) {
			svc := openReranked(t, r, 0)
			plain, err := svc.Recall(bg, memory.RecallRequest{Query: "garden tomato", Namespace: "n", K: 5, Reranker: new(false)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := svc.Recall(bg, memory.RecallRequest{Query: "garden tomato", Namespace: "n", K: 5})
			if err != nil {
				t.Fatalf("a failed reranker failed the recall: %v", err)
			}
			if res.RerankError == "" || res.Reranker != "" {
				t.Errorf("reranker %q, error %q: want the error said", res.Reranker, res.RerankError)
			}
			if fmt.Sprint(ids(res.Hits)) != fmt.Sprint(ids(plain.Hits)) {
				t.Errorf("hits %v, want the fused %v", ids(res.Hits), ids(plain.Hits))
			}
		})
	}
	t.Run("paused after a failure", func(t *testing.T) {
		r := &scripted{err: errors.New("no answer within 10s")}
		svc := openReranked(t, r, 0)
		first, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5})
		if err != nil || !strings.Contains(first.RerankError, "no answer within") {
			t.Fatalf("first recall: %v, %q", err, first.RerankError)
		}
		second, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5})
		if err != nil || r.calls != 1 || !strings.Contains(second.RerankError, "not asked") || len(second.Hits) != 5 {
			t.Errorf("second recall: %v, %d calls, %q: want it answered without asking the failed reranker", err, r.calls, second.RerankError)
		}
	})
	t.Run("caller gives up", func(t *testing.T) {
		r := &scripted{block: true, entered: make(chan struct{})}
		svc := openReranked(t, r, 0)
		ctx, cancel := context.WithCancel(bg)
		go func() { <-r.entered; cancel() }() // only once the reranker keeps the recall waiting
		if _, err := svc.Recall(ctx, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5}); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want the caller's", err)
		}
		// and the reranker that kept it waiting is paused
		res, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5})
		if err != nil || !strings.Contains(res.RerankError, "not asked") {
			t.Errorf("the recall after: %v, %q", err, res.RerankError)
		}
	})
}

// short drops the last score.
type short struct{}

func (short) ID() string { return "rerank:short" }
func (short) Rerank(ctx context.Context, q string, docs []string) ([]float64, error) {
	return make([]float64, len(docs)-1), nil
}

func ids(hits []memory.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Memory.ID)
	}
	return out
}

func TestRerankerAskedForButNone(t *testing.T) {
	svc := open(t, nil)
	_, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5, Reranker: new(true)})
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field != "reranker" {
		t.Errorf("error %v, want a field error naming reranker", err)
	}
}

// A long memory is sent as its part that matches the query, not its start.
func TestRerankerReadsTheMatchingPart(t *testing.T) {
	r := &scripted{score: ripeFirst}
	svc := openReranked(t, r, 0)
	long := strings.Repeat("We talked about the weather and the traffic for a while. ", 40) + "The kiwi vine finally fruited."
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "s2", SessionDate: "2023-05-09",
		Messages: []memory.Message{{Role: "user", Content: long}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Recall(bg, memory.RecallRequest{Query: "kiwi vine", Namespace: "n", K: 2}); err != nil {
		t.Fatal(err)
	}
	for _, d := range r.docs {
		if strings.Contains(d, "weather") && !strings.Contains(d, "kiwi vine") {
			t.Errorf("a long memory was sent without its match: %.80q…", d)
		}
		if len(d) > 4*memory.RerankExcerpt+200 {
			t.Errorf("a document of %d bytes was sent", len(d))
		}
	}
}

// A hit that is also another hit's context keeps its own score: a
// reranker's scores can be below 0, a context turn's is 0.
func TestRerankedHitScoresWithContext(t *testing.T) {
	r := &scripted{score: func(d string) float64 { return -float64(len(d)) }}
	svc := openReranked(t, r, 0)
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 6, Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, h := range res.Hits {
		score[h.Memory.ID] = h.Score
	}
	n := 0
	for _, p := range res.Passages {
		for i, m := range p.Memories {
			if p.Hit[i] {
				n++
				if p.Score[i] != score[m.ID] || p.Score[i] >= 0 {
					t.Errorf("hit %s shown with score %v, its score is %v", m.ID, p.Score[i], score[m.ID])
				}
			}
		}
	}
	if n != len(res.Hits) {
		t.Errorf("%d hits in the passages, %d found", n, len(res.Hits))
	}
}

// A long query (a hook's whole prompt) is sent as its first 150 tokens or
// so: a cross-encoder's window holds the query and the memory together.
func TestRerankerQueryIsCapped(t *testing.T) {
	r := &scripted{score: ripeFirst}
	svc := openReranked(t, r, 0)
	q := "garden " + strings.Repeat("and then something else entirely ", 100)
	if _, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 2}); err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(r.query)); n > memory.RerankQuery || !strings.HasSuffix(r.query, " …") || !strings.HasPrefix(r.query, "garden and then") {
		t.Errorf("query sent: %d words, %.60q…", n, r.query)
	}
}

// Services given one Guard of a reranker (the eval's, one per unit) pause
// together when it fails.
func TestRerankerPauseIsShared(t *testing.T) {
	r := &scripted{err: errors.New("status 503")}
	g := memory.Guard(r)
	a, b := openReranked(t, g, 0), openReranked(t, g, 0)
	if res, err := a.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5}); err != nil || !strings.Contains(res.RerankError, "status 503") {
		t.Fatalf("first service: %v, %q", err, res.RerankError)
	}
	res, err := b.Recall(bg, memory.RecallRequest{Query: "garden", Namespace: "n", K: 5})
	if err != nil || r.calls != 1 || !strings.Contains(res.RerankError, "not asked") {
		t.Errorf("second service: %v, %d calls, %q: want it paused by the first's failure", err, r.calls, res.RerankError)
	}
	if memory.Guard(g) != g {
		t.Error("a guard guarded again is a new guard: its services would not share its pauses")
	}
}

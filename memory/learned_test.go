package memory_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/hybrid"
	"agentmem/memory/store/embedded"
)

// A conversation of two people whose turns share words in many ways, so
// the fused order and the learned order differ.
func learnedConversation(t *testing.T) *memory.Service {
	t.Helper()
	svc := open(t, &fake.Embedder{Name: "learned"})
	fillLearned(t, svc)
	return svc
}

// fillLearned stores learnedConversation's six sessions in namespace n.
func fillLearned(t *testing.T, svc *memory.Service) {
	t.Helper()
	lines := []string{
		"Maria: I volunteered at the homeless shelter yesterday.",
		"John: Which shelter do you volunteer at?",
		"Maria: The one downtown, I help at the front desk on Fridays.",
		"John: I ran a 5K charity race for veterans last week.",
		"Maria: That's amazing! How did the race go?",
		"John: I finished second, and we raised money for the shelter too.",
		"Maria: Take care, John!",
		"John: You too, Maria. Say hi to the dogs at the animal shelter.",
		"Maria: I adopted a dog from the animal shelter, her name is Coco.",
		"John: Coco is a lovely name. Do you still volunteer on weekends?",
	}
	for s := 0; s < 6; s++ {
		req := memory.RememberRequest{Namespace: "n", SessionID: fmt.Sprintf("session_%d", s), SessionDate: fmt.Sprintf("2023-05-%02d", 1+s)}
		for i, l := range lines {
			who, text, _ := strings.Cut(lines[(i+s)%len(lines)], ": ")
			_ = l
			req.Messages = append(req.Messages, memory.Message{Role: "user", Speaker: who, Content: text})
		}
		if _, err := svc.Remember(bg, req); err != nil {
			t.Fatal(err)
		}
	}
}

// explain returns every candidate of the fused pool with the features the
// learned order read, and changes nothing of the recall itself.
func TestExplainReturnsTheCandidates(t *testing.T) {
	svc := learnedConversation(t)
	for _, fill := range []bool{false, true} {
		req := memory.RecallRequest{Query: "Which shelters does Maria volunteer at?", Namespace: "n", K: 5, Fill: fill}
		if fill {
			req.Excerpt = 40
		}
		plain, err := svc.Recall(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		req.Explain = true
		explained, err := svc.Recall(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Candidates != nil {
			t.Errorf("fill %v: candidates without explain", fill)
		}
		if plain.Text() != explained.Text() {
			t.Errorf("fill %v: explain changed the text:\n%s\n--- without:\n%s", fill, explained.Text(), plain.Text())
		}
		if len(explained.Candidates) < len(explained.Hits) || len(explained.Candidates) <= req.K {
			t.Fatalf("fill %v: %d candidates for %d hits", fill, len(explained.Candidates), len(explained.Hits))
		}
		names := hybrid.FeatureNames()
		for i, c := range explained.Candidates {
			if len(c.Features) != len(names) {
				t.Fatalf("candidate %d: %d features, %d names", i, len(c.Features), len(names))
			}
			if i > 0 && c.Score > explained.Candidates[i-1].Score {
				t.Errorf("candidate %d scores %v, above the one before it (%v)", i, c.Score, explained.Candidates[i-1].Score)
			}
			if c.Score < 0 || c.Score > 1 {
				t.Errorf("candidate %d: the learned order's chance %v is not a probability", i, c.Score)
			}
		}
	}
}

// weights.learned 0 (negative inside the service) keeps the fused order:
// the candidates come by their score before the learned order, whose
// first feature (score over the best) then falls from 1.
func TestLearnedOffKeepsTheFusedOrder(t *testing.T) {
	svc := learnedConversation(t)
	req := memory.RecallRequest{Query: "How did John's race go?", Namespace: "n", K: 5, Explain: true}
	on, err := svc.Recall(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Weights = &memory.Weights{Learned: -1}
	off, err := svc.Recall(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	prior := func(h memory.Hit) float64 { return h.Features[0] }
	if !slices.IsSortedFunc(off.Candidates, func(a, b memory.Hit) int { return cmpDesc(prior(a), prior(b)) }) {
		t.Errorf("learned off: the candidates are not in the fused order")
	}
	if prior(off.Candidates[0]) != 1 || off.Candidates[0].Score < off.Candidates[1].Score {
		t.Errorf("learned off: the first candidate is not the fused best")
	}
	if slices.IsSortedFunc(on.Candidates, func(a, b memory.Hit) int { return cmpDesc(prior(a), prior(b)) }) {
		t.Errorf("learned on: the candidates are in the fused order exactly; this conversation should reorder them")
	}
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// weights.learned is a share between the fused order and the model's:
// above 1, or NaN, it is refused naming the field and its limit.
func TestLearnedWeightBounds(t *testing.T) {
	svc := learnedConversation(t)
	for _, w := range []float64{1.5, math.NaN()} {
		_, err := svc.Recall(bg, memory.RecallRequest{Query: "race", Namespace: "n", K: 5, Weights: &memory.Weights{Learned: w}})
		var fe *memory.FieldError
		if !errors.As(err, &fe) || fe.Field != "weights.learned" || !strings.Contains(fe.Msg, "between 0 and 1") {
			t.Errorf("learned %v: %v, want a field error naming weights.learned and its limit", w, err)
		}
	}
	for _, w := range []float64{0.5, 1} {
		if _, err := svc.Recall(bg, memory.RecallRequest{Query: "race", Namespace: "n", K: 5, Weights: &memory.Weights{Learned: w}}); err != nil {
			t.Errorf("learned %v: %v", w, err)
		}
	}
}

// With a reranker, the reranker orders the fused candidates, as it was
// measured to: the learned order does not choose or order what it reads.
func TestRerankerReadsTheFusedOrder(t *testing.T) {
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{EmbedderID: "fake:learned", Dims: (&fake.Embedder{Name: "learned"}).Dims(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &scripted{score: func(doc string) float64 { return -float64(len(doc)) }}
	svc, err := memory.New(memory.Options{Store: st, Embedder: &fake.Embedder{Name: "learned"}, Reranker: r, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	fillLearned(t, svc)
	q := "Which shelters does Maria volunteer at?"
	if _, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 5}); err != nil {
		t.Fatal(err)
	}
	fused, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 5, Reranker: new(false), Weights: &memory.Weights{Learned: -1}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	learned, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 5, Reranker: new(false), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.docs) == 0 || len(r.docs) > len(fused.Candidates) {
		t.Fatalf("the reranker read %d memories of %d candidates", len(r.docs), len(fused.Candidates))
	}
	differ := false
	for i, d := range r.docs {
		m := fused.Candidates[i].Memory
		if !strings.HasPrefix(d, m.SessionDate.Format("2006-01-02")) || !strings.Contains(d, m.Text[:min(20, len(m.Text))]) {
			t.Fatalf("the reranker's memory %d is %q, the fused order's %q of %s", i, d, m.Text, m.SessionDate.Format("2006-01-02"))
		}
		differ = differ || learned.Candidates[i].Memory.ID != fused.Candidates[i].Memory.ID
	}
	if !differ {
		t.Error("the learned order is the fused order on these candidates; the test proves nothing")
	}
}

// A question that asks for several things is given, by chance, at least
// k memories shown as excerpts (memory.SeveralHeader tokens each beyond
// the excerpt), where its chances stand out for one memory: "Which
// cities" is shown more than "Which city", whose chances are alike;
// max_tokens still bounds it.
func TestSeveralThingsBudget(t *testing.T) {
	svc := learnedConversation(t)
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "lisbon", SessionDate: "2023-05-09", Messages: []memory.Message{
		{Role: "user", Speaker: "Maria", Content: "My sister Lucia moved to Lisbon in March for a job at the aquarium."},
	}}); err != nil {
		t.Fatal(err)
	}
	recall := func(query string, maxTokens int) memory.RecallResult {
		t.Helper()
		res, err := svc.Recall(bg, memory.RecallRequest{Query: query, Namespace: "n", K: 10, Fill: true, Excerpt: 40, MaxTokens: maxTokens})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, several := "Which city did Maria's sister Lucia move to?", "Which cities did Maria's sister Lucia move to?"
	o, s := recall(one, 0), recall(several, 0)
	if len(o.Hits) >= 10 {
		t.Fatalf("%q shows %d memories by chance; the test needs fewer than k", one, len(o.Hits))
	}
	if len(s.Hits) < 10 || len(s.Text()) <= len(o.Text()) {
		t.Errorf("%q: %d memories, %d characters; %q: %d, %d; want k 10 memories or more, and more text", several, len(s.Hits), len(s.Text()), one, len(o.Hits), len(o.Text()))
	}
	if most := 10 * (40 + memory.SeveralHeader) * 4 * 11 / 10; utf8.RuneCountInString(s.Text()) > most {
		t.Errorf("%q: %d characters, more than about k excerpts with their headers (%d)", several, utf8.RuneCountInString(s.Text()), most)
	}
	if capped := recall(several, 100); utf8.RuneCountInString(capped.Text()) > 100*4*11/10 {
		t.Errorf("%q at max_tokens 100: %d characters", several, utf8.RuneCountInString(capped.Text()))
	}
}

// By default a recall that fills takes the space of as many memories as
// the learned order's chances say (memory.ByChance): n candidates at least
// ChanceFloor as likely as the best; budget k takes the space of the best
// k. The recall's text is bounded by what the best n take shown whole,
// so a question whose n is below k reads fewer tokens, one whose n is
// above reads more; an unknown budget is refused naming the field.
func TestBudgetByChance(t *testing.T) {
	svc := learnedConversation(t)
	// one fact said once, among turns said six times each
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "lisbon", SessionDate: "2023-05-09", Messages: []memory.Message{
		{Role: "user", Speaker: "Maria", Content: "My sister Lucia moved to Lisbon in March for a job at the aquarium."},
		{Role: "user", Speaker: "John", Content: "Lisbon! Does she like the aquarium job?"},
	}}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, query := range []string{"How did John's race go?", "Where did Maria's sister Lucia move to?", "Which shelters does Maria volunteer at?", "charity"} {
		req := memory.RecallRequest{Query: query, Namespace: "n", K: 4, Fill: true, Excerpt: 40, Explain: true}
		chance, err := svc.Recall(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		req.Budget = memory.ByK
		byK, err := svc.Recall(bg, req)
		if err != nil {
			t.Fatal(err)
		}
		// n as fillCount counts it: over the candidates the fill holds
		// (the best 4k), between 0.3k and 3k of them
		held := chance.Candidates[:min(len(chance.Candidates), memory.FillCandidates*req.K)]
		best, n := held[0].Score, 0
		for _, c := range held {
			if c.Score >= memory.ChanceFloor*best {
				n++
			}
		}
		n = min(max(n, int(math.Round(memory.ChanceFewest*float64(req.K))), 1), memory.ChanceMost*req.K, len(held))
		tc, tk := utf8.RuneCountInString(chance.Text()), utf8.RuneCountInString(byK.Text())
		switch {
		case n < req.K:
			seen["fewer"] = true
			if tc >= tk {
				t.Errorf("%q: n %d < k, but %d characters by chance against %d by k", query, n, tc, tk)
			}
		case n > req.K:
			seen["more"] = true
			if tc <= tk || len(chance.Hits) <= len(byK.Hits) {
				t.Errorf("%q: n %d > k, but %d characters and %d hits by chance against %d and %d by k", query, n, tc, len(chance.Hits), tk, len(byK.Hits))
			}
		}
	}
	if !seen["fewer"] || !seen["more"] {
		t.Errorf("the queries gave n below k: %v, above k: %v; the test needs both", seen["fewer"], seen["more"])
	}
	_, err := svc.Recall(bg, memory.RecallRequest{Query: "race", Namespace: "n", K: 4, Budget: "tokens"})
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field != "budget" {
		t.Errorf("budget tokens: %v, want a field error naming budget", err)
	}
}

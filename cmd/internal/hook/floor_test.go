package hook

import (
	"context"
	"slices"
	"testing"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// The auto-recall floor keeps the memories the text side matched that
// score at least half the best, and no context turn.
func TestRelevanceFloor(t *testing.T) {
	ms := []spec.Recalled{
		{ID: "a", Hit: true, TextRank: 2, Score: 0.6},
		{ID: "ctx", Hit: false, Score: 0.6},
		{ID: "b", Hit: true, TextRank: 1, Score: 1.0},
		{ID: "weak", Hit: true, TextRank: 3, Score: 0.4},
		{ID: "deep", Hit: true, TextRank: 11, Score: 0.55},
	}
	if n := len(relevant(ms)); n != 2 {
		t.Errorf("relevant = %d, want 2 (b and a)", n)
	}
	if n := len(relevant([]spec.Recalled{{Hit: true, Score: 1}})); n != 0 {
		t.Errorf("a memory with no text match cleared the floor")
	}
}

// The second recall returns the n best by score, so the count ends at
// the first memory below the floor: a vector match that shares no word
// with the prompt, ranked between two that clear it, would otherwise be
// shown in place of the second.
func TestRelevanceFloorEndsAtFirstBelow(t *testing.T) {
	ms := []spec.Recalled{
		{ID: "a", Hit: true, TextRank: 2, Score: 0.6},
		{ID: "b", Hit: true, TextRank: 1, Score: 1.0},
		{ID: "vector-only", Hit: true, Score: 0.9},
	}
	if n := len(relevant(ms)); n != 1 {
		t.Errorf("relevant = %d, want 1 (b: vector-only is second by score)", n)
	}
	// a tie with a memory below the floor: the server puts the better
	// text rank first, and so does the count
	ms = []spec.Recalled{
		{ID: "deep", Hit: true, TextRank: 12, Score: 0.7},
		{ID: "b", Hit: true, TextRank: 1, Score: 1.0},
		{ID: "a", Hit: true, TextRank: 2, Score: 0.7},
	}
	if got := relevant(ms); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("relevant = %v, want [b a] (a ties with deep, and comes first)", got)
	}
}

// The best word match and the best vector match tie under reciprocal-rank
// fusion (each is 1/(c+1) of its side); the server's fusion puts the word
// match first, so it is given (a user's exact answer was given nothing:
// the count stopped before the tie).
func TestRelevanceFloorTiedSides(t *testing.T) {
	ms := []spec.Recalled{
		{ID: "vector-best", Hit: true, VectorRank: 1, Score: 0.5},
		{ID: "word-best", Hit: true, TextRank: 1, Score: 0.5},
		{ID: "second", Hit: true, TextRank: 2, VectorRank: 9, Score: 0.4},
	}
	if got := relevant(ms); !slices.Equal(got, []string{"word-best"}) {
		t.Errorf("relevant = %v, want [word-best]", got)
	}
}

// With a reranker, whose scores may be logits below zero, half the best is
// measured from the worst memory found.
func TestRelevanceFloorReranked(t *testing.T) {
	ms := []spec.Recalled{
		{ID: "best", Hit: true, TextRank: 4, FusedRank: 3, Score: 2.5},
		{ID: "near", Hit: true, TextRank: 1, FusedRank: 1, Score: -0.5},
		{ID: "far", Hit: true, TextRank: 2, FusedRank: 2, Score: -6},
		{ID: "worst", Hit: true, FusedRank: 4, Score: -7.5},
	}
	// the floor is -2.5: best and near
	if n := len(relevant(ms)); n != 2 {
		t.Errorf("relevant = %d, want 2 (best and near)", n)
	}
	// a tie of the reranker's keeps the fused order: the second recall
	// would return tied first, below the floor, in place of clears
	ms = []spec.Recalled{
		{ID: "clears", Hit: true, TextRank: 1, FusedRank: 2, Score: 0.99},
		{ID: "tied", Hit: true, TextRank: 15, VectorRank: 1, FusedRank: 1, Score: 0.99},
		{ID: "low", Hit: true, TextRank: 2, FusedRank: 3, Score: 0.01},
	}
	if got := relevant(ms); len(got) != 0 {
		t.Errorf("relevant = %v, want none (the reranker puts tied, below the floor, first)", got)
	}
}

// recording is a memory that answers every recall with two memories that
// clear the floor, and keeps the arguments it was asked with.
type recording struct{ args []spec.RecallArgs }

func (r *recording) Remember(context.Context, spec.RememberArgs) (spec.RememberResult, string, error) {
	return spec.RememberResult{}, "", nil
}

func (r *recording) Recall(_ context.Context, a spec.RecallArgs) (spec.RecallResult, string, error) {
	r.args = append(r.args, a)
	return spec.RecallResult{Memories: []spec.Recalled{{ID: "a", Hit: true, TextRank: 1, Score: 1}, {ID: "b", Hit: true, TextRank: 2, Score: 0.8}}}, "memories", nil
}

// The auto-recall asks for the fused order and no kinds, in both of its
// recalls: its floor is measured on fused scores and on words in common
// (the learned order's chances are another scale), and at k 10 in its
// first (not the k a large history would give).
func TestAutoRecallAsksForTheFusedOrder(t *testing.T) {
	rec := &recording{}
	h := Hook{Connect: func(context.Context) (Memory, func(), error) { return rec, func() {}, nil }}
	text, _, err := h.recallFor(context.Background(), Input{CWD: t.TempDir()}, "Where does Ana live?", 500, nil)
	if err != nil || text != "memories" {
		t.Fatalf("recallFor: %q, %v", text, err)
	}
	if len(rec.args) != 2 {
		t.Fatalf("%d recalls, want 2", len(rec.args))
	}
	if rec.args[0].K != memory.DefaultK {
		t.Errorf("first recall: k %d, want %d", rec.args[0].K, memory.DefaultK)
	}
	for i, a := range rec.args {
		if w := a.Weights; w == nil || w.Learned == nil || *w.Learned != 0 || w.Kinds == nil || *w.Kinds != 0 {
			t.Errorf("recall %d: weights %+v, want learned 0 and kinds 0", i, w)
		}
	}
}

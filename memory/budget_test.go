package memory

import (
	"fmt"
	"testing"
)

// The default budget is what the best k by their score before the
// learned order take whole (Hit.Prior), so the learned order changes
// which memories are shown, not how many tokens: bestByPrior picks them,
// each with its own turns; with no Prior (a reranker's order, or a fusion
// the learned order does not reorder) the first k.
func TestBestByPrior(t *testing.T) {
	var hits []Hit
	var turns [][]Memory
	for i, prior := range []float64{0.2, 0.9, 0.5, 0.7, 0.1} {
		m := Memory{ID: fmt.Sprintf("s:%d", i), SessionID: "s", Turn: i}
		hits = append(hits, Hit{Memory: m, Score: 1 - float64(i)/10, Prior: prior})
		turns = append(turns, []Memory{m})
	}
	bh, bt := bestByPrior(hits, turns, 3)
	want := []string{"s:1", "s:3", "s:2"}
	for i, h := range bh {
		if h.Memory.ID != want[i] || bt[i][0].ID != want[i] {
			t.Errorf("by prior %d: hit %s, turns of %s; want %s", i, h.Memory.ID, bt[i][0].ID, want[i])
		}
	}
	for i := range hits {
		hits[i].Prior = 0
	}
	bh, _ = bestByPrior(hits, turns, 3)
	for i, h := range bh {
		if h.Memory.ID != hits[i].Memory.ID {
			t.Errorf("without prior %d: %s, want %s", i, h.Memory.ID, hits[i].Memory.ID)
		}
	}
}

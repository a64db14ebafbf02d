package memory

import (
	"fmt"
	"strings"
	"testing"
)

// The budget is what the best n by their score before the learned order
// take whole (Hit.Prior), so the learned order's ranking changes which
// memories are shown, not the space they fill: bestByPrior picks them,
// each with its own turns; with no Prior (a reranker's order, or a fusion
// the learned order does not reorder) the first n.
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

// The chance budget's n counts the hits at least ChanceFloor as likely
// as the best, between ChanceFewest·k and ChanceMost·k and never more
// than the hits; without the learned order's chances (no Prior), or asked
// for k, it is k.
func TestFillCount(t *testing.T) {
	chances := func(ps ...float64) []Hit {
		hits := make([]Hit, len(ps))
		for i, p := range ps {
			hits[i] = Hit{Score: p, Prior: 1 / float64(i+1)}
		}
		return hits
	}
	spread := make([]float64, 40) // many alike: all above the floor
	for i := range spread {
		spread[i] = 0.5 - float64(i)/200
	}
	for _, c := range []struct {
		name     string
		hits     []Hit
		k        int
		byChance bool
		want     int
	}{
		{"one stands out: the fewest", chances(0.9, 0.05, 0.04, 0.01, 0.01, 0.01), 10, true, 3},
		{"one stands out, k 1: one", chances(0.9, 0.05), 1, true, 1},
		{"the floor counts", chances(0.5, 0.4, 0.1, ChanceFloor*0.5+1e-4, ChanceFloor*0.5+1e-3, ChanceFloor*0.5-1e-4, 0.01, 0.001), 4, true, 5},
		{"many alike: up to 3k", chances(spread...), 10, true, 30},
		{"many alike, few hits: the hits", chances(spread[:12]...), 10, true, 12},
		{"asked for k", chances(spread...), 10, false, 10},
		{"no chances: k", func() []Hit { h := chances(spread...); clear(h); return h }(), 10, true, 10},
		{"k above the hits", chances(0.9), 10, false, 1},
	} {
		if got := fillCount(c.hits, c.k, c.byChance); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// A fill of k above DefaultK keeps the best SessionsFirstAfter·k
// candidates in order, then orders the rest by their chance,
// SessionShownWeight of it for a session already shown: at equal chances
// each session not yet shown comes first, a turn of a shown one that is
// more than 1/SessionShownWeight times as likely before it (each hit with
// its own turns); at DefaultK, or with no more hits than that, or with no
// chances of the learned order, the order stands.
func TestNewSessionsFirst(t *testing.T) {
	build := func(sessions string, chances map[int]float64, learned bool) ([]Hit, [][]Memory) {
		var hits []Hit
		var turns [][]Memory
		for i, s := range sessions {
			m := Memory{ID: fmt.Sprintf("%c:%d", s, i), SessionID: string(s), Turn: i}
			h := Hit{Memory: m, Score: 0.01}
			if c, ok := chances[i]; ok {
				h.Score = c
			}
			if i < 18 {
				h.Score = 1 - float64(i)/100
			}
			if learned {
				h.Prior = 1
			}
			hits = append(hits, h)
			turns = append(turns, []Memory{m})
		}
		return hits, turns
	}
	best := "abababababababbbba" // 18 = 1.5 × 12
	for _, c := range []struct {
		name     string
		k        int
		sessions string
		chances  map[int]float64
		learned  bool
		want     string
	}{
		{"equal chances: new sessions first", 12, best + "acadcbeea", nil, true, best + "cdeaacbea"},
		{"a shown session's turn 5 times as likely first", 12, best + "acd", map[int]float64{18: 0.05, 19: 0.01, 20: 0.01}, true, best + "acd"},
		{"3 times as likely: after", 12, best + "acd", map[int]float64{18: 0.03, 19: 0.01, 20: 0.01}, true, best + "cda"},
		{"k 10: as it was", 10, best + "acadcbeea", nil, true, best + "acadcbeea"},
		{"no chances: as it was", 12, best + "acadcbeea", nil, false, best + "acadcbeea"},
		{"no more than 1.5k: as it was", 12, best, nil, true, best},
		{"20 kept at k 13 (19.5 rounds up)", 13, best + "aacad", nil, true, best + "aacda"},
	} {
		hits, turns := build(c.sessions, c.chances, c.learned)
		hits, turns = newSessionsFirst(hits, turns, c.k)
		var got strings.Builder
		for i, h := range hits {
			if turns[i][0].ID != h.Memory.ID {
				t.Fatalf("%s: hit %s came with the turns of %s", c.name, h.Memory.ID, turns[i][0].ID)
			}
			got.WriteString(h.Memory.SessionID)
		}
		if got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got.String(), c.want)
		}
	}
}

// BenchmarkNewSessionsFirst orders a k-20 fill's 80 candidates from 30
// sessions, as a large history's recall does once per call.
func BenchmarkNewSessionsFirst(b *testing.B) {
	hits := make([]Hit, 80)
	turns := make([][]Memory, 80)
	for i := range hits {
		m := Memory{ID: fmt.Sprintf("s%d:%d", i%30, i), SessionID: fmt.Sprintf("s%d", i%30)}
		hits[i], turns[i] = Hit{Memory: m, Score: 1 / float64(i+1), Prior: 1}, []Memory{m}
	}
	for b.Loop() {
		newSessionsFirst(hits, turns, 20)
	}
}

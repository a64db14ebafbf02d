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
// candidates in order, then takes each session they did not show
// before more turns of the sessions they did (each hit with its own
// turns); at DefaultK, or with no more hits than that, the order stands.
func TestNewSessionsFirst(t *testing.T) {
	build := func(sessions string) ([]Hit, [][]Memory) {
		var hits []Hit
		var turns [][]Memory
		for i, s := range sessions {
			m := Memory{ID: fmt.Sprintf("%c:%d", s, i), SessionID: string(s), Turn: i}
			hits = append(hits, Hit{Memory: m, Score: 1 / float64(i+1)})
			turns = append(turns, []Memory{m})
		}
		return hits, turns
	}
	ids := func(hits []Hit, turns [][]Memory) string {
		var b strings.Builder
		for i, h := range hits {
			if turns[i][0].ID != h.Memory.ID {
				t.Fatalf("hit %s came with the turns of %s", h.Memory.ID, turns[i][0].ID)
			}
			b.WriteString(h.Memory.SessionID)
		}
		return b.String()
	}
	best := "abababababababbbba" // 18 = 1.5 × 12
	for _, c := range []struct {
		k              int
		sessions, want string
	}{
		{12, best + "acadcbeea", best + "cdeaacbea"},
		{10, best + "acadcbeea", best + "acadcbeea"},
		{12, best, best},
		{12, best[:10], best[:10]},
		{13, best + "aacad", best + "aacda"}, // 20 kept (19.5 rounds up)
	} {
		hits, turns := build(c.sessions)
		hits, turns = newSessionsFirst(hits, turns, c.k)
		if got := ids(hits, turns); got != c.want {
			t.Errorf("k %d, %s: %s, want %s", c.k, c.sessions, got, c.want)
		}
	}
}

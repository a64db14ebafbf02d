package hybrid

import (
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

func hitIDs(hs []memory.Hit) string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Memory.ID)
	}
	return strings.Join(out, " ")
}

// weights.adjacent raises a candidate to a fraction of the score of a
// neighbouring turn among the AdjacentFrom best candidates: the answer
// after a strong question moves up; a candidate of another session, two
// turns away, or next to a candidate below the best few does not; and
// off (negative; 0 in the tools) the fused order stands.
func TestRankAdjacent(t *testing.T) {
	mem := func(session string, turn int) memory.Memory {
		return memory.Memory{ID: memory.MemoryID(session, turn), SessionID: session, Turn: turn}
	}
	fused := []Fused{
		{ID: "s1:4", Score: 0.030}, // the question that names what the query asks
		{ID: "s2:1", Score: 0.020},
		{ID: "s3:1", Score: 0.014},
		{ID: "s5:1", Score: 0.013},
		{ID: "s6:1", Score: 0.012},
		{ID: "s4:1", Score: 0.0115}, // sixth: lends nothing
		{ID: "s1:5", Score: 0.011},  // the answer: 0.5 x 0.030 = 0.015 lifts it over s3:1
		{ID: "s2:3", Score: 0.010},  // two turns after s2:1: not a neighbour
		{ID: "s3:5", Score: 0.0055}, // turn 5 of another session than s1:4
		{ID: "s4:2", Score: 0.005},  // next to the sixth: 0.5 x 0.0115 would lift it over s3:5
	}
	ms := map[string]memory.Memory{}
	for _, f := range fused {
		session, turn, _ := strings.Cut(f.ID, ":")
		ms[f.ID] = mem(session, int(turn[0]-'0'))
	}
	fusedOrder := "s1:4 s2:1 s3:1 s5:1 s6:1 s4:1 s1:5 s2:3 s3:5 s4:2"
	cases := []struct {
		adjacent float64
		want     string
	}{
		{-1, fusedOrder}, // negative: off
		{0.5, "s1:4 s2:1 s1:5 s3:1 s5:1 s6:1 s4:1 s2:3 s3:5 s4:2"},
		{0, "s1:4 s2:1 s1:5 s3:1 s5:1 s6:1 s4:1 s2:3 s3:5 s4:2"}, // 0: the default, 0.5
		{0.3, fusedOrder}, // 0.009 < 0.011: its own score stands
	}
	for _, c := range cases {
		q := memory.Query{K: 10, Weights: memory.Weights{Adjacent: c.adjacent, Time: -1}}
		hits := Rank(q, fused, ms)
		if got := hitIDs(hits); got != c.want {
			t.Errorf("adjacent %v: %s, want %s", c.adjacent, got, c.want)
		}
		if c.adjacent == 0.5 {
			for _, h := range hits {
				if h.Memory.ID == "s1:5" && h.Score != 0.015 {
					t.Errorf("adjacent 0.5: the answer scores %v, want 0.5 x its question's 0.030", h.Score)
				}
				if h.Memory.ID == "s1:4" && h.Score != 0.030 {
					t.Errorf("adjacent 0.5: the question scores %v, want its own 0.030 (raised, never lowered)", h.Score)
				}
			}
		}
	}
}

// Equal scores come in memory.TieOrder: the text side's candidates first,
// by their rank there, then the vector side's. Two neighbours of the best
// hit, both lifted to half its score, tie: the one the text side found
// comes first, though the other's fused score was higher before the lift
// (a hook counts the hits that clear its floor by their ranks alone, then
// asks for that many).
func TestRankTiesByRanks(t *testing.T) {
	mem := func(session string, turn int) memory.Memory {
		return memory.Memory{ID: memory.MemoryID(session, turn), SessionID: session, Turn: turn}
	}
	fused := []Fused{
		{ID: "s1:5", Score: 0.034, TextRank: 1, VectorRank: 2},
		{ID: "s2:1", Score: 1.0 / 61, VectorRank: 1}, // vector-only, ties with s3:1
		{ID: "s3:1", Score: 1.0 / 61, TextRank: 1},
		{ID: "s1:6", Score: 1.0 / 62, VectorRank: 2}, // lifted to 0.017
		{ID: "s1:4", Score: 1.0 / 64, TextRank: 4},   // lifted to 0.017
	}
	ms := map[string]memory.Memory{}
	for _, f := range fused {
		session, turn, _ := strings.Cut(f.ID, ":")
		ms[f.ID] = mem(session, int(turn[0]-'0'))
	}
	q := memory.Query{K: 10, Weights: memory.Weights{Adjacent: 0.5, Time: -1}}
	if got, want := hitIDs(Rank(q, fused, ms)), "s1:5 s1:4 s1:6 s3:1 s2:1"; got != want {
		t.Errorf("ties: %s, want %s", got, want)
	}
}

// Rank keeps a candidate found only past the pool (by a period's deeper
// search, memory.Query.Depth) when it is dated in a period of the query,
// and drops it otherwise; within the pool on either side, or without
// ranks (a server's fusion), a candidate is kept whatever its date.
func TestRankPastPool(t *testing.T) {
	may, june := time.Date(2023, 5, 3, 0, 0, 0, 0, time.UTC), time.Date(2023, 6, 3, 0, 0, 0, 0, time.UTC)
	fused := []Fused{
		{ID: "in:0", Score: 0.5, TextRank: 2},
		{ID: "one-side:0", Score: 0.4, TextRank: 7, VectorRank: 3},
		{ID: "unranked:0", Score: 0.3},
		{ID: "may:0", Score: 0.2, VectorRank: 8},
		{ID: "june:0", Score: 0.1, VectorRank: 9, TextRank: 12},
	}
	ms := map[string]memory.Memory{}
	for _, f := range fused {
		session, _, _ := strings.Cut(f.ID, ":")
		ms[f.ID] = memory.Memory{ID: f.ID, SessionID: session, SessionDate: june}
	}
	ms["may:0"] = memory.Memory{ID: "may:0", SessionID: "may", SessionDate: may}
	q := memory.Query{K: 40, Pool: 5, Weights: memory.Weights{Learned: -1, Adjacent: -1},
		Periods: []memory.Period{{From: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)}}}
	if got, want := hitIDs(Rank(q, fused, ms)), "in:0 may:0 one-side:0 unranked:0"; got != want {
		t.Errorf("in May: %s, want %s (May's memory boosted over two, June's past the pool dropped)", got, want)
	}
	q.Periods = nil
	if got, want := hitIDs(Rank(q, fused, ms)), "in:0 one-side:0 unranked:0"; got != want {
		t.Errorf("no period: %s, want %s", got, want)
	}
}

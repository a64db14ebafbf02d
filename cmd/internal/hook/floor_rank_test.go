package hook

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid"
	"agentmem/tools/spec"
)

// The hook counts the memories that clear its floor in a first recall,
// then asks for that many: the server's own ranking (hybrid.Fuse and
// Rank, with the hook's weights) must return exactly those, whatever the
// ties its fusion, time boost and neighbouring-turn lift make. Random
// rankings of a few sessions' turns, where neighbours and ties abound.
func TestRelevantIsWhatTheServerReturns(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(1, 2))
	for c := range 2000 {
		ms := map[string]memory.Memory{}
		var ids []string
		for s := range 3 {
			for turn := range 6 {
				id := fmt.Sprintf("s%d:%d", s, turn)
				ms[id] = memory.Memory{ID: id, SessionID: fmt.Sprint("s", s), Turn: turn, SessionDate: day.AddDate(0, 0, s)}
				ids = append(ids, id)
			}
		}
		side := func() []hybrid.Ranked {
			var out []hybrid.Ranked
			for i, id := range r.Perm(len(ids))[:r.IntN(len(ids))] {
				out = append(out, hybrid.Ranked{ID: ids[id], Score: float64(100 - i)})
			}
			return out
		}
		text, vector := side(), side()
		var periods []memory.Period
		if r.IntN(2) == 0 { // the second session's day named
			periods = []memory.Period{{From: day.AddDate(0, 0, 1), To: day.AddDate(0, 0, 2)}}
		}
		top := func(k int) []memory.Hit {
			q := memory.Query{K: k, Fusion: memory.RRF, Periods: periods, Weights: memory.Weights{Kinds: -1, Learned: -1}}
			return hybrid.Rank(q, hybrid.Fuse(q, text, vector), ms)
		}
		var first []spec.Recalled
		for _, h := range top(memory.DefaultK) {
			first = append(first, spec.Recalled{ID: h.Memory.ID, Hit: true, Score: h.Score, TextRank: h.TextRank, VectorRank: h.VectorRank})
		}
		r.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] }) // passage order, not score
		want := relevant(first)
		if len(want) == 0 {
			continue
		}
		var got []string
		for _, h := range top(len(want)) {
			got = append(got, h.Memory.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: the hook counted %v, the server returns %v", c, want, got)
		}
	}
}

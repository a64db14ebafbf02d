package hybrid

import (
	"cmp"
	"slices"

	"agentmem/memory"
)

// Rank turns the fused candidates of q into its hits: each candidate with
// its memory (ms[id]; a candidate without one, deleted since it was
// indexed, is dropped), best first, cut to q.K (with q.Explain, every
// candidate, for the caller to cut).
//
// A candidate dated in a period the query names, or mentioning a date in
// one, gains Weights.Time in units of the best fused score, so the same
// weight means the same on any fusion's scale: a boost, never a filter.
// A candidate found only past the pool, by a period's deeper search
// (memory.Query.Depth), is kept when it is such a candidate, at most
// memory.PeriodExtra of them, the first in the fused order.
// Then each candidate scores at least Weights.Adjacent times its
// neighbouring turn's score when that turn is one of the best few
// candidates (see adjacent). Last, the learned order scores each
// candidate by its chance of being evidence (see learned).
func Rank(q memory.Query, fused []Fused, ms map[string]memory.Memory) []memory.Hit {
	w := q.Weights.OrDefault()
	unit := 0.0
	if len(fused) > 0 {
		unit = fused[0].Score
	}
	hits := make([]memory.Hit, 0, len(fused))
	kept := make([]Fused, 0, len(fused))
	pool, extra := q.PoolSize(), 0
	for _, f := range fused {
		m, ok := ms[f.ID]
		if !ok {
			continue
		}
		// past the pool: found by a period's deeper search (Query.Depth)
		past := pastPool(f, pool)
		if past && extra == memory.PeriodExtra {
			continue
		}
		score := f.Score
		in := w.Time > 0 && memory.MentionsPeriod(m, q.Periods)
		if past {
			if !in {
				continue
			}
			extra++
		}
		if in {
			score += w.Time * unit
		}
		hits = append(hits, memory.Hit{Memory: m, Score: score, TextRank: f.TextRank, VectorRank: f.VectorRank})
		kept = append(kept, f)
	}
	adjacent(hits, w.Adjacent)
	learned(q, hits, kept)
	slices.SortStableFunc(hits, func(a, b memory.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return memory.TieOrder(a.TextRank, a.VectorRank, b.TextRank, b.VectorRank)
	})
	if len(hits) > q.K && !q.Explain {
		hits = hits[:q.K]
	}
	return hits
}

// pastPool reports whether f was found only past the pool, by the
// deeper search of a query that names a period (Query.Depth): ranked past
// pool by a side, and within it by none. A candidate without ranks (a
// server's fusion) is within the pool.
func pastPool(f Fused, pool int) bool {
	within := func(r int) bool { return r > 0 && r <= pool }
	return (f.TextRank > pool || f.VectorRank > pool) && !within(f.TextRank) && !within(f.VectorRank)
}

// turnKey is a turn of a session.
type turnKey struct {
	session string
	turn    int
}

// AdjacentFrom is how many of the best candidates lend their score to
// their neighbouring turns (see adjacent).
const AdjacentFrom = 5

// adjacent raises each candidate's score to at least w times the score of
// a neighbouring turn (the turn just before or after it in its session)
// that is one of the AdjacentFrom best candidates. A conversation's
// question and its answer are neighbours, and often only one of them
// names what a query asks ("What's Calvin's biggest goal?" / "To take my
// music worldwide"): the search finds the one, and the other ranks with
// it. Only the best few lend: measured on LongMemEval, a neighbour of any
// candidate pushes out the one candidate of a session that held evidence.
// It reads the candidates' scores alone, with no search beyond the one
// that made the pool, so both stores rank alike.
func adjacent(hits []memory.Hit, w float64) {
	if w <= 0 || len(hits) == 0 {
		return
	}
	best := make([]int, len(hits))
	for i := range best {
		best[i] = i
	}
	// stable: equal scores keep the fused order
	slices.SortStableFunc(best, func(a, b int) int { return cmp.Compare(hits[b].Score, hits[a].Score) })
	lend := make(map[turnKey]float64, AdjacentFrom)
	for _, i := range best[:min(AdjacentFrom, len(best))] {
		lend[turnKey{hits[i].Memory.SessionID, hits[i].Memory.Turn}] = hits[i].Score
	}
	for i, h := range hits {
		m := h.Memory
		nb := max(lend[turnKey{m.SessionID, m.Turn - 1}], lend[turnKey{m.SessionID, m.Turn + 1}])
		hits[i].Score = max(h.Score, w*nb)
	}
}

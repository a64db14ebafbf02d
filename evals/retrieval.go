package evals

import (
	"math"
	"slices"
)

// Hits scores one recalled list against one kind of evidence.
type Hits struct {
	// All: every evidence item is among the recalled memories; Any: at
	// least one is.
	All bool `json:"all"`
	Any bool `json:"any"`
	// NDCG is binary-relevance NDCG over the recalled list (see ndcg).
	NDCG float64 `json:"ndcg"`
}

// Retrieval is a question's retrieval score. Turn is set when the question
// has evidence turns, Session when it has evidence sessions; neither for a
// question left out of retrieval metrics.
type Retrieval struct {
	Turn    *Hits `json:"turn,omitempty"`
	Session *Hits `json:"session,omitempty"`
}

// Score scores the recalled memory ids (best first) of question q, whose
// unit was stored as ids maps. relevantTurns and relevantSessions count how
// many distinct memories of the whole unit hold evidence turns, and how
// many evidence sessions were stored, for the ideal NDCG.
func Score(q Question, recalled []string, ids IDMap) Retrieval {
	var r Retrieval
	if q.NoRetrieval {
		return r
	}
	if len(q.EvidenceTurns) > 0 {
		want := set(q.EvidenceTurns)
		got := map[string]bool{}
		rel := make([]bool, len(recalled))
		for i, id := range recalled {
			for _, ref := range ids[id].Refs {
				if want[ref] {
					got[ref] = true
					rel[i] = true
				}
			}
		}
		r.Turn = &Hits{All: len(got) == len(want), Any: len(got) > 0, NDCG: ndcg(rel, idealTurns(want, ids))}
	}
	if len(q.EvidenceSessions) > 0 {
		want := set(q.EvidenceSessions)
		var ranked []string
		for _, id := range recalled {
			if s := ids[id].Session; s != "" && !slices.Contains(ranked, s) {
				ranked = append(ranked, s)
			}
		}
		got := 0
		rel := make([]bool, len(ranked))
		for i, s := range ranked {
			if want[s] {
				rel[i] = true
				got++
			}
		}
		r.Session = &Hits{All: got == len(want), Any: got > 0, NDCG: ndcg(rel, len(want))}
	}
	return r
}

// idealTurns is how many distinct stored memories hold an evidence turn:
// at round or session granularity several evidence turns share one memory.
func idealTurns(want map[string]bool, ids IDMap) int {
	n := 0
	for _, h := range ids {
		if slices.ContainsFunc(h.Refs, func(ref string) bool { return want[ref] }) {
			n++
		}
	}
	return n
}

// ndcg is binary-relevance NDCG of a ranked list whose ideal holds ideal
// relevant items (cut at the list's length), as LongMemEval computes it.
func ndcg(rel []bool, ideal int) float64 {
	var dcg, idcg float64
	for i, r := range rel {
		if r {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < min(ideal, len(rel)); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

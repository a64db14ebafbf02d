package hybrid

import (
	"github.com/blevesearch/bleve/v2/fusion"
	"github.com/blevesearch/bleve/v2/search"

	"agentmem/memory"
)

// Ranked is one candidate from one side of a search, in that side's order.
type Ranked struct {
	ID    string
	Score float64
}

// Fused is one candidate after fusion, best first.
type Fused struct {
	ID         string
	Score      float64
	TextRank   int
	VectorRank int
	// TextScore and VectorScore are its score on each side (0 where that
	// side did not find it): BM25, and the similarity of the vectors.
	TextScore   float64
	VectorScore float64
}

// Fuse combines the text and vector candidate lists of q into one ranking
// of every candidate (Rank cuts it to q.K). RRF and RSF are bleve's own fusion functions (the
// ones Couchbase Search runs server-side), fed with our two lists.
//
// Lists deeper than q's pool (a period's deeper search, memory.Query.Depth)
// are fused as their first pool alone were, every candidate with the
// score, ranks and side scores it has without the deeper search; after
// them come the candidates only the deeper lists hold, in the order of
// the whole lists' fusion (each with its deeper ranks), for Rank to keep
// those in the query's periods.
func Fuse(q memory.Query, text, vector []Ranked) []Fused {
	pool := q.PoolSize()
	if len(text) <= pool && len(vector) <= pool {
		return fuse(q, text, vector)
	}
	out := fuse(q, text[:min(len(text), pool)], vector[:min(len(vector), pool)])
	seen := make(map[string]bool, len(out))
	for _, f := range out {
		seen[f.ID] = true
	}
	for _, f := range fuse(q, text, vector) {
		if !seen[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

// fuse is Fuse of lists within the pool.
func fuse(q memory.Query, text, vector []Ranked) []Fused {
	textRank, textScore := ranks(text)
	vecRank, vecScore := ranks(vector)
	var out []Fused
	switch q.Fusion {
	case memory.TextOnly:
		out = ordered(text)
	case memory.VectorOnly:
		out = ordered(vector)
	case memory.Rerank:
		out = rerank(text, vector)
	default:
		out = bleveFusion(q, text, vector)
	}
	for i := range out {
		out[i].TextRank = textRank[out[i].ID]
		out[i].VectorRank = vecRank[out[i].ID]
		out[i].TextScore = textScore[out[i].ID]
		out[i].VectorScore = vecScore[out[i].ID]
	}
	return out
}

// ranks gives each candidate's rank (from 1) and score on one side.
func ranks(rs []Ranked) (map[string]int, map[string]float64) {
	m := make(map[string]int, len(rs))
	sc := make(map[string]float64, len(rs))
	for i, r := range rs {
		if _, ok := m[r.ID]; !ok {
			m[r.ID] = i + 1
			sc[r.ID] = r.Score
		}
	}
	return m, sc
}

func ordered(rs []Ranked) []Fused {
	out := make([]Fused, len(rs))
	for i, r := range rs {
		out[i] = Fused{ID: r.ID, Score: r.Score}
	}
	return out
}

// rerank orders the vector pool by text score: pool members the text side
// matched come first in BM25 order, the rest keep their vector order. The
// caller restricts the text side to the pool (see RerankQuery).
func rerank(text, vector []Ranked) []Fused {
	inPool := make(map[string]bool, len(vector))
	for _, v := range vector {
		inPool[v.ID] = true
	}
	out := make([]Fused, 0, len(vector))
	seen := make(map[string]bool, len(vector))
	for _, t := range text {
		if inPool[t.ID] && !seen[t.ID] {
			seen[t.ID] = true
			out = append(out, Fused{ID: t.ID, Score: t.Score})
		}
	}
	for _, v := range vector {
		if !seen[v.ID] {
			seen[v.ID] = true
			out = append(out, Fused{ID: v.ID, Score: 0})
		}
	}
	return out
}

func bleveFusion(q memory.Query, text, vector []Ranked) []Fused {
	if len(vector) == 0 {
		return ordered(text)
	}
	if len(text) == 0 {
		return ordered(vector)
	}
	byID := make(map[string]*search.DocumentMatch, len(text)+len(vector))
	var hits search.DocumentMatchCollection
	get := func(id string) *search.DocumentMatch {
		if h, ok := byID[id]; ok {
			return h
		}
		h := &search.DocumentMatch{ID: id, HitNumber: uint64(len(hits))}
		byID[id] = h
		hits = append(hits, h)
		return h
	}
	for _, t := range text {
		get(t.ID).Score = t.Score
	}
	for _, v := range vector {
		h := get(v.ID)
		h.ScoreBreakdown = map[int]float64{0: v.Score}
	}
	w := q.Weights.OrDefault()
	// The window is the union: every candidate of either list keeps its rank,
	// and none is cut before we cut to k.
	window := len(hits)
	var res *fusion.FusionResult
	if q.Fusion == memory.RSF {
		res = fusion.RelativeScoreFusion(hits, []float64{w.Text, w.Vector}, window, 1, false)
	} else {
		res = fusion.ReciprocalRankFusion(hits, []float64{w.Text, w.Vector}, w.RankConstant, window, 1, false)
	}
	out := make([]Fused, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, Fused{ID: h.ID, Score: h.Score})
	}
	// bleve's fusion keeps a tie in the order the candidates were first
	// seen (their HitNumber): the text side's, then the vector side's
	// others, each by rank, which is memory.TieOrder (TestFuseTies holds
	// bleve to it)
	return out
}

package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"agentmem/memory/reranker"
)

// Reranker reads a query and a memory together and scores how well the
// memory answers it (a cross-encoder); the contract lives in package
// reranker, which its implementations import without the domain.
type Reranker = reranker.Reranker

// RerankExcerpt is about how many tokens of a long memory a reranker is
// sent: its part that best matches the query (see excerpt). A
// cross-encoder reads a few hundred tokens of a pair; the rest of a long
// turn would only be cut off at its end, whatever it held.
const RerankExcerpt = 200

// rerankCandidates is how many of the fused candidates the reranker
// orders for k results, and so the most a recall returns: the candidates a
// recall that fills examines (FillCandidates times k) unless the service
// was configured otherwise, never fewer than k.
func (s *Service) rerankCandidates(k int) int {
	if s.rerankN > 0 {
		return max(k, min(s.rerankN, MaxK))
	}
	return min(FillCandidates*k, MaxK)
}

// useReranker says whether req is reranked: by default whenever the
// service has a reranker; asking for one it does not have is an error.
func (s *Service) useReranker(req RecallRequest) (bool, error) {
	if req.Reranker == nil {
		return s.reranker != nil, nil
	}
	if *req.Reranker && s.reranker == nil {
		return false, &FieldError{"reranker", "this server has no reranker (configure one with --reranker-url)"}
	}
	return *req.Reranker, nil
}

// reranked is hits as the reranker orders them, noted in res. When the
// reranker fails the fused order stands, and res says why; only the
// caller's giving up fails the recall.
func (s *Service) reranked(ctx context.Context, query string, hits []Hit, res *RecallResult) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	out, err := s.rerank(ctx, query, hits)
	if err == nil {
		res.Reranker = s.reranker.ID()
		return out, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("reranking: %w", context.Cause(ctx))
	}
	s.log.Warn("the reranker failed; the fused order stands", "reranker", s.reranker.ID(), "err", err)
	res.RerankError = err.Error()
	return hits, nil
}

// rerank orders hits by the reranker's scores of query against each hit as
// the model would read it: its session's date, its speaker and its text
// (the part of a long one that best matches the query), relative dates
// annotated; never its session id or memory id, which are names, not
// content. Equal scores keep the fused order. Each hit's Score becomes the
// reranker's, and FusedRank its rank before.
func (s *Service) rerank(ctx context.Context, query string, hits []Hit) ([]Hit, error) {
	want := queryWords(query)
	docs := make([]string, len(hits))
	for i, h := range hits {
		m := h.Memory
		t := cmp.Or(excerpt(m.Text, want, RerankExcerpt, h.TextRank > 0), m.Text)
		docs[i] = m.SessionDate.Format("2006-01-02 Mon") + " · " + m.who() + ": " + display(t, m.SessionDate)
	}
	scores, err := s.reranker.Rerank(ctx, display(query, s.Now()), docs)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(hits) {
		return nil, fmt.Errorf("%s returned %d scores for %d memories", s.reranker.ID(), len(scores), len(hits))
	}
	if i := slices.IndexFunc(scores, func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }); i >= 0 {
		return nil, fmt.Errorf("%s returned %v for memory %d", s.reranker.ID(), scores[i], i)
	}
	out := slices.Clone(hits)
	for i := range out {
		out[i].FusedRank = i + 1
		out[i].Score = scores[i]
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out, nil
}

package memory

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

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

// RerankQuery is about how many tokens of the query a reranker is sent: a
// cross-encoder's window (often 512 tokens) holds the query and the
// memory together, and a hook's query is a whole prompt.
const RerankQuery = 150

// rerankQuery is the query as the reranker reads it: its first
// RerankQuery tokens or so, cut at a word, its relative dates resolved
// against today.
func (s *Service) rerankQuery(query string) string {
	if q, cut := firstTokens(query, RerankQuery); cut {
		query = q + " …"
	}
	return display(query, s.Now())
}

// rerankCandidates is how many of the fused candidates the reranker
// orders for k results, and so the most a recall returns: the candidates a
// recall that fills examines (FillCandidates times k), and never fewer
// than at the default k, so that a recall of a few memories is chosen
// from the same candidates as one of ten (the hooks recall ten, then the
// few that clear their floor); or as the service was configured, never
// fewer than k.
func (s *Service) rerankCandidates(k int) int {
	if s.rerankN > 0 {
		return max(k, min(s.rerankN, MaxK))
	}
	return min(FillCandidates*max(k, DefaultK), MaxK)
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
func (s *Service) reranked(ctx context.Context, query string, want *stems, hits []Hit, res *RecallResult) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	if why := s.reranker.pause.paused(); why != "" {
		res.RerankError = why
		return hits, nil
	}
	out, err := s.rerank(ctx, query, want, hits)
	if err == nil {
		s.reranker.pause.ok()
		res.Reranker = s.reranker.ID()
		return out, nil
	}
	d := s.reranker.pause.failed(err)
	if ctx.Err() != nil {
		// the caller gave up while the reranker kept it waiting: the next
		// recalls do without it for a while too
		return nil, fmt.Errorf("reranking: %w", context.Cause(ctx))
	}
	s.log.Warn("the reranker failed; the fused order stands, and the reranker is asked again in "+d.String(), "reranker", s.reranker.ID(), "err", err)
	res.RerankError = err.Error()
	return hits, nil
}

// Guarded is a reranker with the pauses of its failures (see pause). They
// belong to the endpoint, not to a service: every service given one
// Guarded pauses together.
type Guarded struct {
	Reranker
	pause pause
}

// Guard returns r with pauses of its own; r itself if it has them.
func Guard(r Reranker) *Guarded {
	if g, ok := r.(*Guarded); ok {
		return g
	}
	return &Guarded{Reranker: r}
}

// Pauses of a reranker that failed: the first failure pauses it for
// rerankPauseMin, each one after it in a row for twice as long, up to
// rerankPauseMax; an answer ends them.
const (
	rerankPauseMin = 5 * time.Second
	rerankPauseMax = 2 * time.Minute
)

// pause skips a reranker that failed for a while, so that one that hangs
// costs one recall its time-out, not every recall. Recalls that fail
// together (one outage) count as one failure, and when a pause ends one
// recall asks the reranker while the others still do without it.
type pause struct {
	mu     sync.Mutex
	now    func() time.Time // the wall clock (the service's may be fixed)
	fails  int
	until  time.Time
	last   string
	trying bool // a recall asks the reranker after a pause
}

// paused says why the reranker is not to be asked now ("": ask it).
func (p *pause) paused() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	switch {
	case p.fails == 0:
		return ""
	case now.Before(p.until):
		return fmt.Sprintf("not asked: it failed %d time(s) in a row, and is asked again in %s (last error: %s)",
			p.fails, p.until.Sub(now).Round(time.Second), p.last)
	case p.trying:
		return fmt.Sprintf("not asked: another recall is asking it again after %d failure(s) (last error: %s)", p.fails, p.last)
	}
	p.trying = true
	return ""
}

// failed notes a failure and returns the pause it starts; one that comes
// while a pause runs (a recall that asked before it began) starts none.
func (p *pause) failed(err error) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	if p.fails > 0 && now.Before(p.until) && !p.trying {
		return p.until.Sub(now)
	}
	p.trying = false
	p.fails++
	d := min(rerankPauseMin<<min(p.fails-1, 10), rerankPauseMax)
	p.until, p.last = now.Add(d), err.Error()
	return d
}

func (p *pause) ok() {
	p.mu.Lock()
	p.fails, p.trying = 0, false
	p.mu.Unlock()
}

func (p *pause) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// rerank orders hits by the reranker's scores of query against each hit as
// the model would read it: its session's date, its speaker and its text
// (the part of a long one that best matches the query), relative dates
// annotated; never its session id or memory id, which are names, not
// content. Equal scores keep the fused order. Each hit's Score becomes the
// reranker's, and FusedRank its rank before.
func (s *Service) rerank(ctx context.Context, query string, want *stems, hits []Hit) ([]Hit, error) {
	docs := make([]string, len(hits))
	for i, h := range hits {
		m := h.Memory
		t := cmp.Or(excerpt(m.Text, want, RerankExcerpt, h.TextRank > 0), m.Text)
		docs[i] = m.SessionDate.Format(dayFormat) + " · " + m.who() + ": " + display(t, m.SessionDate)
	}
	scores, err := s.reranker.Rerank(ctx, s.rerankQuery(query), docs)
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

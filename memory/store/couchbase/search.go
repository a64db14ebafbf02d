package couchbase

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Search runs q as one Search request (see build) and returns at most q.K
// hits, best first; a hybrid q that asks for more than its pool, that the
// learned order ranks or that asks for the ranks takes one request per
// side (see sides). When the server fuses the two sides it reports one
// score per hit, so TextRank and VectorRank are set only for single-side
// modes, Rerank and the fused sides.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	if q.Vector != nil && len(q.Vector) != s.dims {
		return nil, fmt.Errorf("the query vector has %d dimensions; the store holds %s", len(q.Vector), describe(s.embedder, s.dims))
	}
	q.Speakers = nil
	if names := hybrid.QueryNames(q.Text); len(names) > 0 && q.Fusion != memory.VectorOnly {
		// the speakers refine the text side's ranking: without them the
		// names stay words of the text, as any other name
		sp, err := s.speakers(ctx, q.Namespace, names)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			s.log.Warn("cannot read the namespace's speakers; the query's names stay words of the text", "namespace", q.Namespace, "err", brief(err))
		}
		q.Speakers = sp
	}
	if q.Fusion == memory.Rerank && q.Vector != nil {
		return s.rerank(ctx, q)
	}
	if sides(q) {
		return s.fuseSides(ctx, q)
	}
	r, err := build(q, s.cfg.Fusion)
	if err != nil || r == nil {
		return nil, err
	}
	ranked, err := s.send(ctx, r)
	if err != nil {
		return nil, err
	}
	fused := make([]hybrid.Fused, len(ranked))
	for i, h := range ranked {
		fused[i] = hybrid.Fused{ID: h.ID, Score: h.Score}
		switch r.side {
		case sideText:
			fused[i].TextRank = i + 1
		case sideVector:
			fused[i].VectorRank = i + 1
		}
	}
	return s.rank(ctx, q, fused)
}

// rank reads the candidates' memories and ranks them as the embedded
// store does (hybrid.Rank).
func (s *Store) rank(ctx context.Context, q memory.Query, fused []hybrid.Fused) ([]memory.Hit, error) {
	ms, err := s.load(ctx, q.Namespace, fused)
	if err != nil {
		return nil, err
	}
	return hybrid.Rank(q, fused, ms), nil
}

// sides says whether q is run as two requests, one per side, fused here:
// a hybrid recall that asks for more than its pool (one that fills the
// space excerpts save) wants every fused candidate of the two pools, up to
// twice the pool, and the server's fusion returns at most its window (the
// pool) of them: a wider window would deepen both sides and rank the best
// k otherwise. The learned order (hybrid.Learned) reads each side's rank
// and score of every candidate, which the server's fusion does not report,
// and so does a caller that asks for the ranks (Query.Ranks: a structured
// result, whose text_rank the hooks' relevance floor reads).
func sides(q memory.Query) bool {
	return q.Vector != nil && (q.Fusion == memory.RRF || q.Fusion == memory.RSF) && (q.K > q.PoolSize() || hybrid.Learned(q) || q.Ranks)
}

// fuseSides runs the text side and the kNN side of q as two requests, at
// the same time, and fuses them with hybrid.Fuse, as the embedded store
// does.
func (s *Store) fuseSides(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	text, vec, err := sideRequests(q)
	if err != nil {
		return nil, err
	}
	var th []hybrid.Ranked
	var terr error
	var wg sync.WaitGroup
	if text != nil {
		wg.Go(func() { th, terr = s.send(ctx, text) })
	}
	vh, verr := s.send(ctx, vec)
	wg.Wait()
	if terr != nil {
		return nil, terr
	}
	if verr != nil {
		return nil, verr
	}
	return s.rank(ctx, q, hybrid.Fuse(q, th, vh))
}

// rerank is one of the modes that take two requests, as its text side is
// restricted to what its vector side found: the kNN pool first, then the
// text query over those documents, ordered by hybrid.Fuse as the embedded
// store orders them.
func (s *Store) rerank(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	vq := q
	vq.Fusion = memory.VectorOnly
	vq.Periods = nil // its pool, never deeper (memory.Query.Depth)
	vq.Pool = q.PoolSize()
	vq.K = vq.Pool
	r, err := build(vq, s.cfg.Fusion)
	if err != nil || r == nil {
		return nil, err
	}
	vec, err := s.send(ctx, r)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(vec))
	for i, v := range vec {
		keys[i] = v.ID
	}
	var text []hybrid.Ranked
	tr, err := rerankRequest(q, keys)
	if err != nil {
		return nil, err
	}
	if tr != nil {
		if text, err = s.send(ctx, tr); err != nil {
			return nil, err
		}
	}
	return s.rank(ctx, q, hybrid.Fuse(q, text, vec))
}

// search runs r against the scoped index, consistent with every write
// this Store has made.
func (s *Store) search(ctx context.Context, r *request) (*gocb.SearchResult, error) {
	req, opts := r.gocb()
	opts.Context = ctx
	opts.Timeout = s.cfg.SearchTimeout
	opts.ConsistentWith = s.written.state(time.Now())
	return s.scope.Search(s.cfg.Index, req, &opts)
}

// send runs one request (see search) and returns its hits. Hit ids are
// document keys.
func (s *Store) send(ctx context.Context, r *request) ([]hybrid.Ranked, error) {
	res, err := s.search(ctx, r)
	if err != nil {
		return nil, wrap(err, s.cfg, "searching index %s", s.cfg.Index)
	}
	var out []hybrid.Ranked
	for res.Next() {
		row := res.Row()
		out = append(out, hybrid.Ranked{ID: row.ID, Score: row.Score})
	}
	if err := res.Err(); err != nil {
		res.Close()
		return nil, wrap(err, s.cfg, "reading the hits of index %s", s.cfg.Index)
	}
	if err := s.partial(res); err != nil {
		res.Close()
		return nil, err
	}
	if err := res.Close(); err != nil {
		return nil, wrap(err, s.cfg, "reading the hits of index %s", s.cfg.Index)
	}
	return out, nil
}

// load reads the memories of fused (document keys), keyed like fused:
// those deleted since they were indexed, or of another namespace, are left
// out.
func (s *Store) load(ctx context.Context, ns string, fused []hybrid.Fused) (map[string]memory.Memory, error) {
	keys := make([]string, len(fused))
	for i, f := range fused {
		keys[i] = f.ID
	}
	docs, err := s.memories(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]memory.Memory, len(docs))
	for k, d := range docs {
		if d.Namespace != ns {
			// The filter makes this impossible; never hand out another
			// namespace's memory if it happens all the same.
			s.log.Error("search returned a memory of another namespace", "key", k, "namespace", ns)
			continue
		}
		out[k] = d.memory()
	}
	return out, nil
}

// partial fails a search that some of the index's partitions did not
// answer: the service returns what the others found with HTTP 200, and a
// recall from part of the memories would look like a complete one.
func (s *Store) partial(res *gocb.SearchResult) error {
	md, err := res.MetaData()
	if err != nil || md.Metrics.ErrorPartitionCount == 0 {
		return nil
	}
	var why []string
	for p, e := range md.Errors {
		why = append(why, p+": "+e)
	}
	slices.Sort(why)
	return &Error{
		Op:   fmt.Sprintf("searching index %s", s.cfg.Index),
		Err:  fmt.Errorf("%d of %d partitions failed (%s)", md.Metrics.ErrorPartitionCount, md.Metrics.TotalPartitionCount, strings.Join(why, "; ")),
		Hint: fmt.Sprintf("a partition that timed out needs a longer couchbase-search-timeout (now %s); one that is not ready shows on the Search page of the Couchbase UI", s.cfg.SearchTimeout),
	}
}

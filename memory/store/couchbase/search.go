package couchbase

import (
	"context"
	"fmt"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Search runs q as one Search request (see build) and returns at most q.K
// hits, best first. When the server fuses the two sides it reports one
// score per hit, so TextRank and VectorRank are set only for single-side
// modes and Rerank.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	if q.Vector != nil && len(q.Vector) != s.dims {
		return nil, fmt.Errorf("the query vector has %d dimensions; the store holds %s", len(q.Vector), describe(s.embedder, s.dims))
	}
	if q.Fusion == memory.Rerank && q.Vector != nil {
		return s.rerank(ctx, q)
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
	return s.hits(ctx, q.Namespace, fused)
}

// rerank is the one mode that takes two requests, as its text side is
// restricted to what its vector side found: the kNN pool first, then the
// text query over those documents, ordered by hybrid.Fuse as the embedded
// store orders them.
func (s *Store) rerank(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	vq := q
	vq.Fusion = memory.VectorOnly
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
	return s.hits(ctx, q.Namespace, hybrid.Fuse(q, text, vec))
}

// send runs one request against the scoped index, consistent with every
// write this Store has made. Hit ids are document keys.
func (s *Store) send(ctx context.Context, r *request) ([]hybrid.Ranked, error) {
	req, opts := r.gocb()
	opts.Context = ctx
	opts.Timeout = s.cfg.SearchTimeout
	opts.ConsistentWith = s.written.state(time.Now())
	res, err := s.scope.Search(s.cfg.Index, req, &opts)
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
	if err := res.Close(); err != nil {
		return nil, wrap(err, s.cfg, "reading the hits of index %s", s.cfg.Index)
	}
	return out, nil
}

// hits reads the memories of fused (document keys) and keeps those still
// there and in ns, in order.
func (s *Store) hits(ctx context.Context, ns string, fused []hybrid.Fused) ([]memory.Hit, error) {
	keys := make([]string, len(fused))
	for i, f := range fused {
		keys[i] = f.ID
	}
	docs, err := s.memories(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Hit, 0, len(fused))
	for _, f := range fused {
		d, ok := docs[f.ID]
		if !ok {
			continue // deleted since it was indexed
		}
		if d.Namespace != ns {
			// The filter makes this impossible; never hand out another
			// namespace's memory if it happens all the same.
			s.log.Error("search returned a memory of another namespace", "key", f.ID, "namespace", ns)
			continue
		}
		out = append(out, memory.Hit{Memory: d.memory(), Score: f.Score, TextRank: f.TextRank, VectorRank: f.VectorRank})
	}
	return out, nil
}

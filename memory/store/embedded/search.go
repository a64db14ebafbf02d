package embedded

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Search runs the text side of q in bleve and the vector side in RAM, and
// fuses them.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()

	pool := q.PoolSize()
	var text, vec []hybrid.Ranked
	if q.Fusion != memory.TextOnly && q.Vector != nil {
		vec = s.vectors[q.Namespace].search(q, pool)
	}
	var err error
	switch q.Fusion {
	case memory.VectorOnly:
	case memory.Rerank:
		ids := make([]string, len(vec))
		for i, v := range vec {
			ids[i] = key(q.Namespace, v.ID)
		}
		if tq := hybrid.RerankQuery(q, ids); tq != nil {
			text, err = s.text(ctx, bleve.NewSearchRequestOptions(tq, len(ids), 0, false))
		}
	default:
		if r := hybrid.SearchRequest(q); r != nil {
			text, err = s.text(ctx, r)
		}
	}
	if err != nil {
		return nil, err
	}
	var sessions []hybrid.Ranked
	if r := hybrid.PageRequest(q, sessionPages); r != nil {
		if sessions, err = s.pages(ctx, r); err != nil {
			return nil, err
		}
	}
	fused := hybrid.Fuse(q, text, vec)
	ms, err := s.load(q.Namespace, fused)
	if err != nil {
		return nil, err
	}
	return hybrid.Rank(q, fused, ms, sessions), nil
}

// sessionPages is how many of the best-matching session pages weigh the
// sessions of a recall's candidates.
const sessionPages = 50

// pages runs a page search and returns each page's session and score.
func (s *Store) pages(ctx context.Context, r *bleve.SearchRequest) ([]hybrid.Ranked, error) {
	res, err := s.index.SearchInContext(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("session search: %w", err)
	}
	out := make([]hybrid.Ranked, 0, len(res.Hits))
	for _, h := range res.Hits {
		if _, session, _, ok := parsePageKey(h.ID); ok {
			out = append(out, hybrid.Ranked{ID: session, Score: h.Score})
		}
	}
	return out, nil
}

func (s *Store) text(ctx context.Context, r *bleve.SearchRequest) ([]hybrid.Ranked, error) {
	res, err := s.index.SearchInContext(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	out := make([]hybrid.Ranked, len(res.Hits))
	for i, h := range res.Hits {
		_, id := splitKey(h.ID)
		out[i] = hybrid.Ranked{ID: id, Score: h.Score}
	}
	return out, nil
}

// load reads the memories of the fused candidates; one deleted since it
// was indexed is left out.
func (s *Store) load(ns string, fused []hybrid.Fused) (map[string]memory.Memory, error) {
	out := make(map[string]memory.Memory, len(fused))
	err := s.view(func(tx *bolt.Tx) error { // under the damage guard (damage.go)
		mem := tx.Bucket(bucketMem)
		for _, f := range fused {
			raw := mem.Get([]byte(key(ns, f.ID)))
			if raw == nil {
				continue
			}
			m, err := decode(raw)
			if err != nil {
				return err
			}
			out[f.ID] = m
		}
		return nil
	})
	return out, err
}

// flush makes every acknowledged write searchable.
func (s *Store) flush() error {
	s.mu.RLock()
	n := s.npend
	s.mu.RUnlock()
	if n == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushLocked()
}

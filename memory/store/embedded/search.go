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
	fused := hybrid.Fuse(q, text, vec)
	return s.hits(q.Namespace, fused)
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

func (s *Store) hits(ns string, fused []hybrid.Fused) ([]memory.Hit, error) {
	out := make([]memory.Hit, 0, len(fused))
	err := s.db.View(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		for _, f := range fused {
			raw := mem.Get([]byte(key(ns, f.ID)))
			if raw == nil {
				continue // deleted since it was indexed
			}
			m, err := decode(raw)
			if err != nil {
				return err
			}
			out = append(out, memory.Hit{Memory: m, Score: f.Score, TextRank: f.TextRank, VectorRank: f.VectorRank})
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

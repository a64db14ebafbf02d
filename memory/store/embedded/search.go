package embedded

import (
	"context"
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Search runs the text side of q in bleve and the vector side in RAM, at
// the same time (Rerank needs the vector side first), and fuses them.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	if err := s.flush(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()

	pool := q.PoolSize()
	var text, vec []hybrid.Ranked
	var err, verr error
	wantVec := q.Fusion != memory.TextOnly && q.Vector != nil
	var wg sync.WaitGroup
	if wantVec {
		if q.Fusion == memory.Rerank || q.Fusion == memory.VectorOnly || sequential {
			vec, verr = s.vecSearch(q, pool)
		} else {
			wg.Go(func() { vec, verr = s.vecSearch(q, pool) })
		}
	}
	switch q.Fusion {
	case memory.VectorOnly:
	case memory.Rerank:
		if verr != nil {
			return nil, verr
		}
		ids := make([]string, len(vec))
		for i, v := range vec {
			ids[i] = key(q.Namespace, v.ID)
		}
		if tq := hybrid.RerankQuery(q, ids); tq != nil {
			text, err = s.text(ctx, bleve.NewSearchRequestOptions(tq, len(ids), 0, false))
		}
	default:
		// the shared tree (hybrid.SearchRequest), run with its filter as
		// a non-scoring clause: the same ranking, less work
		if tq := s.textQuery(q); tq != nil {
			text, err = s.textTop(ctx, tq, pool) // MaxScore: maxscore.go
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if verr != nil {
		return nil, verr
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

// sequential makes Search run the text and vector sides one after the
// other, as it did before they ran at the same time: for tests and
// benchmarks that compare the two.
var sequential = false

// sessionPages is how many of the best-matching session pages weigh the
// sessions of a recall's candidates.
const sessionPages = 50

// pages runs a page search and returns each page's session and score.
func (s *Store) pages(ctx context.Context, r *bleve.SearchRequest) ([]hybrid.Ranked, error) {
	res, err := s.searchText(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("session search: %w", err)
	}
	out := make([]hybrid.Ranked, 0, len(res.Hits))
	for _, h := range res.Hits {
		if _, session, _, ok := parsePageKey(h.ID); ok {
			out = append(out, hybrid.Ranked{ID: session, Score: h.Score})
		}
	}
	hybrid.SortRanked(out)
	return out, nil
}

func (s *Store) text(ctx context.Context, r *bleve.SearchRequest) ([]hybrid.Ranked, error) {
	res, err := s.searchText(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("text search: %w", err)
	}
	out := make([]hybrid.Ranked, len(res.Hits))
	for i, h := range res.Hits {
		_, id := splitKey(h.ID)
		out[i] = hybrid.Ranked{ID: id, Score: h.Score}
	}
	hybrid.SortRanked(out)
	return out, nil
}

// searchText runs r with BM25 statistics that depend only on the documents
// stored, not on the index's segments (see hybrid.BM25Context): the same
// memories score the same in a store with a history and in its import.
func (s *Store) searchText(ctx context.Context, r *bleve.SearchRequest) (*bleve.SearchResult, error) {
	n, err := s.index.DocCount()
	if err != nil {
		return nil, err
	}
	return s.index.SearchInContext(hybrid.BM25Context(ctx, n), r)
}

// load reads the memories of the fused candidates; one deleted since it
// was indexed is left out.
func (s *Store) load(ns string, fused []hybrid.Fused) (map[string]memory.Memory, error) {
	out := make(map[string]memory.Memory, len(fused))
	err := s.view(func(tx *bolt.Tx) error { // under the damage guard (damage.go)
		mem := tx.Bucket(bucketMem)
		for _, f := range fused {
			m, err := getMemory(mem, []byte(key(ns, f.ID)))
			if err != nil {
				return err
			}
			if m == nil {
				continue
			}
			out[f.ID] = *m
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

// textQuery is q's text query as the embedded store runs it: filtered(q),
// or only its scoring part when the filter selects every document (the
// index holds no namespace but q's, and q has no session or date bound).
func (s *Store) textQuery(q memory.Query) query.Query {
	if q.SessionID == "" && q.After.IsZero() && q.Before.IsZero() && len(s.namespaces) == 1 && s.namespaces[q.Namespace] {
		return hybrid.TextMatch(q)
	}
	return filtered(q)
}

// loadNamespaces reads the namespaces the text index holds (its terms of
// the namespace field). Put adds to them; a namespace emptied by a delete
// stays, so the set never misses one.
func (s *Store) loadNamespaces() error {
	s.namespaces = map[string]bool{}
	d, err := s.index.FieldDict(hybrid.FieldNamespace)
	if err != nil {
		return fmt.Errorf("reading the text index's namespaces: %w", err)
	}
	defer d.Close()
	for {
		e, err := d.Next()
		if err != nil {
			return fmt.Errorf("reading the text index's namespaces: %w", err)
		}
		if e == nil {
			return nil
		}
		s.namespaces[e.Term] = true
	}
}

// filtered is q's text query with its filter as a clause: the scoring
// part of the shared tree (hybrid.TextMatch) with hybrid.Filter as bleve's
// non-scoring filter clause, which ranks exactly as hybrid.TextQuery does
// (its filter conjuncts score 0) without scoring the filter's terms; nil
// when q has nothing lexical to match.
func filtered(q memory.Query) query.Query {
	m := hybrid.TextMatch(q)
	if m == nil {
		return nil
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(m)
	bq.AddFilter(hybrid.Filter(q))
	return bq
}

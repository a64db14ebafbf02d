package embedded

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Search runs the text side of q in bleve and the vector side in RAM, at
// the same time (Rerank needs the vector side first), and fuses them.
func (s *Store) Search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	hits, err := s.search(ctx, q)
	var d *indexDamage
	if errors.As(err, &d) {
		// a read of the text index failed: rebuilt from the records
		// (repair.go), then searched again
		if err := s.repairText(ctx, q.Namespace, d); err != nil {
			return nil, err
		}
		return s.search(ctx, q)
	}
	return hits, err
}

// search is one try of Search, under the namespace's read lock.
func (s *Store) search(ctx context.Context, q memory.Query) ([]memory.Hit, error) {
	t, unlock, err := s.readText(ctx, q.Namespace) // nil: the namespace holds nothing
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err = querySpeakers(ctx, t, &q); err != nil {
		return nil, err
	}

	pool := q.Depth() // hybrid.Rank keeps what lies past q's pool only in its periods
	var text, vec []hybrid.Ranked
	var verr error
	wantVec := q.Fusion != memory.TextOnly && q.Vector != nil
	var wg sync.WaitGroup
	// the vector search runs under the read lock, so it must end before
	// the unlock, even when the text side panics (a recall's panic is
	// recovered, and an Add or Delete may then release the memory the
	// search would still read)
	defer wg.Wait()
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
		text, err = rerankText(ctx, t, q, vec)
	default:
		// the shared tree (hybrid.SearchRequest) without the namespace
		// filter, which the namespace's own index does not need; MaxScore
		// (maxscore.go) gives bleve's ranking without scoring every
		// posting of the question's common words
		if tq := textQuery(q); tq != nil && t != nil {
			text, err = t.textSide(ctx, tq, pool)
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if verr != nil {
		return nil, verr
	}
	fused := hybrid.Fuse(q, text, vec)
	ms, err := s.load(q.Namespace, fused)
	if err != nil {
		return nil, err
	}
	return hybrid.Rank(q, fused, ms), nil
}

// querySpeakers sets q's speakers: the names of the query (QueryNames)
// that speak in the namespace's index t (nil: it holds nothing), read
// only where q has a text side.
func querySpeakers(ctx context.Context, t *textIndex, q *memory.Query) error {
	q.Speakers = nil
	if names := hybrid.QueryNames(q.Text); len(names) > 0 && t != nil && q.Fusion != memory.VectorOnly {
		return t.read(ctx, func() (err error) { q.Speakers, err = t.speakers(ctx, names); return err })
	}
	return nil
}

// rerankText is Rerank's text side: the text scores of the vector
// side's candidates vec in t (nil: the namespace holds nothing).
func rerankText(ctx context.Context, t *textIndex, q memory.Query, vec []hybrid.Ranked) (text []hybrid.Ranked, err error) {
	ids := make([]string, len(vec))
	for i, v := range vec {
		ids[i] = key(q.Namespace, v.ID)
	}
	if tq := hybrid.RerankQuery(q, ids); tq != nil && t != nil {
		err = t.read(ctx, func() (err error) {
			text, err = t.text(ctx, bleve.NewSearchRequestOptions(tq, len(ids), 0, false))
			return err
		})
	}
	return text, err
}

// sequential makes Search run the text and vector sides one after the
// other, as it did before they ran at the same time: for tests and
// benchmarks that compare the two.
var sequential = false

// speakers returns the speakers of t's namespace named by one of names
// (hybrid.QueryNames, hybrid.SpeakerNamed) that a stored memory still has:
// a deleted document's terms may stay in the dictionary until its segment
// is merged, so each is checked against the live documents, and the
// ranking depends only on what is stored.
func (t *textIndex) speakers(ctx context.Context, names []string) ([]string, error) {
	d, err := t.idx.FieldDict(hybrid.FieldSpeaker)
	if err != nil {
		return nil, fmt.Errorf("reading the speakers: %w", err)
	}
	var named []string
	for {
		e, err := d.Next()
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("reading the speakers: %w", err)
		}
		if e == nil {
			break
		}
		if hybrid.SpeakerNamed(e.Term, names) {
			named = append(named, e.Term)
		}
	}
	if err := d.Close(); err != nil {
		return nil, fmt.Errorf("reading the speakers: %w", err)
	}
	out := named[:0]
	for _, sp := range named {
		tq := bleve.NewTermQuery(sp)
		tq.SetField(hybrid.FieldSpeaker)
		r := bleve.NewSearchRequestOptions(tq, 0, 0, false)
		r.Score = "none"
		res, err := t.idx.SearchInContext(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("reading the speakers: %w", err)
		}
		if res.Total > 0 {
			out = append(out, sp)
		}
	}
	return out, nil
}

func (t *textIndex) text(ctx context.Context, r *bleve.SearchRequest) ([]hybrid.Ranked, error) {
	res, err := t.search(ctx, r)
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

// search runs r with BM25 statistics that depend only on the documents
// stored in the namespace, not on the index's segments (see
// hybrid.BM25Context): the same memories score the same in a store with a
// history and in its import, and whatever other namespaces hold.
//
// Equal scores at the cut are decided by document id: bleve decides them
// by its internal order, which depends on how the documents were batched
// and merged, so the same memories could make different candidates from
// one run to the next. search asks for more hits than r does, as many
// times more as it takes to hold every hit that scores as the last one
// kept (duplicated turns score the same), then keeps r's number in order
// of score and id.
func (t *textIndex) search(ctx context.Context, r *bleve.SearchRequest) (*bleve.SearchResult, error) {
	n, err := t.idx.DocCount()
	if err != nil {
		return nil, err
	}
	ctx = hybrid.BM25Context(ctx, n)
	size := r.Size
	for want := 2 * size; ; want *= 2 {
		r.Size = want
		res, err := t.idx.SearchInContext(ctx, r)
		if err != nil || len(res.Hits) <= size {
			return res, err
		}
		if tieHeld(len(res.Hits), want, size, func(i int) float64 { return res.Hits[i].Score }) {
			slices.SortStableFunc(res.Hits, func(a, b *search.DocumentMatch) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
			})
			res.Hits = res.Hits[:size]
			return res, nil
		}
	}
}

// tieHeld tells whether got hits, asked for want (best first), hold every
// hit that scores as the size-th: fewer came than were asked for, or the
// last scores less.
func tieHeld(got, want, size int, score func(int) float64) bool {
	return got < want || score(want-1) < score(size-1)
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

// textQuery is q's text query as the embedded store runs it in q's
// namespace's index: only the scoring part of the shared tree when q has
// no session or date bound (without the session it leaves out, if any),
// else filtered(q).
func textQuery(q memory.Query) query.Query {
	if q.SessionID != "" || !q.After.IsZero() || !q.Before.IsZero() {
		return filtered(q)
	}
	m, xq := hybrid.TextMatch(q), hybrid.ExcludedSession(q)
	if xq == nil || m == nil {
		return m
	}
	// a session left out, alone: a must-not clause, which MaxScore reads
	// as the few documents never to admit, without the namespace's filter
	// (textTop)
	bq := bleve.NewBooleanQuery()
	bq.AddMust(m)
	bq.AddMustNot(xq)
	return bq
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

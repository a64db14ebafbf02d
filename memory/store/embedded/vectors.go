package embedded

import (
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
	"agentmem/memory/store/embedded/vectors"
)

// The vector side: one vectors.Index per namespace (int8 codes scanned with
// SIMD, an exact float32 re-score of the candidates, an inverted file once
// a namespace passes vectors.DefaultApproxAt windows), kept in step with
// every write and delete under s.mu, and saved as snapshots (snapshot.go)
// that the next open maps instead of decoding every record.

// approxAt is the number of windows in a namespace from which its index
// keeps an inverted file (0: vectors.DefaultApproxAt); tests lower it.
var approxAt = 0

// vecSide is the store's vector state; s.mu guards it.
type vecSide struct {
	byNS map[string]*vectors.Index
	// unsaved counts, per namespace, the windows written or removed since
	// its snapshot was saved (or since open, when it has none); a
	// namespace in it differs from its snapshot.
	unsaved map[string]int
	// stamps is the journal sequence of each namespace's snapshot on disk;
	// through, the sequence up to which the manifest says the namespace
	// is unchanged since (at least its stamp). The journal is kept back to
	// the oldest through.
	stamps, through map[string]uint64
	// storeID names this store in its snapshots' tags.
	storeID string
}

func newVecSide() *vecSide {
	return &vecSide{byNS: map[string]*vectors.Index{}, unsaved: map[string]int{}, stamps: map[string]uint64{}, through: map[string]uint64{}}
}

// release gives every namespace's vectors back to the system now
// (vectors.Index.Release) and forgets them: at close, and before the side
// is loaded again. Callers hold s.mu.
func (v *vecSide) release() {
	if v == nil {
		return
	}
	for _, x := range v.byNS {
		x.Release()
	}
	clear(v.byNS)
}

// emptyVectors gives the vector side's memory back and starts it empty.
// Callers hold s.mu or have the store to themselves.
func (s *Store) emptyVectors() {
	s.vec.release()
	s.vec = newVecSide()
}

// vecIndex returns ns's index, creating it.
func (s *Store) vecIndex(ns string) (*vectors.Index, error) {
	x := s.vec.byNS[ns]
	if x == nil {
		var err error
		if x, err = vectors.New(s.dims, vectors.Options{ApproxAt: approxAt}); err != nil {
			return nil, err
		}
		s.vec.byNS[ns] = x
	}
	return x, nil
}

// vecPut puts ms's windows in their namespaces' indexes, replacing what a
// memory had; a memory without vectors is removed. Callers hold s.mu and
// have checked the vectors (dimension, finite values).
func (s *Store) vecPut(ms []memory.Memory) error {
	if s.dims == 0 {
		return nil
	}
	for _, m := range ms {
		x, err := s.vecIndex(m.Namespace)
		if err != nil {
			return err
		}
		if err := x.Add(m.ID, m.SessionID, m.SessionDate.UnixNano(), m.Vectors); err != nil {
			return err
		}
		s.vec.unsaved[m.Namespace] += max(1, len(m.Vectors))
	}
	if err := s.saveDue(ms); err != nil {
		// the write is committed; a snapshot only saves the next open
		// work, and the next save (or open) tries again
		s.log.Warn("saving a vector snapshot", "err", err)
	}
	return nil
}

// vecRemove drops ids from ns's index. Callers hold s.mu.
func (s *Store) vecRemove(ns string, ids []string) {
	x := s.vec.byNS[ns]
	if x == nil {
		return
	}
	x.Remove(ids...)
	s.vec.unsaved[ns] += len(ids)
	if x.Len() == 0 {
		delete(s.vec.byNS, ns)
	}
}

// vecSearch returns the n memories of q's namespace whose best window is
// most similar to q.Vector, within q's session and date bounds, best first
// (ties: smaller id first). Callers hold s.mu for reading.
func (s *Store) vecSearch(q memory.Query, n int) ([]hybrid.Ranked, error) {
	x := s.vec.byNS[q.Namespace]
	if x == nil || len(q.Vector) != x.Dims() || n <= 0 {
		return nil, nil
	}
	var f vectors.Filter
	f.Session, f.NotSession = q.SessionID, q.ExcludeSession
	if !q.After.IsZero() {
		f.After = q.After.UnixNano()
	}
	if !q.Before.IsZero() {
		f.Before = q.Before.UnixNano()
	}
	rs, err := x.Search(q.Vector, n, f)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]hybrid.Ranked, len(rs))
	for i, r := range rs {
		out[i] = hybrid.Ranked{ID: r.ID, Score: r.Score}
	}
	return out, nil
}

// loadVectors fills the vector side: each namespace from its snapshot when
// one is usable (brought up to date from the journal), the others from
// the records. Callers hold s.mu or have the store to themselves.
func (s *Store) loadVectors() error {
	s.emptyVectors()
	if s.dims == 0 {
		// no vectors: snapshots left from before the store's embedder
		// became none are another embedder's
		return s.dropSnapshots()
	}
	covered, err := s.loadSnapshots()
	if err != nil {
		return err
	}
	start := time.Now()
	n, stale := 0, 0
	bulk := map[string]*vectors.Index{}
	err = s.view(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		c := tx.Bucket(bucketVec).Cursor()
		for k, v := c.First(); k != nil; {
			ns, _ := splitKey(string(k))
			if covered[ns] {
				// past the namespace: its separator 0x1f plus one
				k, v = c.Seek([]byte(ns + "\x20"))
				continue
			}
			raw := mem.Get(k)
			if raw != nil {
				other, err := s.loadRecordVectors(raw, v, bulk)
				if err != nil {
					return err
				}
				if other {
					stale++ // left by an interrupted reindex
				} else {
					n++
				}
			}
			k, v = c.Next()
		}
		return nil
	})
	for _, x := range bulk {
		x.Bulk(false) // its inverted file, built once on all its rows
	}
	if stale > 0 {
		s.log.Warn("memories embedded by another model are left out of vector search; run `agentmem reindex`", "memories", stale)
	}
	if n > 0 {
		s.log.Debug("vectors loaded from the records", "memories", n, "took", time.Since(start).Round(time.Millisecond))
	}
	return err
}

// loadRecordVectors adds the vectors v of the memory record raw to its
// namespace's index, the index put in bulk mode (and in bulk) on its
// first; a memory that another embedder made is left out (other).
func (s *Store) loadRecordVectors(raw, v []byte, bulk map[string]*vectors.Index) (other bool, err error) {
	m, err := decode(raw)
	if err != nil {
		return false, err
	}
	if m.Embedder != s.embedderID {
		return true, nil
	}
	if m.Vectors, err = decodeVectors(v, s.dims); err != nil {
		return false, err
	}
	x, err := s.vecIndex(m.Namespace)
	if err != nil {
		return false, err
	}
	if bulk[m.Namespace] == nil {
		x.Bulk(true)
		bulk[m.Namespace] = x
	}
	if err := x.Add(m.ID, m.SessionID, m.SessionDate.UnixNano(), m.Vectors); err != nil {
		return false, fmt.Errorf("memory %s: %w", m.ID, err)
	}
	s.vec.unsaved[m.Namespace] += len(m.Vectors)
	return false, nil
}

// readVectors reads memory k's current record and vectors from tx: ok is
// false when it is gone, has no vectors, or was embedded by another model.
func (s *Store) readVectors(tx *bolt.Tx, k []byte) (m memory.Memory, ok bool, err error) {
	raw := tx.Bucket(bucketMem).Get(k)
	v := tx.Bucket(bucketVec).Get(k)
	if raw == nil || v == nil {
		return m, false, nil
	}
	if m, err = decode(raw); err != nil {
		return m, false, err
	}
	if m.Embedder != s.embedderID {
		return m, false, nil
	}
	m.Vectors, err = decodeVectors(v, s.dims)
	return m, err == nil, err
}

// NearestVectors returns the ids of the k memories of ns whose best window
// is most similar to v, best first: the vector side of a search before
// fusion, for benchmarks (recall against an exact scan) and diagnostics.
func (s *Store) NearestVectors(ns string, v []float32, k int) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rs, err := s.vecSearch(memory.Query{Namespace: ns, Vector: v}, k)
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids, err
}

// VectorStats describes ns's vector index (zero when it has none).
func (s *Store) VectorStats(ns string) vectors.Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if x := s.vec.byNS[ns]; x != nil {
		return x.Stats()
	}
	return vectors.Stats{}
}

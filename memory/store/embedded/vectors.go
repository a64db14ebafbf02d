package embedded

import (
	"container/heap"
	"time"

	"github.com/viterin/vek/vek32"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// space holds one namespace's vectors in RAM, one row per window, searched
// exactly: a namespace is one user's or agent's history, small enough that
// a SIMD scan (vek's AVX2 dot product, with its pure-Go fallback) beats any
// approximate index and never misses.
type space struct {
	dims     int
	ids      []string // memory id of each window
	sessions []string
	dates    []int64 // session date, Unix nanoseconds
	data     []float32
}

func (sp *space) add(m memory.Memory) {
	for _, v := range m.Vectors {
		sp.ids = append(sp.ids, m.ID)
		sp.sessions = append(sp.sessions, m.SessionID)
		sp.dates = append(sp.dates, m.SessionDate.UnixNano())
		sp.data = append(sp.data, v...)
	}
}

// remove drops every window of the given memory ids, keeping row order.
func (sp *space) remove(ids map[string]bool) {
	w := 0
	for r := range sp.ids {
		if ids[sp.ids[r]] {
			continue
		}
		if w != r {
			sp.ids[w], sp.sessions[w], sp.dates[w] = sp.ids[r], sp.sessions[r], sp.dates[r]
			copy(sp.data[w*sp.dims:(w+1)*sp.dims], sp.data[r*sp.dims:(r+1)*sp.dims])
		}
		w++
	}
	clear(sp.ids[w:])
	sp.ids, sp.sessions, sp.dates = sp.ids[:w], sp.sessions[:w], sp.dates[:w]
	sp.data = sp.data[:w*sp.dims]
}

// search returns the n memories whose best window is most similar to v,
// within q's session and date bounds, best first.
func (sp *space) search(q memory.Query, n int) []hybrid.Ranked {
	if sp == nil || len(q.Vector) != sp.dims || n <= 0 {
		return nil
	}
	var after, before int64 = 0, 0
	if !q.After.IsZero() {
		after = q.After.UnixNano()
	}
	if !q.Before.IsZero() {
		before = q.Before.UnixNano()
	}
	best := make(map[string]float64)
	for r, id := range sp.ids {
		if q.SessionID != "" && sp.sessions[r] != q.SessionID {
			continue
		}
		if (after != 0 && sp.dates[r] < after) || (before != 0 && sp.dates[r] > before) {
			continue
		}
		score := float64(vek32.Dot(q.Vector, sp.data[r*sp.dims:(r+1)*sp.dims]))
		if old, ok := best[id]; !ok || score > old {
			best[id] = score
		}
	}
	h := make(topN, 0, n+1)
	for id, score := range best {
		if len(h) < n {
			heap.Push(&h, hybrid.Ranked{ID: id, Score: score})
		} else if score > h[0].Score || (score == h[0].Score && id < h[0].ID) {
			h[0] = hybrid.Ranked{ID: id, Score: score}
			heap.Fix(&h, 0)
		}
	}
	out := make([]hybrid.Ranked, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(hybrid.Ranked)
	}
	return out
}

// topN is a min-heap on score (ties: larger id first out), so the root is
// the weakest of the best n.
type topN []hybrid.Ranked

func (h topN) Len() int { return len(h) }
func (h topN) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}
func (h topN) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topN) Push(x any)   { *h = append(*h, x.(hybrid.Ranked)) }
func (h *topN) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// loadVectors reads every stored vector into RAM.
func (s *Store) loadVectors() error {
	if s.dims == 0 {
		return nil
	}
	start := time.Now()
	n, stale := 0, 0
	err := s.db.View(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		return tx.Bucket(bucketVec).ForEach(func(k, v []byte) error {
			raw := mem.Get(k)
			if raw == nil {
				return nil
			}
			m, err := decode(raw)
			if err != nil {
				return err
			}
			if m.Embedder != s.embedderID {
				stale++ // left by an interrupted reindex
				return nil
			}
			if m.Vectors, err = decodeVectors(v, s.dims); err != nil {
				return err
			}
			s.space(m.Namespace).add(m)
			n++
			return nil
		})
	})
	if stale > 0 {
		s.log.Warn("memories embedded by another model are left out of vector search; run `agentmem reindex`", "memories", stale)
	}
	if n > 0 {
		s.log.Debug("vectors loaded", "memories", n, "took", time.Since(start).Round(time.Millisecond))
	}
	return err
}

func (s *Store) space(ns string) *space {
	sp := s.vectors[ns]
	if sp == nil {
		sp = &space{dims: s.dims}
		s.vectors[ns] = sp
	}
	return sp
}

package vectors

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Synthetic embeddings with the structure of real ones, since uniform noise
// flatters nothing (every point is nearly orthogonal to every other, so any
// index looks good): a direction shared by every text (sentence embeddings
// are anisotropic: unrelated texts have cosine ~0.2-0.4), topics (each
// session is mostly about one), per-memory detail, and windows of a long
// memory close to each other. Vectors are unit length, like the built-in
// embedder's.

type genMem struct {
	id, session string
	date        int64
	windows     [][]float32
}

type corpus struct {
	dims   int
	r      *rand.Rand
	common []float32
	topics [][]float32
}

func newCorpus(dims, topics int, seed uint64) *corpus {
	c := &corpus{dims: dims, r: rand.New(rand.NewPCG(seed, 17))}
	c.common = c.unit()
	for range topics {
		c.topics = append(c.topics, c.unit())
	}
	return c
}

func (c *corpus) unit() []float32 {
	v := make([]float32, c.dims)
	for i := range v {
		v[i] = float32(c.r.NormFloat64())
	}
	normalize(v)
	return v
}

func normalize(v []float32) {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// mix returns a·common + b·topic + c·detail (+ noise for the rest), unit.
func (c *corpus) mix(topic int, detail []float32, a, b, d float32) []float32 {
	v := make([]float32, c.dims)
	t := c.topics[topic]
	for i := range v {
		v[i] = a*c.common[i] + b*t[i] + d*detail[i] + 0.15*float32(c.r.NormFloat64())/float32(math.Sqrt(float64(c.dims)))
	}
	normalize(v)
	return v
}

// memories returns n memories in sessions of ~10 turns, one session a day
// from day0, each session mostly on one topic; 1 in 5 memories is long (2
// to 4 windows).
func (c *corpus) memories(n int, prefix string) []genMem {
	out := make([]genMem, 0, n)
	const day = int64(24 * 3600 * 1e9)
	day0 := int64(1.68e18)
	for i := 0; len(out) < n; i++ {
		sess := fmt.Sprintf("%ss%d", prefix, i)
		topic := c.r.IntN(len(c.topics))
		for t := 0; t < 5+c.r.IntN(11) && len(out) < n; t++ {
			tp := topic
			if c.r.IntN(4) == 0 {
				tp = c.r.IntN(len(c.topics))
			}
			detail := c.unit()
			nw := 1
			if c.r.IntN(5) == 0 {
				nw = 2 + c.r.IntN(3)
			}
			m := genMem{id: fmt.Sprintf("%sm%07d", prefix, len(out)), session: sess, date: day0 + int64(i)*day}
			for range nw {
				m.windows = append(m.windows, c.mix(tp, detail, 0.45, 0.55, 0.65))
			}
			out = append(out, m)
		}
	}
	return out
}

// queries are near a topic and loosely near some memory's detail, like a
// question about something said.
func (c *corpus) queries(n int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = c.mix(c.r.IntN(len(c.topics)), c.unit(), 0.4, 0.5, 0.3)
	}
	return out
}

// brute is the reference: every memory's best window by Dot, sorted by
// score then id.
func brute(mems map[string]genMem, q []float32, k int, f Filter) []Result {
	var all []Result
	for _, m := range mems {
		if f.Session != "" && m.session != f.Session {
			continue
		}
		if (f.After != 0 && m.date < f.After) || (f.Before != 0 && m.date > f.Before) {
			continue
		}
		if len(m.windows) == 0 {
			continue
		}
		best := math.Inf(-1)
		for _, w := range m.windows {
			best = max(best, float64(Dot(q, w)))
		}
		all = append(all, Result{m.id, best})
	}
	slices.SortFunc(all, func(a, b Result) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return all[:min(k, len(all))]
}

// recall is the share of want's ids that got has.
func recall(got, want []Result) float64 {
	if len(want) == 0 {
		return 1
	}
	ids := map[string]bool{}
	for _, r := range got {
		ids[r.ID] = true
	}
	n := 0
	for _, r := range want {
		if ids[r.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

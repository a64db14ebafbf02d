package vectors

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Calibration of the inverted file's probe count. How many lists a search
// must scan to find the true top ten depends on the data: embeddings of
// conversations form tight topics, whose neighbours share a list, while
// vectors without structure scatter a query's neighbours over many lists
// (probing 12 of 447 lists finds a third of them). So unless Options.NProbe
// fixes it, the index measures it on its own rows whenever the inverted
// file is built or loaded: for calibrationQueries sample queries it finds
// the exact top ten and, for each of them, the rank (by the query's
// similarity to the centroids) of the list that holds its best window; the
// probe count is the rank that covers calibrationTarget of them. A memory
// whose best window is probed gets its exact score, and every other memory
// at most its exact score, so it is then surely in the approximate top ten:
// the sample's recall@10 at that probe count is at least the target. When
// that takes more than half the lists, the inverted file does not pay and
// searches scan exactly (recall 1). The probe count is saved in snapshots,
// so a load calibrates only a file that lacks it.
//
// The queries are not rows of the index (a row finds itself in the first
// list probed): each is a random row plus half of another, normalised,
// which lies between two topics as a question often does between what
// was said.

const (
	calibrationQueries = 128
	calibrationK       = 10
	// calibrationTarget is above the 0.98 promised, for the sample's noise
	// (1,280 neighbours).
	calibrationTarget = 0.99
)

// calibrate sets x.ivf.probe (see above).
func (x *Index) calibrate() {
	v := x.ivf
	if v == nil {
		return
	}
	if x.opts.NProbe > 0 || x.live == 0 {
		v.probe = min(max(1, x.defaultProbe()), v.nlist)
		return
	}
	rng := rand.New(rand.NewPCG(x.opts.Seed^0xca11b, uint64(x.live)))
	liveRow := func() int32 {
		for {
			r := int32(rng.IntN(len(x.rows)))
			if x.rows[r].mem >= 0 {
				return r
			}
		}
	}
	all, _ := x.compile(Filter{})
	raw, sims := make([]int32, v.nlist), make([]float64, v.nlist)
	rank := make([]int32, v.nlist)
	order := make([]int32, v.nlist)
	var needs []int
	q := make([]float32, x.dims)
	for range calibrationQueries {
		ra, rb := liveRow(), liveRow()
		a, b := x.rowF32(ra), x.rowF32(rb)
		var n2 float64
		for d := range q {
			q[d] = a[d] + 0.5*b[d]
			n2 += float64(q[d]) * float64(q[d])
		}
		if n2 == 0 {
			continue
		}
		inv := float32(1 / math.Sqrt(n2))
		for d := range q {
			q[d] *= inv
		}
		qq := newQuantQuery(q, x.stride)
		// the two memories the query was made of are left out: they are
		// found in the first lists probed, as no question's answer is
		tk := x.scan(qq, q, min(calibrationK+2, x.Len()), &all)
		v.scores(x, qq, raw, sims)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(sims[b], sims[a]) })
		for i, l := range order {
			rank[l] = int32(i)
		}
		kept := 0
		for _, slot := range tk.slots {
			if slot == x.rows[ra].mem || slot == x.rows[rb].mem || kept == calibrationK {
				continue
			}
			kept++
			best, bestRow := float32(math.Inf(-1)), int32(-1)
			for r := x.mems[slot].first; r >= 0; r = x.rows[r].next {
				if s := dotF32(q, x.rowF32(r)); s > best {
					best, bestRow = s, r
				}
			}
			if bestRow >= 0 && v.of[bestRow] >= 0 {
				needs = append(needs, int(rank[v.of[bestRow]])+1)
			}
		}
	}
	if len(needs) == 0 {
		v.probe = min(DefaultNProbe, v.nlist)
		return
	}
	slices.Sort(needs)
	p := needs[int(math.Ceil(calibrationTarget*float64(len(needs))))-1]
	if p > v.nlist/2 {
		// the lists do not pay: scanning more than half of them costs
		// about what the exact scan does, so searches scan exactly
		p = v.nlist
	}
	v.probe = min(max(1, p), v.nlist)
}

// defaultProbe is the probe count a caller fixed, or DefaultNProbe.
func (x *Index) defaultProbe() int {
	if x.opts.NProbe > 0 {
		return x.opts.NProbe
	}
	return DefaultNProbe
}

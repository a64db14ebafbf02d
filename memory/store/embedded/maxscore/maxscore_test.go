package maxscore

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/search"
)

// termBound is the greatest middle factor of bleve's BM25 term score over
// every length and frequency (a frequency at most the length), and a
// one-word field reaches it when the average length is at most 3.
func TestTermBound(t *testing.T) {
	k1, b := search.BM25_k1, search.BM25_b
	for _, avg := range []float64{1, 2, 3, 5, 12, 40} {
		bound := termBound(avg)
		best := 0.0
		for L := 1; L <= 2000; L++ {
			// bleve's field length comes back from a float32 norm
			norm := float64(float32(1 / math.Sqrt(float64(L))))
			fieldLength := 1 / (norm * norm)
			for freq := 1; freq <= L; freq++ {
				tf := math.Sqrt(float64(freq))
				f := (tf * k1) / (tf + k1*(1-b+(b*fieldLength/avg)))
				if f > bound*(1+1e-9) {
					t.Fatalf("avg %v: length %d, frequency %d: %v above the bound %v", avg, L, freq, f, bound)
				}
				best = max(best, f)
			}
		}
		if avg <= 3 && best != bound {
			t.Errorf("avg %v: the best is %v, the bound %v", avg, best, bound)
		}
		if best < bound*0.99 {
			t.Errorf("avg %v: the bound %v is loose: the best is %v", avg, bound, best)
		}
	}
}

// TestPoolKeepsTies offers random scores with many repeats and
// checks the pool against a sort: its n best, and every other document
// that scores as the n-th, so the cut among them can be made by id.
func TestPoolKeepsTies(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 500 {
		n := 1 + r.IntN(12)
		var all []item
		h := &pool{}
		for id := range uint64(r.IntN(80)) {
			it := item{score: float64(r.IntN(6)), id: id}
			all = append(all, it)
			if h.takes(it.score, n) {
				h.offer(it.score, it.id, n)
			}
		}
		slices.SortStableFunc(all, func(a, b item) int { return cmp.Compare(b.score, a.score) })
		var want []item
		for _, it := range all {
			if len(want) < n || it.score == want[n-1].score {
				want = append(want, it)
			}
		}
		got := h.all()
		byID := func(a, b item) int { return cmp.Compare(a.id, b.id) }
		slices.SortFunc(got, byID)
		slices.SortFunc(want, byID)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, n=%d: pool %v, want %v", trial, n, got, want)
		}
	}
}

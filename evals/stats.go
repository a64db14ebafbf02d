package evals

import (
	"math"
	"slices"
	"time"
)

// Dist summarises a sample: mean and nearest-rank percentiles.
type Dist struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
}

// NewDist summarises xs.
func NewDist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Dist{N: len(s), Mean: sum / float64(len(s)), P50: rank(s, 0.50), P95: rank(s, 0.95), Max: s[len(s)-1]}
}

// rank is the nearest-rank percentile p of sorted s.
func rank(s []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Rate is turns per second of wall time over the stats: the union of their
// intervals, so that units stored in parallel are not counted twice.
func Rate(stats []IngestStat) (turnsPerS float64, wall time.Duration) {
	if len(stats) == 0 {
		return 0, 0
	}
	s := slices.Clone(stats)
	slices.SortFunc(s, func(a, b IngestStat) int { return a.Start.Compare(b.Start) })
	turns := 0
	start, end := s[0].Start, s[0].End
	for _, st := range s {
		turns += st.Turns
		if st.Start.After(end) {
			wall += end.Sub(start)
			start, end = st.Start, st.End
		} else if st.End.After(end) {
			end = st.End
		}
	}
	wall += end.Sub(start)
	if wall <= 0 {
		return 0, 0
	}
	return float64(turns) / wall.Seconds(), wall
}

// frac is the share of true in bs, nil when bs is empty.
func frac(bs []bool) *float64 {
	if len(bs) == 0 {
		return nil
	}
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	f := float64(n) / float64(len(bs))
	return &f
}

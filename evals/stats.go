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

// ingestOf is the ingest speed over the stats: turns per second of wall
// time, the union of their intervals, so that units stored in parallel are
// not counted twice.
func ingestOf(stats []IngestStat) Ingest {
	in := Ingest{Units: len(stats)}
	if len(stats) == 0 {
		return in
	}
	s := slices.Clone(stats)
	slices.SortFunc(s, func(a, b IngestStat) int { return a.Start.Compare(b.Start) })
	var wall time.Duration
	start, end := s[0].Start, s[0].End
	for _, st := range s {
		in.Turns += st.Turns
		if st.Start.After(end) {
			wall += end.Sub(start)
			start, end = st.Start, st.End
		} else if st.End.After(end) {
			end = st.End
		}
	}
	wall += end.Sub(start)
	if wall > 0 {
		in.Seconds, in.TurnsPerS = wall.Seconds(), float64(in.Turns)/wall.Seconds()
	}
	return in
}

// where is the elements of xs that keep says to keep, in order; nil when
// none is.
func where[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
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
	return new(float64(n) / float64(len(bs)))
}

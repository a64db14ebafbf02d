package embedded

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/hybrid"
	"agentmem/memory/store/embedded/maxscore"
)

// BenchmarkRecallStore measures whole recalls (memory.Service.Recall, k=10,
// as agentmem-eval bench runs them) on the store AGENTMEM_BENCH_STORE names
// (made by `agentmem-eval bench --keep`, whose zero-cost embedder it uses),
// per fusion mode, in CPU ms per recall; with -cpuprofile, a profile of
// the recalls alone. Queries as BenchmarkTextSide's (AGENTMEM_BENCH_QUERIES:
// one a line). It logs the slowest queries of each mode, with what the
// text and vector sides cost them on their own.
func BenchmarkRecallStore(b *testing.B) {
	s, texts := openBenchStore(b)
	defer s.Close()
	e := &fake.Embedder{Name: "bench", N: 512}
	svc, err := memory.New(memory.Options{Store: s, Embedder: e, Namespace: benchNS})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	qs := benchQueries(b, texts)
	ctx := context.Background()
	recall := func(q string, mode memory.Fusion) time.Duration {
		start := time.Now()
		if _, err := svc.Recall(ctx, memory.RecallRequest{Query: q, K: 10, Namespace: benchNS, Fusion: mode}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for _, q := range qs { // fault the pages in
		recall(q.Text, memory.RRF)
	}
	modes := []memory.Fusion{memory.RRF, memory.TextOnly, memory.VectorOnly}
	defer func(p bool) { maxscore.Prime = p }(maxscore.Prime)
	for _, prime := range []bool{false, true} {
		maxscore.Prime = prime
		logSlowest(b, qs, modes, recall, fmt.Sprint("prime=", prime))
	}
	for _, prime := range []bool{true, false} {
		for _, m := range modes {
			b.Run(fmt.Sprintf("%s/prime=%v", m, prime), func(b *testing.B) {
				defer func(p bool) { maxscore.Prime = p }(maxscore.Prime)
				maxscore.Prime = prime
				i := 0
				cpu0 := cpuTime()
				for b.Loop() {
					recall(qs[i%len(qs)].Text, m)
					i++
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(i), "cpu-ms/op")
			})
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// logSlowest runs each query in each mode, one after the other, and logs
// each mode's p50 and p95 and the slowest queries, with what each side
// costs them alone.
func logSlowest(b *testing.B, qs []memory.Query, modes []memory.Fusion, recall func(string, memory.Fusion) time.Duration, label string) {
	wall := map[memory.Fusion][]time.Duration{}
	for _, q := range qs {
		for _, m := range modes {
			wall[m] = append(wall[m], recall(q.Text, m))
		}
	}
	for _, m := range modes {
		d := slices.Clone(wall[m])
		slices.Sort(d)
		b.Logf("%s %s: p50 %.2f ms, p95 %.2f ms over %d queries", label, m, ms(d[len(d)/2]), ms(d[len(d)*95/100]), len(d))
	}
	order := make([]int, len(qs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(wall[modes[0]][b] - wall[modes[0]][a]) })
	for _, i := range order[:min(8, len(order))] {
		b.Logf("%s slow: %s %.1f ms, %s %.1f, %s %.1f: %q", label, modes[0], ms(wall[modes[0]][i]), modes[1], ms(wall[modes[1]][i]), modes[2], ms(wall[modes[2]][i]), qs[i].Text)
	}
}

// BenchmarkTextVariants compares the ways MaxScore can walk (package
// maxscore's settings: the priming walk, the scores memo, the probes of the
// words not walked, the window bounds, the decoded postings, the walk a window at a time) on the text side of AGENTMEM_BENCH_STORE, one query
// after the other in every variant (robust to a changing load): the same
// pools, and the CPU and wall time of each.
func BenchmarkTextVariants(b *testing.B) {
	s, texts := openBenchStore(b)
	defer s.Close()
	qs := benchQueries(b, texts)
	ti := benchIndex(b, s, len(texts))
	type variant struct {
		name           string
		prime          bool
		memo           uint64
		probe, windows bool
		decode         uint64
		oneAtATime     bool
	}
	vs := []variant{
		{"no memo, no priming, no probe, no windows, one at a time", false, math.MaxUint64, false, false, 0, true},
		{"no probe, no windows, one at a time", true, maxscore.MemoPostings, false, false, 0, true},
		{"no windows, one at a time", true, maxscore.MemoPostings, true, false, 0, true},
		{"windows and priming, one at a time", true, maxscore.MemoPostings, true, true, 0, true},
		{"windows, no priming, one at a time", false, maxscore.MemoPostings, true, true, 0, true},
		{"windows, no priming, decoded, one at a time", false, maxscore.MemoPostings, true, true, maxscore.DecodePostings, true},
		{"windows, no priming, decoded, a window at a time", false, maxscore.MemoPostings, true, true, maxscore.DecodePostings, false},
	}
	defer func(p bool, m uint64, pr, w bool, d uint64, bulk bool) {
		maxscore.Prime, maxscore.MemoPostings, maxscore.Probe, maxscore.Windows, maxscore.DecodePostings, maxscore.Bulk = p, m, pr, w, d, bulk
	}(maxscore.Prime, maxscore.MemoPostings, maxscore.Probe, maxscore.Windows, maxscore.DecodePostings, maxscore.Bulk)
	cpu := make([][]time.Duration, len(vs))
	wall := make([][]time.Duration, len(vs))
	// one untimed pass first: a word's window maxima and decoded postings
	// are computed once per segment, by whichever variant meets it first
	maxscore.DecodePostings = vs[len(vs)-1].decode
	for _, q := range qs {
		if tq := textQuery(q); tq != nil {
			if _, err := ti.textTop(context.Background(), tq, q.PoolSize()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Logf("decoded postings after the untimed pass: %d MB", maxscore.DecodedInUse()>>20)
	for range b.N {
		for qi, q := range qs {
			tq := textQuery(q)
			if tq == nil {
				continue
			}
			var first []hybrid.Ranked
			for j := range vs {
				i := (j + qi) % len(vs) // the order rotates: no variant always runs first
				v := vs[i]
				maxscore.Prime, maxscore.MemoPostings, maxscore.Probe, maxscore.Windows, maxscore.DecodePostings = v.prime, v.memo, v.probe, v.windows, v.decode
				maxscore.Bulk = !v.oneAtATime
				c0, w0 := cpuTime(), time.Now()
				r, err := ti.textTop(context.Background(), tq, q.PoolSize())
				if err != nil {
					b.Fatal(err)
				}
				wall[i] = append(wall[i], time.Since(w0))
				cpu[i] = append(cpu[i], cpuTime()-c0)
				if j == 0 {
					first = r
				} else if !reflect.DeepEqual(r, first) {
					b.Fatalf("%q: %s\n%v\n%s\n%v", q.Text, v.name, r, vs[(qi)%len(vs)].name, first)
				}
			}
		}
	}
	stats := func(d []time.Duration) string {
		d = slices.Clone(d)
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		slices.Sort(d)
		return fmt.Sprintf("mean %.2f ms, p50 %.2f, p95 %.2f, max %.2f", ms(sum)/float64(len(d)), ms(d[len(d)/2]), ms(d[len(d)*95/100]), ms(d[len(d)-1]))
	}
	for i, v := range vs {
		b.Logf("%s: CPU %s; wall %s", v.name, stats(cpu[i]), stats(wall[i]))
	}
}

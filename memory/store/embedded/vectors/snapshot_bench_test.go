package vectors

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"agentmem/memory/embedder/fake"
)

// BenchmarkSnapshotSearch times searches of a store's own vector snapshot
// (AGENTMEM_BENCH_SNAPSHOT: a .snap file under a data dir's store/vectors,
// as agentmem-eval bench --keep leaves it) with one question a line
// (AGENTMEM_BENCH_QUERIES) embedded as agentmem-eval bench does (fake:bench,
// the snapshot's dimensions), k=30 (a recall's pool for k=10). The
// questions are asked once (which tunes the probe count), then checked
// against the exact scan (recall@10 is reported), then timed. With an
// inverted file, it logs what the questions need (needs: for each of a
// question's exact top ten, the rank of its list), the quantiles the
// searches' checks estimate the probe count from.
func BenchmarkSnapshotSearch(b *testing.B) {
	path, qpath := os.Getenv("AGENTMEM_BENCH_SNAPSHOT"), os.Getenv("AGENTMEM_BENCH_QUERIES")
	if path == "" || qpath == "" {
		b.Skip("AGENTMEM_BENCH_SNAPSHOT (a store's .snap file) and AGENTMEM_BENCH_QUERIES (one question a line) are not set")
	}
	var opts Options // AGENTMEM_BENCH_NPROBE fixes the probe count
	if n, err := strconv.Atoi(os.Getenv("AGENTMEM_BENCH_NPROBE")); err == nil {
		opts.NProbe = n
	}
	x, _, err := Load(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(qpath)
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	qs, err := (&fake.Embedder{Name: "bench", N: x.Dims()}).Embed(context.Background(), lines)
	if err != nil {
		b.Fatal(err)
	}
	const k = 30
	// the searches' own checks tune the probe count (calibrate.go) as
	// they would in a store's first recalls
	for _, q := range qs {
		x.Search(q, k, Filter{})
	}
	found, want := 0, 0
	for _, q := range qs {
		exact, _ := x.SearchExact(q, 10, Filter{})
		got, _ := x.Search(q, k, Filter{})
		in := map[string]bool{}
		for _, r := range got[:min(10, len(got))] {
			in[r.ID] = true
		}
		for _, r := range exact {
			want++
			if in[r.ID] {
				found++
			}
		}
	}
	if x.ivf != nil {
		logNeeds(b, x, qs)
	}
	b.ResetTimer()
	t0 := cpuTime()
	for i := range b.N {
		if _, err := x.Search(qs[i%len(qs)], k, Filter{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-t0)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(found)/float64(max(1, want)), "recall@10")
	if x.ivf != nil {
		b.ReportMetric(float64(x.ivf.getProbe()), "probes")
		b.ReportMetric(float64(x.ivf.nlist), "lists")
	}
}

// logNeeds logs the quantiles of the questions' needs, and of each
// question's largest: the ten nearest of one question often share a list
// (duplicated turns: the same vector), so a few questions decide a high
// quantile.
func logNeeds(b *testing.B, x *Index, qs [][]float32) {
	var all, worst []int
	for _, q := range qs {
		n := x.needs(newQuantQuery(q, x.stride), q, nil)
		all = append(all, n...)
		worst = append(worst, slices.Max(n))
	}
	slices.Sort(all)
	slices.Sort(worst)
	at := func(s []int, p float64) int { return s[max(0, int(p*float64(len(s)))-1)] }
	for _, p := range []float64{0.5, 0.9, 0.95, 0.98, 0.99, 0.995} {
		b.Logf("needs' %.1f%% quantile: %d of %d lists (of each question's largest: %d)", p*100, at(all, p), x.ivf.nlist, at(worst, p))
	}
}

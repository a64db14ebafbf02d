package vectors

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestDiagIVF(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DIAG_N"))
	topics, _ := strconv.Atoi(os.Getenv("DIAG_TOPICS"))
	nlist, _ := strconv.Atoi(os.Getenv("DIAG_NLIST"))
	if n == 0 {
		t.Skip("DIAG_N")
	}
	c := newCorpus(512, topics, 5)
	x := mustNew(t, 512, Options{GraphAt: -1})
	for done := 0; done < n; done += 5000 {
		for _, m := range c.memories(5000, fmt.Sprint(done, "-")) {
			x.Add(m.id, m.session, m.date, m.windows)
		}
	}
	rows := x.Rows()
	r := rand.New(rand.NewPCG(1, 1))
	// spherical k-means on a sample
	sample := make([]int32, 0, 40*nlist)
	for len(sample) < cap(sample) {
		sample = append(sample, int32(r.IntN(rows)))
	}
	cent := make([][]float32, nlist)
	for i := range cent {
		cent[i] = slices.Clone(x.rowF32(sample[i]))
	}
	assign := func(v []float32) int {
		best, bi := float32(-2), 0
		for i, cv := range cent {
			if d := dotF32(v, cv); d > best {
				best, bi = d, i
			}
		}
		return bi
	}
	c0 := cpuTime()
	for it := 0; it < 8; it++ {
		sums := make([][]float32, nlist)
		for i := range sums {
			sums[i] = make([]float32, 512)
		}
		as := make([]int, len(sample))
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for j := w; j < len(sample); j += 2 {
					as[j] = assign(x.rowF32(sample[j]))
				}
			})
		}
		wg.Wait()
		for j, s := range sample {
			v := x.rowF32(s)
			for d := range v {
				sums[as[j]][d] += v[d]
			}
		}
		for i := range cent {
			normalize(sums[i])
			if sums[i][0] != 0 || sums[i][1] != 0 {
				cent[i] = sums[i]
			}
		}
	}
	train := cpuTime() - c0
	c0 = cpuTime()
	lists := make([][]int32, nlist)
	as := make([]int, rows)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for j := w; j < rows; j += 2 {
				as[j] = assign(x.rowF32(int32(j)))
			}
		})
	}
	wg.Wait()
	for j, a := range as {
		lists[a] = append(lists[a], int32(j))
	}
	t.Logf("rows %d nlist %d: train %v CPU, assign %v CPU", rows, nlist, train, cpuTime()-c0)
	qs := c.queries(100)
	want := make([][]Result, len(qs))
	for i, q := range qs {
		want[i], _ = x.SearchExact(q, 10, Filter{})
	}
	for _, np := range []int{4, 8, 16, 32, 64} {
		var rec float64
		c0 = cpuTime()
		scanned := 0
		for i, q := range qs {
			type cs struct {
				i int
				s float32
			}
			css := make([]cs, nlist)
			for j, cv := range cent {
				css[j] = cs{j, dotF32(q, cv)}
			}
			slices.SortFunc(css, func(a, b cs) int { return cmp.Compare(b.s, a.s) })
			var probe []int32
			for _, cc := range css[:np] {
				probe = append(probe, lists[cc.i]...)
			}
			scanned += len(probe)
			qq := newQuantQuery(q, x.stride)
			cf, _ := x.compile(Filter{})
			st := &scanState{}
			st.low.init(30)
			x.scanList(qq, &cf, probe, st)
			got := x.results(x.rescore(q, 30, st))
			rec += recall(got[:min(10, len(got))], want[i])
		}
		t.Logf("nprobe %d: recall@10 %.3f, %v CPU/query, %d rows scanned", np, rec/float64(len(qs)), (cpuTime()-c0)/time.Duration(len(qs)), scanned/len(qs))
	}
}

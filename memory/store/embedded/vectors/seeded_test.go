package vectors

import (
	"fmt"
	"testing"
)

// bagIndex is an index of n memories of random bags of words, whose sparse
// questions scatter their neighbours over the lists (newBagCorpus), dated
// by their number.
func bagIndex(t *testing.T, n int) (*Index, *bagCorpus) {
	t.Helper()
	const dims = 128
	c := newBagCorpus(dims, 5)
	x := mustNew(t, dims, Options{ApproxAt: n / 2})
	for i := range n {
		if err := x.Add(fmt.Sprint("m", i), "s", int64(i), [][]float32{c.bag(25)}); err != nil {
			t.Fatal(err)
		}
	}
	if x.ivf == nil {
		t.Fatal("no inverted file")
	}
	return x, c
}

// countedSeeds gives ids and counts its calls.
func countedSeeds(ids []string, calls *int) Seeds {
	return func() []string { *calls++; return ids }
}

// A hybrid search's vector side scores the memories its text side found
// wherever they lie, so with one list probed it still returns them at
// their exact scores; a memory the filter leaves out is not added; and
// Seeds is called at most once, as the store's channel can be read once.
func TestSearchSeededScoresTheSeeds(t *testing.T) {
	x, c := bagIndex(t, 16000)
	x.opts.NProbe = 1 // untuned: every search probes one list
	x.ivf.setProbe(1)
	missed := 0
	for i := range 40 {
		q := c.bag(6)
		want, err := x.SearchExact(q, 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := x.Search(q, 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !equal(plain, want) {
			missed++
		}
		ids := make([]string, len(want))
		for j, r := range want {
			ids[j] = r.ID
		}
		calls := 0
		got, err := x.SearchSeeded(q, 10, Filter{}, countedSeeds(ids, &calls))
		if err != nil || !equal(got, want) || calls != 1 {
			t.Fatalf("question %d seeded with its exact top 10: %v (%v, %d calls), want %v", i, head(got), err, calls, head(want))
		}
		// seeds the date filter leaves out are not added
		after := int64(8000)
		calls = 0
		got, err = x.SearchSeeded(q, 10, Filter{After: after}, countedSeeds(ids, &calls))
		if err != nil || calls > 1 {
			t.Fatalf("filtered: %v, %d calls", err, calls)
		}
		for _, r := range got {
			if d := x.mems[x.slots[r.ID]].date; d < after {
				t.Fatalf("a seed dated %d passed the filter After %d", d, after)
			}
		}
	}
	if missed == 0 {
		t.Fatal("one probed list found every answer: the test shows nothing")
	}
}

// The probe count of hybrid searches is tuned apart from plain ones': a
// neighbour the text side found needs no list, so where the text side
// finds the neighbours a plain search would need most of the lists for,
// the hybrid search probes fewer, and its answers, with the seeds, still
// hold what the checks promise. A plain search's count is not lowered by
// them.
func TestSeededTunerApart(t *testing.T) {
	x, c := bagIndex(t, 16000)
	qs := make([][]float32, 120)
	seeds := make([][]string, len(qs))
	for i := range qs {
		qs[i] = c.bag(6)
		want, err := x.SearchExact(qs[i], 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		// the text side finds every other neighbour
		for j := 0; j < len(want); j += 2 {
			seeds[i] = append(seeds[i], want[j].ID)
		}
	}
	var found float64
	for range 2 {
		found = 0
		for i, q := range qs {
			calls := 0
			got, err := x.SearchSeeded(q, 10, Filter{}, countedSeeds(seeds[i], &calls))
			if err != nil || calls > 1 {
				t.Fatalf("%v, %d calls", err, calls)
			}
			want, _ := x.SearchExact(q, 10, Filter{})
			found += recall(got, want)
		}
		found /= float64(len(qs))
	}
	recallVsExact(t, x, qs)
	plain := recallVsExact(t, x, qs)
	st := x.Stats()
	t.Logf("plain: %d of %d lists, recall@10 %.3f (checks: %.3f); hybrid: %d lists, recall@10 %.3f (checks: %.3f)",
		st.Probe, st.Lists, plain, st.Found, st.HybridProbe, found, st.HybridFound)
	if st.HybridChecked < tuneMin || st.Checked < tuneMin {
		t.Fatalf("checked %d hybrid and %d plain searches", st.HybridChecked, st.Checked)
	}
	if st.HybridProbe >= st.Probe {
		t.Errorf("hybrid searches probe %d lists, plain ones %d: the seeds saved nothing", st.HybridProbe, st.Probe)
	}
	if found < 0.98 || plain < 0.98 {
		t.Errorf("recall@10 hybrid %.3f, plain %.3f; want >= 0.98 both", found, plain)
	}
}

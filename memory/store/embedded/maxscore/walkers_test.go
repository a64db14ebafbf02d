package maxscore

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"agentmem/memory/hybrid"
)

// An evaluation takes a second walker only for a core no other
// evaluation's walker holds: with every spare token taken it walks alone,
// with the same pool; with them given back, it walks with two again.
func TestWalkersTakeOnlySpareCores(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("two walkers need GOMAXPROCS 2 or more (it is %d)", runtime.GOMAXPROCS(0))
	}
	defer func(w int, d, p uint64) { Walkers, WalkDocs, PartDocs = w, d, p }(Walkers, WalkDocs, PartDocs)
	Walkers, WalkDocs, PartDocs = 2, 0, 50
	idx, err := bleve.NewUsing(t.TempDir(), hybrid.LeanMapping(), "scorch", "scorch", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	b := idx.NewBatch()
	for i := range 400 {
		if err := b.Index(fmt.Sprint("d", i), hybrid.IndexDoc{Namespace: "n", Text: fmt.Sprintf("walk %d the dog w%d w%d", i, i%7, i%13)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	mq := bleve.NewMatchQuery("dog w3 w5 walk")
	mq.SetField(hybrid.FieldText)
	top := bleve.NewDisjunctionQuery(mq)
	ctx := hybrid.BM25Context(context.Background(), 400)
	search := func() Result {
		t.Helper()
		res, ok, err := Search(ctx, idx, top, nil, nil, 10)
		if err != nil || !ok {
			t.Fatalf("Search: ok %v, %v", ok, err)
		}
		return res
	}
	pools := func(r Result) string {
		m := map[string]float64{}
		for _, h := range r.Hits {
			m[h.ID] = h.Score
		}
		return fmt.Sprint(m)
	}
	two := search()
	if two.Walkers != 2 {
		t.Fatalf("%d walkers with every core free, want 2", two.Walkers)
	}
	for range cap(spare()) {
		spare() <- struct{}{}
	}
	one := search()
	for range cap(spare()) {
		<-spare()
	}
	if one.Walkers != 1 {
		t.Errorf("%d walkers with no spare core, want 1", one.Walkers)
	}
	if pools(one) != pools(two) {
		t.Errorf("one walker's pool\n%s\ntwo walkers'\n%s", pools(one), pools(two))
	}
	if again := search(); again.Walkers != 2 {
		t.Errorf("%d walkers once the tokens are back, want 2", again.Walkers)
	}
}

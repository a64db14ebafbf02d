package hybrid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"agentmem/memory"
)

// Every query of this package ranks the same documents with the same
// scores on an index built with LeanMapping as on one built with
// IndexMapping: what LeanMapping drops is never read.
func TestLeanMappingSameRanking(t *testing.T) {
	names := []string{"Caroline", "Melanie", "Jon Snow", "Gina", "Oscar Wilde", "Paris", "Lake Tahoe", "Hamlet"}
	words := strings.Fields("we adopted a greyhound yesterday and the dog runs in the park every morning before work while my sister paints pottery and sells bowls at the market for forty dollars the camping trip was cancelled because of the storm so we watched movies about dragons and castles instead bought went met buy go meeting")
	rng := rand.New(rand.NewPCG(7, 11))
	sentence := func() string {
		n := 4 + rng.IntN(25)
		var b []string
		for range n {
			switch r := rng.IntN(12); {
			case r == 0:
				b = append(b, names[rng.IntN(len(names))])
			case r == 1:
				b = append(b, fmt.Sprintf("on %d May 2023", 1+rng.IntN(28)))
			case r == 2:
				b = append(b, fmt.Sprintf("%d bowls", 2+rng.IntN(40)))
			default:
				b = append(b, words[rng.IntN(len(words))])
			}
		}
		return strings.Join(b, " ") + "."
	}
	day := time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)
	var ms [][]memory.Memory // per session
	for s := range 12 {
		var sess []memory.Memory
		for turn := range 3 + rng.IntN(40) {
			sess = append(sess, memory.Memory{
				ID: fmt.Sprintf("s%d:%d", s, turn), Namespace: []string{"n", "m"}[s%2], SessionID: fmt.Sprintf("s%d", s),
				SessionDate: day.AddDate(0, 0, s), Turn: turn, Role: []string{"user", "assistant"}[turn%2],
				Speaker: names[turn%2], Text: sentence(),
			})
		}
		ms = append(ms, sess)
	}
	open := func(m *mapping.IndexMappingImpl) bleve.Index {
		idx, err := bleve.NewUsing(t.TempDir(), m, "scorch", "scorch", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		b := idx.NewBatch()
		for _, sess := range ms {
			for _, m := range sess {
				if err := b.Index(m.Namespace+"\x1f"+m.ID, Doc(m)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := idx.Batch(b); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	full, lean := open(IndexMapping()), open(LeanMapping())
	// scores may differ in the last bits even between two indexes of the
	// same mapping (bleve numbers a batch's documents in map order, which
	// changes the order of float sums)
	hits := func(idx bleve.Index, r *bleve.SearchRequest) map[string]float64 {
		ctx := BM25Context(context.Background(), 500)
		res, err := idx.SearchInContext(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range res.Hits {
			out[h.ID] = h.Score
		}
		return out
	}
	same := func(a, b map[string]float64) bool {
		if len(a) != len(b) {
			return false
		}
		for id, x := range a {
			y, ok := b[id]
			if !ok || math.Abs(x-y) > 1e-12*math.Abs(x) {
				return false
			}
		}
		return true
	}
	checked := 0
	for i := range 40 {
		q := memory.Query{Namespace: []string{"n", "m"}[i%2], Text: sentence(), K: 10}
		switch i % 4 {
		case 1:
			q.SessionID = fmt.Sprintf("s%d", i%12)
		case 2:
			q.After, q.Before = day.AddDate(0, 0, 2), day.AddDate(0, 0, 8)
		}
		r := SearchRequest(q)
		r.Size = 1000 // every hit: equal scores at a cut fall either way
		a, b := hits(full, r), hits(lean, r)
		if !same(a, b) {
			t.Fatalf("query %q: IndexMapping ranks\n%v\nLeanMapping ranks\n%v", q.Text, a, b)
		}
		if len(a) > 0 {
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d of 40 searches found anything", checked)
	}
}

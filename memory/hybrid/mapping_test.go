package hybrid

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"agentmem/memory"
)

// A page is indexed with the page mapping and found by PageRequest; a
// memory's query never matches a page, nor a page query a memory.
func TestPagesAndMemoriesApart(t *testing.T) {
	idx, err := bleve.NewUsing(t.TempDir(), IndexMapping(), "scorch", "scorch", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	ms := []memory.Memory{
		{ID: "s:0", Namespace: "n", SessionID: "s", SessionDate: day, Role: "user", Text: "We adopted a greyhound."},
		{ID: "s:1", Namespace: "n", SessionID: "s", SessionDate: day, Turn: 1, Role: "assistant", Text: "What is its name?"},
	}
	b := idx.NewBatch()
	b.Index("n\x1fs:0", Doc(ms[0], Neighbours{Next: &ms[1]}))
	b.Index("n\x1fs:1", Doc(ms[1], Neighbours{Prev: &ms[0]}))
	b.Index("page", Page(ms))
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	q := memory.Query{Namespace: "n", Text: "greyhound name", K: 10, Weights: memory.Weights{Session: 1, Neighbours: 1}}
	res, err := idx.SearchInContext(context.Background(), SearchRequest(q))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	// s:1 matches "greyhound" only through its neighbour
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"n\x1fs:0", "n\x1fs:1"}) {
		t.Errorf("memory hits %q, want both memories and no page", ids)
	}
	res, err = idx.SearchInContext(context.Background(), PageRequest(q, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != "page" {
		t.Errorf("page hits %v, want the page alone", res.Hits)
	}
}

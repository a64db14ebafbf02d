package hybrid

import (
	"context"
	"reflect"
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

// A Deriver's documents are Doc's and Page's, though it extracts each
// turn's entities once: the same text under another speaker keeps its own
// entities, and a document's entities can be appended to without changing
// another's.
func TestDeriverSameDocuments(t *testing.T) {
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	ms := []memory.Memory{
		{ID: "s:0", Namespace: "n", SessionID: "s", SessionDate: day, Role: "user", Speaker: "Caroline", Text: "Melanie and I saw Hamlet in Paris on 3 May 2023."},
		{ID: "s:1", Namespace: "n", SessionID: "s", SessionDate: day, Turn: 1, Role: "assistant", Speaker: "Melanie", Text: "Melanie and I saw Hamlet in Paris on 3 May 2023."},
		{ID: "s:2", Namespace: "n", SessionID: "s", SessionDate: day, Turn: 2, Role: "user", Speaker: "Caroline", Text: "It cost 40 dollars, said Oscar Wilde."},
	}
	var dv Deriver
	for round := range 2 { // the second round reads the cache
		for i, m := range ms {
			var n Neighbours
			if i > 0 {
				n.Prev = &ms[i-1]
			}
			if i+1 < len(ms) {
				n.Next = &ms[i+1]
			}
			got, want := dv.Doc(m, n), Doc(m, n)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, turn %d: Deriver.Doc\n%+v\nDoc\n%+v", round, i, got, want)
			}
			_ = append(got.Entities, "changed")
		}
		if got, want := dv.Page(ms), Page(ms); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: Deriver.Page\n%+v\nPage\n%+v", round, got, want)
		}
	}
	if a, b := dv.Doc(ms[0], Neighbours{}), dv.Doc(ms[1], Neighbours{}); !slices.Contains(a.Entities, "caroline") || slices.Contains(b.Entities, "caroline") || !slices.Contains(b.Entities, "melanie") {
		t.Errorf("the same text under two speakers: entities %q and %q", a.Entities, b.Entities)
	}
}

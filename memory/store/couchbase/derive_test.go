package couchbase

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// session is turns 0..n-1 of one session, as memories.
func session(n int) []memory.Memory {
	base := fixture()[0]
	out := make([]memory.Memory, n)
	for i := range out {
		m := base
		m.Turn, m.ID = i, memory.MemoryID(m.SessionID, i)
		m.Text = []string{"we adopted a greyhound", "what is her name", "Pixel", "she runs fast", "she sleeps all day"}[i%5]
		out[i] = m
	}
	return out
}

func windowOf(ms []memory.Memory) *window {
	w := &window{ns: "alice", session: "s-may", docs: map[int]memoryDoc{}}
	for _, m := range ms {
		w.docs[m.Turn] = newMemoryDoc(m)
	}
	return w
}

// An append writes the new turns with their neighbours' context, gives the
// turn that was last its new neighbour, and rewrites the page: the same
// documents the embedded store derives (hybrid.Doc, hybrid.Page).
func TestDeriveAppend(t *testing.T) {
	all := session(5)
	d := derive(windowOf(all[:3]), all[3:], nil)
	for i := 3; i < 5; i++ {
		var n hybrid.Neighbours
		n.Prev = &all[i-1]
		if i+1 < 5 {
			n.Next = &all[i+1]
		}
		want := hybrid.Doc(all[i], n)
		if got := d.mems[memoryKey(all[i].Namespace, all[i].ID)]; !reflect.DeepEqual(got.IndexDoc, want) {
			t.Errorf("turn %d indexed as %+v, want %+v", i, got.IndexDoc, want)
		}
	}
	if len(d.neighbours) != 1 {
		t.Fatalf("neighbours rewritten: %v, want turn 2 only", d.written())
	}
	got := d.neighbours[memoryKey(all[2].Namespace, all[2].ID)].doc.IndexDoc
	if want := hybrid.Doc(all[2], hybrid.Neighbours{Prev: &all[1], Next: &all[3]}); !reflect.DeepEqual(got, want) {
		t.Errorf("turn 2 re-indexed as %+v, want %+v", got, want)
	}
	if p := d.pages[pageKey(all[0].Namespace, all[0].SessionID, 0)]; !reflect.DeepEqual(p, hybrid.Page(all)) {
		t.Errorf("page = %+v, want the five turns'", p)
	}
}

// A delete gives the turns around it new neighbours and its page new text;
// a page with no turn left is removed.
func TestDeriveDelete(t *testing.T) {
	all := session(5)
	left := slices.Delete(slices.Clone(all), 2, 3)
	d := derive(windowOf(left), nil, []int{2})
	if len(d.mems) != 0 {
		t.Errorf("a delete writes memories: %v", d.mems)
	}
	for _, c := range []struct{ turn, prev, next int }{{1, 0, 3}, {3, 1, 4}} {
		got := d.neighbours[memoryKey(all[c.turn].Namespace, all[c.turn].ID)].doc.IndexDoc
		want := hybrid.Doc(all[c.turn], hybrid.Neighbours{Prev: &all[c.prev], Next: &all[c.next]})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("turn %d re-indexed as %+v, want %+v", c.turn, got, want)
		}
	}
	if p := d.pages[pageKey(all[0].Namespace, all[0].SessionID, 0)]; !reflect.DeepEqual(p, hybrid.Page(left)) {
		t.Errorf("page = %+v, want the four turns left", p)
	}
	gone := derive(&window{ns: "alice", session: "s-may", docs: map[int]memoryDoc{}}, nil, []int{0})
	if len(gone.emptied) != 1 || gone.emptied[0] != pageKey("alice", "s-may", 0) {
		t.Errorf("emptied = %v, want page 0", gone.emptied)
	}
}

// The page request runs in bleve as Couchbase runs it, and its hits name
// their session in a stored field; the neighbours' context matches as the
// embedded store's does.
func TestParityPagesAndContext(t *testing.T) {
	idx, err := bleve.NewMemOnly(hybrid.IndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	all := session(5)
	d := derive(windowOf(nil), all, nil)
	put := func(k string, v any) {
		raw, _ := json.Marshal(v)
		var doc map[string]any
		json.Unmarshal(raw, &doc)
		if err := idx.Index(k, doc); err != nil {
			t.Fatal(err)
		}
	}
	for k, doc := range d.mems {
		put(k, doc)
	}
	for k, p := range d.pages {
		put(k, p)
	}
	q := memory.Query{Namespace: "alice", Text: "greyhound", K: 5, Weights: memory.Weights{Session: 1, Neighbours: 0.5}}
	r, err := pageRequest(q, 10)
	if err != nil || r == nil {
		t.Fatalf("page request: %v %v", r, err)
	}
	body, _ := json.Marshal(r)
	var sr bleve.SearchRequest
	if err := json.Unmarshal(body, &sr); err != nil {
		t.Fatalf("bleve cannot read %s: %v", body, err)
	}
	res, err := idx.SearchInContext(context.Background(), &sr)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Fields[hybrid.FieldSessionID] != "s-may" {
		t.Fatalf("page hits %+v, want page 0 of s-may with its session id", res.Hits)
	}
	// "greyhound" is in turns 0 and 5k; turn 1 has it as context
	tr, err := build(memory.Query{Namespace: "alice", Text: "greyhound", K: 5, Fusion: memory.TextOnly, Weights: q.Weights}, FusionRRF)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = json.Marshal(tr)
	got := run(t, idx, body)
	if !slices.Contains(got, memoryKey("alice", "s-may:1")) || got[0] != memoryKey("alice", "s-may:0") {
		t.Errorf("hits %v, want s-may:0 first and s-may:1 through its neighbour", got)
	}
}

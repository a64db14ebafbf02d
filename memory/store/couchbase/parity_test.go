package couchbase

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// parityIndex is an in-memory bleve index with the embedded store's
// mapping, holding the fixture as Couchbase holds it: the stored documents'
// JSON, under their document keys. bleve without FAISS has no vector
// fields, so the kNN side is checked through its prefilter only.
func parityIndex(t *testing.T) bleve.Index {
	t.Helper()
	idx, err := bleve.NewMemOnly(hybrid.IndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	for _, m := range fixture() {
		raw, err := json.Marshal(newMemoryDoc(m))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if err := idx.Index(memoryKey(m.Namespace, m.ID), doc); err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

// run executes a request body the way the server parses it: as a bleve
// search request.
func run(t *testing.T, idx bleve.Index, body []byte) []string {
	t.Helper()
	var sr bleve.SearchRequest
	if err := json.Unmarshal(body, &sr); err != nil {
		t.Fatalf("bleve cannot read the request: %v\n%s", err, body)
	}
	res, err := idx.SearchInContext(context.Background(), &sr)
	if err != nil {
		t.Fatalf("bleve cannot run the request: %v\n%s", err, body)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids
}

func keys(ns string, ids ...string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = memoryKey(ns, id)
	}
	return out
}

// TestParity runs the JSON the store would send in bleve and checks that it
// finds what the embedded store finds for the same memory.Query (its text
// side, hybrid.SearchRequest(q), cut to k), and the memories expected.
func TestParity(t *testing.T) {
	idx := parityIndex(t)
	base := memory.Query{Namespace: "alice", Text: "how is Biscuit the dog", K: 3, Fusion: memory.TextOnly}
	tests := []struct {
		name   string
		fusion string
		q      func(memory.Query) memory.Query
		want   []string
	}{
		{"text", FusionRRF, func(q memory.Query) memory.Query { return q },
			keys("alice", "s-may:0", "s-may:1", "s-june:1")},
		{"other namespace", FusionRRF, func(q memory.Query) memory.Query { q.Namespace = "bob"; return q },
			keys("bob", "s-may:0")},
		{"session", FusionSum, func(q memory.Query) memory.Query { q.SessionID = "s-june"; return q },
			keys("alice", "s-june:1")},
		{"dates", FusionRRF, func(q memory.Query) memory.Query {
			q.After = time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC)
			return q
		}, keys("alice", "s-june:1")},
		{"entity only", FusionRRF, func(q memory.Query) memory.Query {
			q.Text, q.K = "Lisbon", 5
			return q
		}, keys("alice", "s-june:0")},
		{"irregular verb", FusionRRF, func(q memory.Query) memory.Query {
			q.Namespace, q.Text = "bob", "Did anyone win?" // the memory says "won"
			return q
		}, keys("bob", "s-may:0")},
		{"k cuts", FusionRRF, func(q memory.Query) memory.Query { q.K = 1; return q },
			keys("alice", "s-may:0")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q(base)
			r, err := build(q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			body, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			pool := run(t, idx, body)
			// both stores cut the candidate pool to k after ranking it
			got := pool[:min(q.K, len(pool))]
			if !slices.Equal(got, tc.want) {
				t.Errorf("hits %v, want %v", got, tc.want)
			}
			// The embedded store runs hybrid.SearchRequest(q) on the same
			// mapping, for the same pool.
			res, err := idx.Search(hybrid.SearchRequest(q))
			if err != nil {
				t.Fatal(err)
			}
			var embedded []string
			for _, h := range res.Hits {
				embedded = append(embedded, h.ID)
			}
			got = pool
			if !slices.Equal(got, embedded) {
				t.Errorf("hits %v, the embedded store's text side finds %v", got, embedded)
			}
		})
	}
}

// TestParityHybridTextSide checks that a hybrid request, whose kNN part
// bleve without FAISS ignores, still parses (score, params) and ranks its
// text side as the text-only request does.
func TestParityHybridTextSide(t *testing.T) {
	idx := parityIndex(t)
	for _, tc := range queries() {
		if tc.q.Fusion == memory.VectorOnly {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			r, err := build(tc.q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(r)
			got := run(t, idx, body)
			text := tc.q
			text.Fusion = memory.TextOnly
			tr, _ := build(text, tc.fusion)
			tbody, _ := json.Marshal(tr)
			if want := run(t, idx, tbody); !slices.Equal(got, want) {
				t.Errorf("hybrid text side %v, text-only %v", got, want)
			}
			if len(got) == 0 {
				t.Error("no hits: the fixture should match every query shape")
			}
		})
	}
}

// TestParityPrefilter runs each kNN prefilter as a query: it must admit
// exactly the memories the query may return, so kNN candidates never come
// from another namespace, session or date range.
func TestParityPrefilter(t *testing.T) {
	idx := parityIndex(t)
	for _, tc := range queries() {
		if tc.q.Vector == nil || tc.q.Fusion == memory.TextOnly {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			r, err := build(tc.q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := query.ParseQuery(r.KNN[0].Filter)
			if err != nil {
				t.Fatalf("bleve cannot read the prefilter: %v", err)
			}
			req := bleve.NewSearchRequestOptions(pf, 100, 0, false)
			req.SortBy([]string{"_id"})
			res, err := idx.Search(req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID)
			}
			var want []string
			for _, m := range fixture() {
				if admits(tc.q, m) {
					want = append(want, memoryKey(m.Namespace, m.ID))
				}
			}
			slices.Sort(want)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("prefilter admits %v, want %v", got, want)
			}
		})
	}
}

func admits(q memory.Query, m memory.Memory) bool {
	return m.Namespace == q.Namespace &&
		(q.SessionID == "" || m.SessionID == q.SessionID) &&
		(q.After.IsZero() || !m.SessionDate.Before(q.After)) &&
		(q.Before.IsZero() || !m.SessionDate.After(q.Before))
}

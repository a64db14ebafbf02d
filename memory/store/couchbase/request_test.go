package couchbase

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// queries are the shapes of recall the store sends, each with its golden
// request file.
func queries() []struct {
	name   string
	fusion string
	q      memory.Query
} {
	base := memory.Query{
		Namespace: "alice",
		Text:      "what is my dog Biscuit doing",
		Vector:    unit([]float32{1, 0, 0.2, 0}),
		K:         3,
		Fusion:    memory.RRF,
	}
	with := func(f func(*memory.Query)) memory.Query {
		q := base
		f(&q)
		return q
	}
	return []struct {
		name   string
		fusion string
		q      memory.Query
	}{
		{"hybrid-rrf", FusionRRF, base},
		{"hybrid-rsf", FusionRRF, with(func(q *memory.Query) { q.Fusion = memory.RSF })},
		{"hybrid-sum", FusionSum, base},
		{"hybrid-weighted-rrf", FusionRRF, with(func(q *memory.Query) {
			q.Weights = memory.Weights{Text: 2, Vector: 1, Entity: 3, RankConstant: 10}
			q.Pool = 50
		})},
		{"text", FusionRRF, with(func(q *memory.Query) { q.Fusion = memory.TextOnly })},
		{"text-fill", FusionRRF, with(func(q *memory.Query) { q.Fusion, q.K, q.Pool = memory.TextOnly, 12, 5 })},
		{"lexical-only", FusionRRF, with(func(q *memory.Query) { q.Vector = nil })},
		{"vector", FusionRRF, with(func(q *memory.Query) { q.Fusion = memory.VectorOnly })},
		{"session-dates", FusionSum, with(func(q *memory.Query) {
			q.SessionID = "s-june"
			q.After = time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC)
			q.Before = time.Date(2024, 6, 30, 23, 59, 59, 0, time.UTC)
		})},
		{"exclude-session", FusionRRF, with(func(q *memory.Query) { q.ExcludeSession = "s-now" })},
	}
}

func TestRequestGolden(t *testing.T) {
	for _, tc := range queries() {
		t.Run(tc.name, func(t *testing.T) {
			r, err := build(tc.q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "request-"+tc.name+".json", r)
		})
	}
}

func TestRequestShape(t *testing.T) {
	for _, tc := range queries() {
		t.Run(tc.name, func(t *testing.T) {
			r, err := build(tc.q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			wantText := tc.q.Fusion != memory.VectorOnly
			wantVec := tc.q.Vector != nil && tc.q.Fusion != memory.TextOnly
			// the whole pool: hybrid.Rank re-ranks it before cutting to k
			if r.Size != tc.q.PoolSize() {
				t.Errorf("size %d, want the pool, %d", r.Size, tc.q.PoolSize())
			}
			if wantText {
				// The text side is exactly the tree of q.TextQuery().
				want, _ := json.Marshal(hybrid.TextQuery(tc.q))
				if string(r.Query) != string(want) {
					t.Errorf("query\n%s\nwant q.TextQuery()\n%s", r.Query, want)
				}
			} else if string(r.Query) != string(matchNone) {
				t.Errorf("vector-only query %s, want %s", r.Query, matchNone)
			}
			if !wantVec {
				if len(r.KNN) != 0 {
					t.Fatalf("knn %+v, want none", r.KNN)
				}
				return
			}
			if len(r.KNN) != 1 {
				t.Fatalf("%d knn queries, want 1", len(r.KNN))
			}
			k := r.KNN[0]
			if int(k.K) != tc.q.PoolSize() {
				t.Errorf("knn k=%d, want the pool %d (gocb would send 3)", k.K, tc.q.PoolSize())
			}
			filter, _ := json.Marshal(hybrid.Filter(tc.q))
			if string(k.Filter) != string(filter) {
				t.Errorf("knn prefilter\n%s\nwant q.Filter()\n%s", k.Filter, filter)
			}
			hybrid := wantText
			if hybrid && tc.fusion == FusionRRF && r.Score != string(tc.q.Fusion) {
				t.Errorf("score %q, want %q", r.Score, tc.q.Fusion)
			}
			if tc.fusion == FusionSum && r.Score != "" {
				t.Errorf("score %q with sum fusion, want the server default", r.Score)
			}
		})
	}
}

// A hybrid recall that asks for more than its pool (one that fills) runs
// as two requests, each side for the pool, fused as the embedded store
// fuses: the server's fusion would return at most one pool of candidates.
// So does one the learned order ranks (the default), whatever its k: the
// model reads each side's rank and score, which the server's fusion does
// not report; and one whose caller asks for the ranks (a structured
// result: the hooks' relevance floor reads the text rank).
func TestFillRunsTheSidesApart(t *testing.T) {
	q := queries()[0].q
	q.K, q.Pool = 12, 5
	if !sides(q) {
		t.Fatal("a hybrid query for more than its pool is not run side by side")
	}
	if o := q; true {
		o.K = 5
		if !sides(o) {
			t.Error("a hybrid query the learned order ranks is not run side by side")
		}
		o.Weights.Learned, o.Ranks = -1, true
		if !sides(o) {
			t.Error("a hybrid query that asks for the sides' ranks is not run side by side")
		}
	}
	for _, not := range []func(*memory.Query){
		func(q *memory.Query) { q.K = 5; q.Weights.Learned = -1 },
		func(q *memory.Query) { q.K = 5; q.Weights.Learned = -1; q.Explain = true }, // explain changes nothing
		func(q *memory.Query) { q.Fusion = memory.TextOnly },
		func(q *memory.Query) { q.Fusion = memory.VectorOnly },
		func(q *memory.Query) { q.Fusion = memory.Rerank },
		func(q *memory.Query) { q.Vector = nil },
	} {
		o := q
		not(&o)
		if sides(o) {
			t.Errorf("%+v runs side by side; one request does", o)
		}
	}
	text, vec, err := sideRequests(q)
	if err != nil {
		t.Fatal(err)
	}
	tq, vq := q, q
	tq.Fusion, vq.Fusion = memory.TextOnly, memory.VectorOnly
	for _, c := range []struct {
		got  *request
		want memory.Query
		side string
	}{{text, tq, sideText}, {vec, vq, sideVector}} {
		want, err := build(c.want, FusionRRF)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(c.got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) || c.got.side != c.side || c.got.Size != 5 || c.got.Score != "" {
			t.Errorf("%s side: %s (size %d), want the single-side request for the pool %s", c.side, g, c.got.Size, w)
		}
	}
}

// TestRequestGocb checks that the gocb values send carries the same body as
// the golden JSON: gocb's own encoding of the vector query, and the options
// it turns into "size", "score" and "params".
func TestRequestGocb(t *testing.T) {
	for _, tc := range queries() {
		t.Run(tc.name, func(t *testing.T) {
			r, err := build(tc.q, tc.fusion)
			if err != nil {
				t.Fatal(err)
			}
			req, opts := r.gocb()
			gotQuery, _ := json.Marshal(req.SearchQuery)
			if string(gotQuery) != string(r.Query) {
				t.Errorf("gocb query %s, want %s", gotQuery, r.Query)
			}
			if int(opts.Limit) != r.Size {
				t.Errorf("limit %d, want %d", opts.Limit, r.Size)
			}
			if r.Score != "" {
				raw, _ := json.Marshal(opts.Raw)
				want, _ := json.Marshal(map[string]any{"score": r.Score, "params": r.Params})
				if string(raw) != string(want) {
					t.Errorf("raw options %s, want %s", raw, want)
				}
			} else if opts.Raw != nil {
				t.Errorf("raw options %v, want none", opts.Raw)
			}
			if len(r.KNN) == 0 {
				if req.VectorSearch != nil {
					t.Error("vector search set for a request without knn")
				}
				return
			}
			in := req.VectorSearch.Internal()
			if err := in.Validate(); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(in.Queries)
			want, _ := json.Marshal(r.KNN)
			if string(got) != string(want) {
				t.Errorf("gocb knn\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestBuildNothing(t *testing.T) {
	r, err := build(memory.Query{Namespace: "n", K: 3, Fusion: memory.RRF}, FusionRRF)
	if err != nil || r != nil {
		t.Fatalf("build of an empty query = %+v, %v; want nil, nil", r, err)
	}
}

// The speakers request is a facet of the namespace's speakers and no hits:
// golden, as gocb sends it, and run in bleve it gives the speakers of that
// namespace only.
func TestSpeakersRequest(t *testing.T) {
	r, err := speakersRequest("alice")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "request-speakers.json", r)

	req, opts := r.gocb()
	if got, _ := json.Marshal(req.SearchQuery); string(got) != string(r.Query) {
		t.Errorf("gocb query %s, want %s", got, r.Query)
	}
	raw, _ := json.Marshal(opts.Raw)
	if string(raw) != `{"score":"none","size":0}` {
		t.Errorf("raw options %s: want no hits and no scores (gocb leaves a limit of 0 out)", raw)
	}
	got, _ := json.Marshal(opts.Facets)
	if string(got) != `{"speakers":{"field":"speaker","size":1000}}` {
		t.Errorf("gocb facets %s", got)
	}

	idx, err := bleve.NewMemOnly(hybrid.IndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	day := time.Date(2024, 5, 3, 9, 0, 0, 0, time.UTC)
	for i, m := range []memory.Memory{
		{Namespace: "alice", SessionID: "s1", Turn: 0, Speaker: "Caroline", Text: "Hey Melanie!"},
		{Namespace: "alice", SessionID: "s1", Turn: 1, Speaker: "Dr. Alvarez", Text: "Hi Caroline."},
		{Namespace: "alice", SessionID: "s1", Turn: 2, Speaker: "Caroline", Text: "How are you, doctor?"},
		{Namespace: "bob", SessionID: "s1", Turn: 0, Speaker: "Melanie", Text: "Hello Caroline."},
	} {
		m.ID, m.SessionDate = memory.MemoryID(m.SessionID, m.Turn), day
		raw, _ := json.Marshal(newMemoryDoc(m))
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if err := idx.Index(memoryKey(m.Namespace, m.ID)+string(rune('a'+i)), doc); err != nil {
			t.Fatal(err)
		}
	}
	body, _ := json.Marshal(r)
	var sr bleve.SearchRequest
	if err := json.Unmarshal(body, &sr); err != nil {
		t.Fatalf("bleve cannot read the request: %v\n%s", err, body)
	}
	res, err := idx.Search(&sr)
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for _, tf := range res.Facets[speakersFacet].Terms.Terms() {
		terms = append(terms, tf.Term)
	}
	slices.Sort(terms)
	if want := []string{"Caroline", "Dr. Alvarez"}; !slices.Equal(terms, want) {
		t.Errorf("speakers of alice = %q, want %q", terms, want)
	}
	if got := namedSpeakers(terms, hybrid.QueryNames("What did Alvarez tell Melanie?")); !slices.Equal(got, []string{"Dr. Alvarez"}) {
		t.Errorf("named speakers = %q, want Dr. Alvarez (Melanie speaks in another namespace)", got)
	}
}

// A query that names a period searches each side it runs alone
// PeriodDepth times its pool deep, as the embedded store does (hybrid.Rank
// keeps what lies past the pool only in the period); the server's fusion
// of both sides keeps its pool, since it reports no side's rank.
func TestPeriodSidesDeeper(t *testing.T) {
	q := queries()[0].q
	q.K, q.Pool = 12, 5
	q.Periods = []memory.Period{{Text: "in May", From: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)}}
	text, vec, err := sideRequests(q)
	if err != nil {
		t.Fatal(err)
	}
	deep := memory.PeriodDepth * 5
	if text.Size != deep || vec.Size != deep || vec.KNN[0].K != uint32(deep) {
		t.Errorf("sides of a query in May: text size %d, vector size %d k %d, want %d", text.Size, vec.Size, vec.KNN[0].K, deep)
	}
	fused, err := build(q, FusionRRF)
	if err != nil {
		t.Fatal(err)
	}
	if fused.Size != 5 || fused.KNN[0].K != 5 {
		t.Errorf("the server's fusion: size %d k %d, want the pool, 5", fused.Size, fused.KNN[0].K)
	}
	q.Weights.Time = -1
	if text, _, _ = sideRequests(q); text.Size != 5 {
		t.Errorf("time boost off: text size %d, want the pool, 5", text.Size)
	}
}

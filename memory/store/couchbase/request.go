package couchbase

import (
	"encoding/json"
	"fmt"

	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/couchbase/gocb/v2"
	cbsearch "github.com/couchbase/gocb/v2/search"
	"github.com/couchbase/gocb/v2/vector"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// request is one Couchbase Search request body as it goes on the wire
// (gocb adds its "ctl" for timeout and consistency, and "showrequest").
// Building it is pure, so it is golden-tested and run in bleve by the tests;
// send turns it into gocb's types.
type request struct {
	Query  json.RawMessage  `json:"query"`
	KNN    []knn            `json:"knn,omitempty"`
	Size   int              `json:"size"`
	Score  string           `json:"score,omitempty"`
	Params *fusionParams    `json:"params,omitempty"`
	Fields []string         `json:"fields,omitempty"`
	Facets map[string]facet `json:"facets,omitempty"`
	// side says which ranking the hits are, for Hit.TextRank and
	// VectorRank; "" when the server fused both.
	side string
}

// facet is a term facet in its wire form (bleve's FacetRequest).
type facet struct {
	Field string `json:"field"`
	Size  int    `json:"size"`
}

// speakersFacet names the facet of speakersRequest; maxSpeakers is its
// size: a query's names are looked up among a namespace's maxSpeakers
// most frequent speakers (a name of a rarer one stays in the text's match).
const (
	speakersFacet = "speakers"
	maxSpeakers   = 1000
)

// speakersRequest asks for the speakers of namespace ns: no hits, no
// scores, a term facet on the speaker field under the namespace filter
// (see Store.speakers).
func speakersRequest(ns string) (*request, error) {
	raw, err := marshalQuery(hybrid.Filter(memory.Query{Namespace: ns}))
	if err != nil {
		return nil, err
	}
	return &request{Query: raw, Score: "none", Facets: map[string]facet{speakersFacet: {hybrid.FieldSpeaker, maxSpeakers}}}, nil
}

// knn is one vector query, in gocb's wire form (vector.InternalQuery).
type knn struct {
	Field  string          `json:"field"`
	Vector []float32       `json:"vector"`
	K      uint32          `json:"k"`
	Boost  *float32        `json:"boost,omitempty"`
	Filter json.RawMessage `json:"filter,omitempty"`
}

// fusionParams are the score fusion parameters of Couchbase 8.1 (bleve's
// RequestParams).
type fusionParams struct {
	RankConstant int `json:"score_rank_constant,omitempty"`
	WindowSize   int `json:"score_window_size"`
}

const (
	sideText   = "text"
	sideVector = "vector"
)

// matchNone is what gocb sends as the query of a vector-only request.
var matchNone = json.RawMessage(`{"match_none":{}}`)

// build returns the single Search request that runs q, or nil when q has
// nothing to search. The text side is exactly hybrid.TextQuery(q); the kNN side
// has hybrid.Filter(q) as its prefilter, or memories of other namespaces would
// take the kNN candidates. fusion is Config.Fusion.
//
// Rerank is not built here: it needs the vector pool before it can build
// its text side (see Store.rerank).
func build(q memory.Query, fusion string) (*request, error) {
	w := q.Weights.OrDefault()
	text := hybrid.TextQuery(q)
	vec := q.Vector != nil && q.Fusion != memory.TextOnly
	if q.Fusion == memory.VectorOnly {
		text = nil
	}
	// the whole fused pool: the session and time priors re-rank it before
	// it is cut to k (hybrid.Rank), as in the embedded store; one side
	// alone (fused here, with its ranks) searches as deep as the embedded
	// store's sides (Query.Depth), the server's fusion its pool
	n := q.PoolSize()
	if text == nil || !vec {
		n = q.Depth()
	}
	r := &request{Size: n}
	if text != nil {
		raw, err := marshalQuery(text)
		if err != nil {
			return nil, err
		}
		r.Query = raw
	}
	if vec {
		filter, err := marshalQuery(hybrid.Filter(q))
		if err != nil {
			return nil, err
		}
		k := knn{
			Field:  hybrid.FieldVector,
			Vector: q.Vector,
			// gocb asks for 3 candidates when this is unset.
			K:      uint32(n),
			Filter: filter,
		}
		if boost := vectorBoost(w, fusion); boost != 1 {
			k.Boost = &boost
		}
		r.KNN = []knn{k}
	}
	switch {
	case r.Query == nil && r.KNN == nil:
		return nil, nil
	case r.KNN == nil:
		r.side = sideText
	case r.Query == nil:
		r.Query = matchNone
		r.side = sideVector
	case fusion == FusionRRF:
		// The server fuses the best window-size hits of each side, as
		// hybrid.Fuse fuses the two candidate pools.
		r.Score = string(memory.RRF)
		r.Params = &fusionParams{RankConstant: w.RankConstant, WindowSize: q.PoolSize()}
		if q.Fusion == memory.RSF {
			r.Score = string(memory.RSF)
			r.Params.RankConstant = 0
		}
	}
	return r, nil
}

// sideRequests are q's two sides as requests of their own, each for the
// pool (see sides): the text side (nil when q has nothing lexical to
// match) and the kNN side.
func sideRequests(q memory.Query) (text, vec *request, err error) {
	tq, vq := q, q
	tq.Fusion, vq.Fusion = memory.TextOnly, memory.VectorOnly
	if text, err = build(tq, FusionRRF); err != nil {
		return nil, nil, err
	}
	if vec, err = build(vq, FusionRRF); err != nil {
		return nil, nil, err
	}
	return text, vec, nil
}

// rerankRequest is the text side of a Rerank: hybrid.RerankQuery over the
// document keys of the vector pool, for as many hits as the pool holds. It
// returns nil when q has nothing lexical to match.
func rerankRequest(q memory.Query, keys []string) (*request, error) {
	tq := hybrid.RerankQuery(q, keys)
	if tq == nil {
		return nil, nil
	}
	raw, err := marshalQuery(tq)
	if err != nil {
		return nil, err
	}
	return &request{Query: raw, Size: len(keys), side: sideText}, nil
}

// vectorBoost weights the kNN side. With server fusion the top-level query
// boost and each kNN boost are the fusion weights; as only their ratio
// matters, the text tree keeps its boost of 1 (it stays exactly
// hybrid.TextQuery(q)) and the kNN side carries Vector/Text. With the server's
// sum of scores, the text weight is already inside the tree (the match
// clause's boost), so the kNN side carries Vector.
func vectorBoost(w memory.Weights, fusion string) float32 {
	if fusion == FusionRRF {
		return float32(w.Vector / w.Text)
	}
	return float32(w.Vector)
}

func marshalQuery(q query.Query) (json.RawMessage, error) {
	raw, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("encoding the search query: %w", err)
	}
	return raw, nil
}

// gocb returns r as gocb's request and options; the body gocb sends is r's
// JSON plus gocb's "ctl" and "showrequest".
func (r *request) gocb() (gocb.SearchRequest, gocb.SearchOptions) {
	req := gocb.SearchRequest{SearchQuery: cbsearch.Query(r.Query)}
	if len(r.KNN) > 0 {
		qs := make([]*vector.Query, len(r.KNN))
		for i, k := range r.KNN {
			vq := vector.NewQuery(k.Field, k.Vector).NumCandidates(k.K)
			if k.Boost != nil {
				vq = vq.Boost(*k.Boost)
			}
			if k.Filter != nil {
				vq = vq.Prefilter(k.Filter)
			}
			qs[i] = vq
		}
		req.VectorSearch = vector.NewSearch(qs, nil)
	}
	opts := gocb.SearchOptions{Limit: uint32(r.Size), Fields: r.Fields}
	if r.Score != "" {
		opts.Raw = map[string]any{"score": r.Score}
		if r.Params != nil {
			opts.Raw["params"] = r.Params
		}
	}
	if len(r.Facets) > 0 {
		// gocb leaves a size of 0 out, and the server's default is 10
		if opts.Raw == nil {
			opts.Raw = map[string]any{}
		}
		opts.Raw["size"] = r.Size
		opts.Facets = map[string]cbsearch.Facet{}
		for name, f := range r.Facets {
			opts.Facets[name] = cbsearch.NewTermFacet(f.Field, uint64(f.Size))
		}
	}
	return req, opts
}

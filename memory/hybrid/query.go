package hybrid

import (
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory"
	"agentmem/memory/hybrid/entities"
)

// Filter is the part of q that selects which memories may be returned at
// all: its namespace, session and date bounds. The text side is a
// conjunction with it, and a kNN side must use it as its prefilter, or hits
// from other namespaces leak into the fused result.
//
// Every filter clause has boost 0: it selects and never scores. A date range
// is a disjunction of prefix terms in bleve, so a scoring one would reorder
// the memories it keeps (a bound that excludes nothing would still move the
// ranking), and the namespace term would add noise to every score.
func Filter(q memory.Query) query.Query {
	tq := bleve.NewTermQuery(q.Namespace)
	tq.SetField(FieldNamespace)
	tq.SetBoost(0)
	filters := []query.Query{tq}
	if q.SessionID != "" {
		sq := bleve.NewTermQuery(q.SessionID)
		sq.SetField(FieldSessionID)
		sq.SetBoost(0)
		filters = append(filters, sq)
	}
	if !q.After.IsZero() || !q.Before.IsZero() {
		incl := true
		dq := bleve.NewDateRangeInclusiveQuery(q.After, q.Before, &incl, &incl)
		dq.SetField(FieldSessionDate)
		dq.SetBoost(0)
		filters = append(filters, dq)
	}
	if len(filters) == 1 {
		return tq
	}
	return bleve.NewConjunctionQuery(filters...)
}

// TextQuery is the lexical side of q: its filter, and a disjunction of a
// BM25 match on the text with a phrase match per query entity, so a turn
// that names what the question names scores above one that only shares
// common words with it; with a Neighbours weight, the same two matches on
// the memory's neighbouring turns, weighted by it. It returns nil when q has
// nothing lexical to match.
func TextQuery(q memory.Query) query.Query {
	m := TextMatch(q)
	if m == nil {
		return nil
	}
	return bleve.NewConjunctionQuery(Filter(q), m)
}

// TextMatch is TextQuery without its filter: the part that scores. A
// store whose engine has non-scoring filter clauses (bleve's BooleanQuery
// filter) may run it with Filter(q) as one; the ranking is the same.
func TextMatch(q memory.Query) query.Query {
	w := q.Weights.OrDefault()
	ents := entities.Extract(q.Text)
	should := matches(q.Text, ents, FieldText, FieldEntities, w.Text, w.Entity)
	if w.Neighbours > 0 {
		should = append(should, matches(q.Text, ents, FieldContext, FieldContextEntities, w.Text*w.Neighbours, w.Entity*w.Neighbours)...)
	}
	if len(should) == 0 {
		return nil
	}
	return bleve.NewDisjunctionQuery(should...)
}

// matches is a BM25 match of text on field and a phrase match of each
// entity on entField.
func matches(text string, ents []string, field, entField string, boost, entBoost float64) []query.Query {
	var out []query.Query
	if strings.TrimSpace(text) != "" {
		mq := bleve.NewMatchQuery(text)
		mq.SetField(field)
		mq.SetBoost(boost)
		out = append(out, mq)
	}
	for _, e := range ents {
		pq := bleve.NewMatchPhraseQuery(e)
		pq.SetField(entField)
		pq.SetBoost(entBoost)
		out = append(out, pq)
	}
	return out
}

// PageQuery is the session side of q: the pages of q's sessions that match
// its text and entities, under q's filter, for the relevance of each
// session (see Rank). It returns nil when q does not weigh sessions or has
// nothing lexical to match.
func PageQuery(q memory.Query) query.Query {
	w := q.Weights.OrDefault()
	if w.Session <= 0 {
		return nil
	}
	should := matches(q.Text, entities.Extract(q.Text), FieldPageText, FieldPageEntities, 1, w.Entity)
	if len(should) == 0 {
		return nil
	}
	return bleve.NewConjunctionQuery(Filter(q), bleve.NewDisjunctionQuery(should...))
}

// PageRequest is PageQuery as a search request for the best n pages.
func PageRequest(q memory.Query, n int) *bleve.SearchRequest {
	pq := PageQuery(q)
	if pq == nil {
		return nil
	}
	r := bleve.NewSearchRequestOptions(pq, n, 0, false)
	r.Score = ""
	return r
}

// SearchRequest is the text side of q as a bleve search request for the
// candidate pool: the request the embedded store executes and the Couchbase
// store sends (with its kNN part added). It returns nil when there is
// nothing lexical to search.
func SearchRequest(q memory.Query) *bleve.SearchRequest {
	tq := TextQuery(q)
	if tq == nil {
		return nil
	}
	r := bleve.NewSearchRequestOptions(tq, q.PoolSize(), 0, false)
	r.Score = "" // default scoring; the index mapping selects BM25
	return r
}

// RerankQuery is the text side of q restricted to the given candidate ids
// (the vector pool), for Rerank fusion. It returns nil when q has nothing
// lexical to match.
func RerankQuery(q memory.Query, ids []string) query.Query {
	tq := TextQuery(q)
	if tq == nil || len(ids) == 0 {
		return nil
	}
	return bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), tq)
}

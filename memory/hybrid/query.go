package hybrid

import (
	"slices"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory"
	"agentmem/memory/hybrid/entities"
	"agentmem/memory/hybrid/forms"
)

// Filter is the part of q that selects which memories may be returned at
// all: its namespace, session and date bounds, and the session it leaves
// out (a must-not clause). The text side is a conjunction with it, and a
// kNN side must use it as its prefilter, or hits from other namespaces
// leak into the fused result.
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
	var keep query.Query = tq
	if len(filters) > 1 {
		keep = bleve.NewConjunctionQuery(filters...)
	}
	xq := ExcludedSession(q)
	if xq == nil {
		return keep
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(keep)
	bq.AddMustNot(xq)
	bq.SetBoost(0)
	return bq
}

// ExcludedSession is the term of the session q leaves out, for a
// must-not clause; nil when it leaves none out.
func ExcludedSession(q memory.Query) query.Query {
	if q.ExcludeSession == "" {
		return nil
	}
	xq := bleve.NewTermQuery(q.ExcludeSession)
	xq.SetField(FieldSessionID)
	xq.SetBoost(0)
	return xq
}

// TextQuery is the lexical side of q: its filter, and a disjunction of a
// BM25 match on the text with a phrase match per query entity, so a turn
// that names what the question names scores above one that only shares
// common words with it, and a match of the same words on the kinds of the
// memories' nouns (weights.kinds), so a question that names a kind of
// thing finds a turn that names the thing. It returns nil when q has
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
	text, ents := lexical(q)
	// a past form matches as its base, as the documents index it
	// (IndexDoc.Forms): "the day we met" finds "when we first meet"
	should := matches(forms.Rewrite(text), ents, FieldText, FieldEntities, w.Text, w.Entity)
	if w.Kinds > 0 {
		// the query's words against the kinds of each memory's nouns:
		// "states" finds a turn about Oregon
		should = append(should, matches(text, nil, FieldKinds, "", w.Kinds, 0)...)
	}
	if len(should) == 0 {
		return nil
	}
	return bleve.NewDisjunctionQuery(should...)
}

// lexical is what the text side of q matches: its entities, each as a
// phrase on the entities field, and its words on the text field, less the
// names of the namespace's speakers (q.Speakers) among them. In a
// conversation a speaker's name in a turn's text is mostly the name of
// whom the turn addresses ("Hey John!", "Thanks, Maria!"), so the BM25 of
// "John" on the text favours short greetings over what the question asks
// about John; the entities field holds each turn's speaker and the names
// it mentions, so a speaker's name is matched there, once.
//
// A word leaves the text only when it is written as a name (it starts
// with a capital) and the extractor read it as a speaker's: a one-word
// name that is a word of a speaker's name ("Alvarez" of "Dr. Alvarez"),
// or a word of a longer name that is a speaker's whole name ("Mary Ann").
// Everything else stays: other names ("Sam" the cousin, "Nordstrom",
// "Chess"), so a turn that writes them in lower case or that the extractor
// reads no name in still matches them; the same word in lower case ("the
// rose garden" with a speaker Rose); a speaker's first name inside
// another name ("John Lewis"). Measured in EVALS.md, "Recall defaults".
func lexical(q memory.Query) (string, []string) {
	ents := entities.Extract(q.Text)
	if len(q.Speakers) == 0 {
		return q.Text, ents
	}
	words, full := map[string]bool{}, map[string]bool{}
	for _, sp := range q.Speakers {
		keys := nameKeys(sp)
		for _, k := range keys {
			words[k] = true
		}
		full[strings.Join(keys, " ")] = true
	}
	drop, keep := map[string]bool{}, map[string]bool{}
	for _, e := range ents {
		if !isName(e) {
			continue
		}
		keys := nameKeys(e)
		switch {
		case len(keys) == 1 && words[keys[0]]:
			drop[keys[0]] = true
		case len(keys) > 1 && full[strings.Join(keys, " ")]:
			for _, k := range keys {
				drop[k] = true
			}
		case len(keys) > 1:
			for _, k := range keys {
				keep[k] = true
			}
		}
	}
	if len(drop) == 0 {
		return q.Text, ents
	}
	var kept []string
	for _, w := range strings.Fields(q.Text) {
		if k, capital := entities.Word(w); drop[k] && !keep[k] && capital {
			continue
		}
		kept = append(kept, w)
	}
	return strings.Join(kept, " "), ents
}

// QueryNames is the words of the names in a query's text, lower-cased
// ("caroline" of "Caroline's"; "mary" and "ann" of "Mary Ann"): a store
// looks up which of its namespace's speakers they name (Query.Speakers,
// SpeakerNamed) when there are any. A name is an entity of words of
// letters ("Dr. Alvarez" too); "O'Brien" or a name with a digit is none,
// and stays a word of the text.
func QueryNames(text string) []string {
	var out []string
	for _, e := range entities.Extract(text) {
		if isName(e) {
			for _, k := range nameKeys(e) {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// SpeakerNamed reports whether one of names (QueryNames) is a word of a
// speaker's name: "alvarez" names "Dr. Alvarez".
func SpeakerNamed(speaker string, names []string) bool {
	return slices.ContainsFunc(nameKeys(speaker), func(k string) bool {
		return slices.Contains(names, k)
	})
}

// isName reports whether an entity is words of letters (each may end in
// a full stop: "dr. alvarez").
func isName(e string) bool {
	if e == "" {
		return false
	}
	for _, w := range strings.Fields(e) {
		w = strings.TrimSuffix(w, ".")
		if w == "" {
			return false
		}
		for _, r := range w {
			if !unicode.IsLetter(r) {
				return false
			}
		}
	}
	return true
}

// nameKeys is the key of each word of s (entities.Word), empty ones left
// out.
func nameKeys(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		if k, _ := entities.Word(w); k != "" {
			out = append(out, k)
		}
	}
	return out
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

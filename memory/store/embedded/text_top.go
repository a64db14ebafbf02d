package embedded

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory/hybrid"
	"agentmem/memory/store/embedded/maxscore"
)

// The text side takes the shape of the shared query tree apart and
// evaluates it with MaxScore (package maxscore): bleve's ranking and
// scores without scoring every posting of a question's common words.

// maxScoreTrace, when set (tests), gets each evaluation's result: the
// postings it walked (Next), those of its words (what bleve walks), and
// how many walkers walked them.
var maxScoreTrace func(maxscore.Result)

// textTop returns the best n documents of tq, the store's text query
// (textQuery: hybrid.TextMatch, alone, under a non-scoring filter, or
// without a session's documents: a must-not clause), as
// search does: equal scores at the cut decided by id (MaxScore's pool
// keeps every document that ties with its lowest score, so one walk
// suffices where search asks bleve again for more).
func (t *textIndex) textTop(ctx context.Context, tq query.Query, n int) ([]hybrid.Ranked, error) {
	match, filter, exclude := tq, query.Query(nil), query.Query(nil)
	if bq, ok := tq.(*query.BooleanQuery); ok && bq.Should == nil {
		match, filter, exclude = bq.Must, bq.Filter, bq.MustNot
		if cq, ok := match.(*query.ConjunctionQuery); ok && len(cq.Conjuncts) == 1 {
			match = cq.Conjuncts[0] // AddMust wraps its query in a conjunction
		}
	}
	if top, ok := match.(*query.DisjunctionQuery); ok {
		res, ok, err := maxscore.Search(ctx, t.idx, top, filter, exclude, n)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		if ok {
			if maxScoreTrace != nil {
				maxScoreTrace(res)
			}
			out := make([]hybrid.Ranked, len(res.Hits))
			for i, h := range res.Hits {
				_, id := splitKey(h.ID)
				out[i] = hybrid.Ranked{ID: id, Score: h.Score}
			}
			// best first, equal scores by id; the pool holds every
			// document that ties with its n-th
			hybrid.SortRanked(out)
			return out[:min(n, len(out))], nil
		}
	}
	return t.text(ctx, bleve.NewSearchRequestOptions(tq, n, 0, false))
}

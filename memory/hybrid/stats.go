package hybrid

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/search"
)

// BM25 length statistics. bleve derives BM25's average field length from
// its index layout: the number of distinct terms in each segment's
// dictionary, summed over the segments and divided by the live documents.
// That number changes with how the index was built (how many segments,
// which merges, deleted documents still in a segment), so the same memories
// could score differently in a store with a history than in one imported
// from its export. The embedded store therefore hands bleve fixed averages,
// chosen as the value bleve's own statistic settles at on conversational
// text (LoCoMo's turns: 1.4 to 2.1, which bleve rounds up to 2; 0.1 to 0.2
// for entity fields, rounded up to 1), so that ranking stays what it was
// measured to be while depending only on what is stored.
var averageLength = map[string]float64{
	FieldText:     2,
	FieldEntities: 1,
	// the kinds of a turn's nouns: as many words as its text, about;
	// not measured on its own
	FieldKinds: 2,
}

// averageLengthOther covers keyword, date and type fields: one term each.
const averageLengthOther = 1

// BM25Context returns ctx carrying BM25 statistics for an index of docs
// live documents: the live count (as bleve would use) and the fixed
// average lengths above, for every field a query may touch.
func BM25Context(ctx context.Context, docs uint64) context.Context {
	n := float64(docs)
	card := make(map[string]int, len(allFields))
	for _, f := range allFields {
		avg, ok := averageLength[f]
		if !ok {
			avg = averageLengthOther
		}
		card[f] = int(avg * n)
	}
	return context.WithValue(ctx, search.BM25StatsKey, &search.BM25Stats{DocCount: n, FieldCardinality: card})
}

// allFields is every field of a document, and the names bleve
// gives fields of its own searchers ("*" for an optimised disjunction of
// filter terms, "_id", "_all"): bleve refuses a search that touches a
// field its statistics do not list.
var allFields = []string{
	FieldNamespace, FieldSessionID, FieldSessionDate, FieldRole, FieldSpeaker,
	FieldText, FieldEntities, FieldKinds, FieldVector, FieldType,
	"*", "_id", "_all",
}

// SortRanked orders a ranking best first and equal scores by id, so that
// ties do not follow the index's internal document numbers.
func SortRanked(r []Ranked) {
	slices.SortStableFunc(r, func(a, b Ranked) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
	})
}

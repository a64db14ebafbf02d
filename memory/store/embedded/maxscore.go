package embedded

import (
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/scorer"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"agentmem/memory/hybrid"
)

// The text side with MaxScore: bleve's BM25 ranking of the shared query
// tree (hybrid.TextMatch), the same pool with the same scores, without
// scoring every document that holds a common word of the question.
//
// bleve evaluates a disjunction document at a time over the union of its
// words' postings, each posting scored and pushed through its searchers'
// heaps and the collector (about 100 ns a posting): a question's common
// words ("like", "time", "week") cost postings of tens of thousands of
// documents at 100k memories, though none of those documents can reach the
// pool on common words alone. This evaluation walks the index's segments
// itself (scorch's segment API, not a fork of bleve):
//
//   - MaxScore (Turtle and Flood 1995; Lucene's): each word has an upper
//     bound of what it can add to a score. Once the pool is full, the
//     words whose bounds together (with bleve's coordination factors)
//     cannot lift a document above the pool's lowest score are no longer
//     walked, only advanced to the documents that the other words, or an
//     entity phrase, bring up; a document whose walked words, with the
//     bounds of the others, cannot reach the pool is passed over, and the
//     others are advanced to it greatest bound first, the bound tightened
//     after each one that misses it.
//   - Every document that can enter the pool is scored in full, with
//     bleve's BM25 formula and its statistics (idf, query norm, average
//     lengths from hybrid.BM25Context), summed in bleve's order (its
//     disjunctions sort their searchers by postings count), so the scores
//     are bleve's, bit for bit up to ten words; with more, bleve sums in
//     the order of its heap and the last bits may differ
//     (TestMaxScoreRanksAsBleve; BenchmarkTextSide checks a 100k store).
//     Segments are walked in order and documents in number order within
//     each, as bleve's collector sees them, so equal scores keep bleve's
//     order.
//   - An entity phrase of one word is its term (bleve scores such a
//     phrase as the term); longer phrases and any other disjunct are run
//     by bleve's own searchers beforehand (with the query norm of the
//     whole tree) and are always walked.
//   - The filter (namespace, session, dates) is asked only about the
//     documents that would enter the pool.
//
// A word's bound: bleve's BM25 term score is
//
//	idf * tf*k1 / (tf + k1*(1-b+b*len/avg)) * boost*idf*queryNorm
//
// with tf the square root of the word's frequency in the field and len
// the field's length in tokens. A frequency is at most the length, so tf <=
// sqrt(len) = s and the middle factor is at most k1 / (1 + k1*(1-b)/s +
// k1*b*s/avg), largest at s = max(1, sqrt((1-b)*avg/b)) (TestMaxScoreBound).
//
// Only the shape hybrid.TextMatch builds is taken apart: a disjunction of
// match queries (an OR of the analysed words, no fuzziness) and other
// queries. Anything else runs in bleve, as does a store whose index is not
// scorch's.

// maxScoreTrace, when set (tests), gets the postings each evaluation
// walked (Next) and the postings of its words (what bleve walks).
var maxScoreTrace func(walked, postings int)

// textTop returns the best n documents of tq, the store's text query
// (textQuery: hybrid.TextMatch, alone or under a non-scoring filter), as
// search does: equal scores at the cut decided by id (MaxScore's pool
// keeps every document that ties with its lowest score, so one walk
// suffices where search asks bleve again for more).
func (t *textIndex) textTop(ctx context.Context, tq query.Query, n int) ([]hybrid.Ranked, error) {
	match, filter := tq, query.Query(nil)
	if bq, ok := tq.(*query.BooleanQuery); ok && bq.Should == nil && bq.MustNot == nil {
		match, filter = bq.Must, bq.Filter
		if cq, ok := match.(*query.ConjunctionQuery); ok && len(cq.Conjuncts) == 1 {
			match = cq.Conjuncts[0] // AddMust wraps its query in a conjunction
		}
	}
	if top, ok := match.(*query.DisjunctionQuery); ok && top.Min == 0 {
		out, ok, err := t.maxScore(ctx, top, filter, n)
		if err != nil {
			return nil, fmt.Errorf("text search: %w", err)
		}
		if ok {
			// best first, equal scores by id (hybrid.SortRanked); the
			// pool holds every document that ties with its n-th
			return out[:min(n, len(out))], nil
		}
	}
	return t.text(ctx, bleve.NewSearchRequestOptions(tq, n, 0, false))
}

// msLeaf is one word of a match query, or one other disjunct (found by
// bleve beforehand: ids and scores).
type msLeaf struct {
	child int
	term  bool
	// a word: its postings list in each segment, its iterator and
	// posting in the current one; idf, query weight and average length
	// as bleve's TermQueryScorer has them
	pls          []segment.PostingsList
	it           segment.PostingsIterator
	p            segment.Posting
	idf, qw, avg float64
	// another disjunct: its documents (global numbers) and their scores
	ids    []uint64
	scores []float64
	pos    int
	off    uint64 // the current segment's first global number

	id        uint64  // the current document's number in the segment; done when MaxUint64
	sc        float64 // its score, when scored at id
	scored    bool
	ub        float64
	essential bool
	count     uint64
	weight    float64
	walked    int
}

const msDone = math.MaxUint64

// score is the leaf's score of its current document, computed as
// scorer.TermQueryScorer.Score computes it.
func (l *msLeaf) score() float64 {
	if l.scored {
		return l.sc
	}
	l.sc, l.scored = l.compute(), true
	return l.sc
}

func (l *msLeaf) compute() float64 {
	if !l.term {
		return l.scores[l.pos]
	}
	freq := l.p.Frequency()
	var tf float64
	if freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[int(freq)]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	norm := l.p.Norm()
	fieldLength := 1 / (norm * norm)
	score := l.idf * (tf * search.BM25_k1) /
		(tf + search.BM25_k1*(1-search.BM25_b+(search.BM25_b*fieldLength/l.avg)))
	if l.qw != 1.0 {
		score = score * l.qw
	}
	return score
}

func (l *msLeaf) setPosting(p segment.Posting, err error) error {
	if err != nil {
		return err
	}
	l.p, l.id, l.scored = p, msDone, false
	if p != nil {
		l.id = p.Number()
	}
	return nil
}

func (l *msLeaf) setPos(end uint64) {
	l.id, l.scored = msDone, false
	if l.pos < len(l.ids) && l.ids[l.pos] < end {
		l.id = l.ids[l.pos] - l.off
	}
}

// start moves the leaf to segment i (global numbers [off, end)).
func (l *msLeaf) start(i int, off, end uint64) error {
	if !l.term {
		l.off = off
		for l.pos < len(l.ids) && l.ids[l.pos] < off {
			l.pos++
		}
		l.setPos(end)
		return nil
	}
	l.id = msDone
	if l.pls[i] == nil {
		return nil
	}
	l.it = l.pls[i].Iterator(true, true, false, l.it)
	return l.setPosting(l.it.Next())
}

// next moves the leaf past its current document.
func (l *msLeaf) next(end uint64) error {
	l.walked++
	if !l.term {
		l.pos++
		l.setPos(end)
		return nil
	}
	return l.setPosting(l.it.Next())
}

// advance moves the leaf to its first document at or after local.
func (l *msLeaf) advance(local, end uint64) error {
	if !l.term {
		for l.pos < len(l.ids) && l.ids[l.pos]-l.off < local {
			l.pos++
		}
		l.setPos(end)
		return nil
	}
	return l.setPosting(l.it.Advance(local))
}

// msChild is one disjunct of the top disjunction: a match query's words
// (total of them) or one other query.
type msChild struct {
	leaves []*msLeaf // in the order bleve sums them
	match  bool
	total  int
	count  uint64
	weight float64
}

// byCount and leavesByCount order searchers as bleve's disjunctions do
// (searcher.OrderedSearcherList: sort.Sort by postings count): sort.Sort
// on the same counts in the same order makes the same permutation.
type byCount []*msChild

func (c byCount) Len() int           { return len(c) }
func (c byCount) Less(i, j int) bool { return c[i].count < c[j].count }
func (c byCount) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }

type leavesByCount []*msLeaf

func (c leavesByCount) Len() int           { return len(c) }
func (c leavesByCount) Less(i, j int) bool { return c[i].count < c[j].count }
func (c leavesByCount) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }

// maxScore evaluates top (under filter, when not nil) with MaxScore; ok is
// false when top or the index has a shape it does not take apart (bleve
// runs it then).
func (t *textIndex) maxScore(ctx context.Context, top *query.DisjunctionQuery, filter query.Query, n int) (out []hybrid.Ranked, ok bool, err error) {
	im, isImpl := t.idx.Mapping().(*mapping.IndexMappingImpl)
	if !isImpl || im.ScoringModel != index.BM25Scoring || n <= 0 {
		return nil, false, nil
	}
	docs, err := t.idx.DocCount()
	if err != nil || docs == 0 {
		return nil, false, err
	}
	// the context bleve's searchers get from Index.SearchInContext
	ctx = hybrid.BM25Context(ctx, docs)
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
	stats, _ := ctx.Value(search.BM25StatsKey).(*search.BM25Stats)
	adv, err := t.idx.Advanced()
	if err != nil {
		return nil, false, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	snap, isSnap := r.(*scorch.IndexSnapshot)
	if !isSnap {
		return nil, false, nil
	}
	segs := snap.Segments()
	// a document's global number is its segment's offset (the documents,
	// deleted included, of the segments before it) plus its number there
	offsets := make([]uint64, len(segs)+1)
	for i, ss := range segs {
		offsets[i+1] = offsets[i] + ss.Segment().Count()
	}
	total := uint64(stats.DocCount)
	dicts := map[string][]segment.TermDictionary{}
	dictsOf := func(field string) ([]segment.TermDictionary, error) {
		if d, ok := dicts[field]; ok {
			return d, nil
		}
		d := make([]segment.TermDictionary, len(segs))
		for i, ss := range segs {
			var err error
			if d[i], err = ss.Segment().Dictionary(field); err != nil {
				return nil, err
			}
		}
		dicts[field] = d
		return d, nil
	}

	var children []*msChild
	var others []search.Searcher
	defer func() {
		for _, sr := range others {
			sr.Close()
		}
	}()
	opts := search.SearcherOptions{}
	// analyse is text analysed for field as a query on it is (the
	// query's analyzer or the field's), with the field's average length;
	// ok is false when either is unknown
	analyse := func(field, analyzerName, text string) (_ analysis.TokenStream, avg float64, ok bool) {
		if analyzerName == "" {
			analyzerName = im.AnalyzerNameForPath(field)
		}
		analyzer := im.AnalyzerNamed(analyzerName)
		card, known := stats.FieldCardinality[field]
		if analyzer == nil || !known || field == "" {
			return nil, 0, false
		}
		avg = math.Ceil(float64(card) / float64(total)) // as searcher.bm25ScoreMetrics
		return analyzer.Analyze([]byte(text)), avg, avg > 0
	}
	// word is a term query's leaf as searcher.NewTermSearcher makes it
	word := func(field string, term []byte, boost, avg float64) (*msLeaf, error) {
		fd, err := dictsOf(field)
		if err != nil {
			return nil, err
		}
		l := &msLeaf{term: true, avg: avg, pls: make([]segment.PostingsList, len(segs))}
		for i, ss := range segs {
			pl, err := fd[i].PostingsList(term, ss.Deleted(), nil)
			if err != nil {
				return nil, err
			}
			l.pls[i] = pl
			l.count += pl.Count()
		}
		// scorer.TermQueryScorer's idf and Weight
		l.idf = math.Log(1 + (float64(total)-float64(l.count)+0.5)/(float64(l.count)+0.5))
		w := boost * l.idf
		l.weight = w * w
		l.qw = boost * l.idf // times the query norm below
		return l, nil
	}
	for _, d := range top.Disjuncts {
		switch d := d.(type) {
		case *query.MatchQuery:
			// as bleve runs it (search/query/match.go): a disjunction
			// (min 1) of term queries, one per analysed token
			if d.Operator != query.MatchQueryOperatorOr || d.Fuzziness != 0 {
				return nil, false, nil
			}
			tokens, avg, ok := analyse(d.FieldVal, d.Analyzer, d.Match)
			if !ok {
				return nil, false, nil
			}
			c := &msChild{match: true}
			for _, tok := range tokens {
				l, err := word(d.FieldVal, tok.Term, d.BoostVal.Value(), avg)
				if err != nil {
					return nil, false, err
				}
				c.leaves = append(c.leaves, l)
			}
			if len(c.leaves) <= searcher.DisjunctionHeapTakeover {
				sort.Sort(leavesByCount(c.leaves))
			} // a heap disjunction sums in its heap's order: equal to the last bits
			for _, l := range c.leaves {
				c.count += l.count
				c.weight += l.weight
			}
			c.total = len(c.leaves)
			children = append(children, c)
			continue
		case *query.MatchPhraseQuery:
			// a phrase of one word (most entities) is its term query
			// (searcher.NewMultiPhraseSearcher: a conjunction of one term
			// searcher; every position matches a phrase of one)
			if d.Fuzziness != 0 {
				return nil, false, nil
			}
			tokens, avg, ok := analyse(d.FieldVal, d.Analyzer, d.MatchPhrase)
			if !ok {
				return nil, false, nil
			}
			if len(tokens) == 1 {
				l, err := word(d.FieldVal, tokens[0].Term, d.BoostVal.Value(), avg)
				if err != nil {
					return nil, false, err
				}
				children = append(children, &msChild{match: true, leaves: []*msLeaf{l}, total: 1, count: l.count, weight: 0 + l.weight})
				continue
			}
		}
		// anything else: bleve's searcher, run through beforehand
		sr, err := d.Searcher(ctx, r, im, opts)
		if err != nil {
			return nil, false, err
		}
		others = append(others, sr)
		c := &msChild{}
		if _, none := sr.(*searcher.MatchNoneSearcher); !none {
			c.leaves = []*msLeaf{{ub: math.Inf(1), count: sr.Count(), weight: sr.Weight()}}
			c.count, c.weight = sr.Count(), sr.Weight()
		}
		children = append(children, c)
	}
	otherOf := map[*msChild]search.Searcher{}
	{
		j := 0
		for _, c := range children {
			if !c.match {
				otherOf[c] = others[j]
				j++
			}
		}
	}
	if len(children) <= searcher.DisjunctionHeapTakeover {
		sort.Sort(byCount(children))
	}
	weight := 0.0
	for _, c := range children {
		weight += c.weight
	}
	qnorm := 1.0 / math.Sqrt(weight)
	if math.IsInf(qnorm, 0) || math.IsNaN(qnorm) {
		return nil, false, nil
	}
	var leaves, bounded []*msLeaf // bounded: the words, by bound, least first
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(16, 0), IndexReader: r}
	for ci, c := range children {
		if !c.match && len(c.leaves) == 1 {
			// another disjunct: all its documents and scores, with the
			// tree's query norm
			sr := otherOf[c]
			sr.SetQueryNorm(qnorm)
			l := c.leaves[0]
			for {
				dm, err := sr.Next(sctx)
				if err != nil {
					return nil, false, err
				}
				if dm == nil {
					break
				}
				if len(dm.IndexInternalID) != 8 {
					return nil, false, nil
				}
				l.ids = append(l.ids, binary.BigEndian.Uint64(dm.IndexInternalID))
				l.scores = append(l.scores, dm.Score)
				sctx.DocumentMatchPool.Put(dm)
			}
		}
		for _, l := range c.leaves {
			l.child = ci
			l.essential = true
			if l.term {
				l.qw = l.qw * qnorm
				l.ub = l.idf * termBound(l.avg) * l.qw * (1 + 1e-9) // and room for rounding
				bounded = append(bounded, l)
			}
			leaves = append(leaves, l)
		}
	}
	sort.SliceStable(bounded, func(i, j int) bool { return bounded[i].ub < bounded[j].ub })
	T := float64(len(children))

	var fs search.Searcher
	var ref *search.DocumentMatch
	if filter != nil {
		if fs, err = filter.Searcher(ctx, r, im, search.SearcherOptions{Score: "none"}); err != nil {
			return nil, false, err
		}
		defer fs.Close()
		if ref, err = fs.Next(sctx); err != nil {
			return nil, false, err
		}
	}

	pool := &msHeap{}
	sums := make([]float64, len(children))
	counts := make([]int, len(children))
	// bound is the most a document can score that matches at most the
	// words (their bounds or scores) and disjuncts in sums and counts
	bound := func() float64 {
		total, matched := 0.0, 0
		for i, c := range children {
			if counts[i] > 0 {
				if c.match {
					total += sums[i] * float64(min(counts[i], c.total)) / float64(c.total)
				} else {
					total += sums[i]
				}
				matched++
			}
		}
		return total * float64(matched) / T
	}
	nonEssential := 0 // bounded[:nonEssential] are not walked
	var ess, ne []*msLeaf
	neSums := make([]float64, len(children)) // their bounds, per child
	neCounts := make([]int, len(children))
	split := func() {
		ess = ess[:0]
		for _, l := range leaves {
			if l.essential {
				ess = append(ess, l)
			}
		}
		// the others, the least bound first
		ne = bounded[:nonEssential]
		clear(neSums)
		clear(neCounts)
		for _, l := range ne {
			neSums[l.child] += l.ub
			neCounts[l.child]++
		}
	}
	lastTheta := math.Inf(-1)
	split()
	var docBuf [8]byte
	doc := index.IndexInternalID(docBuf[:])
	for si := range segs {
		off, end := offsets[si], offsets[si+1]
		for _, l := range leaves {
			if err := l.start(si, off, end); err != nil {
				return nil, false, err
			}
		}
		for {
			// the next document an essential leaf brings up
			id := uint64(msDone)
			for _, l := range ess {
				id = min(id, l.id)
			}
			if id == msDone {
				break
			}
			global := off + id
			skip := false
			if len(pool.items) == n && len(ne) > 0 {
				// what it can score at most: what the essential leaves
				// found, and the bounds of the others; then the others,
				// the greatest bound first, each found or not, until it
				// cannot reach the pool or all are known
				theta := pool.items[0].score
				copy(sums, neSums)
				copy(counts, neCounts)
				for _, l := range ess {
					if l.id == id {
						sums[l.child] += l.score()
						counts[l.child]++
					}
				}
				skip = bound()*(1+1e-9) < theta
				for j := len(ne) - 1; j >= 0 && !skip; j-- {
					l := ne[j]
					if l.id < id {
						if err := l.advance(id, end); err != nil {
							return nil, false, err
						}
					}
					if l.id != id {
						sums[l.child] -= l.ub
						counts[l.child]--
						skip = bound()*(1+1e-9) < theta
					}
				}
			} else {
				for _, l := range ne {
					if l.id < id {
						if err := l.advance(id, end); err != nil {
							return nil, false, err
						}
					}
				}
			}
			if skip {
				for _, l := range ess {
					if l.id == id {
						if err := l.next(end); err != nil {
							return nil, false, err
						}
					}
				}
				continue
			}
			// the score as bleve's disjunctions compute it
			// (scorer.DisjunctionQueryScorer: the sum in their order,
			// times matched/total)
			sum, matched := 0.0, 0
			for _, c := range children {
				cs, m := 0.0, 0
				for _, l := range c.leaves {
					if l.id == id {
						cs += l.score()
						m++
					}
				}
				if m == 0 {
					continue
				}
				if c.match {
					coord := float64(m) / float64(c.total)
					cs = cs * coord
				}
				sum += cs
				matched++
			}
			coord := float64(matched) / T
			score := sum * coord
			if pool.takes(score, n) {
				// the filter, for a document that would enter the pool
				pass := true
				if fs != nil {
					binary.BigEndian.PutUint64(doc, global)
					if ref != nil && ref.IndexInternalID.Compare(doc) < 0 {
						sctx.DocumentMatchPool.Put(ref)
						if ref, err = fs.Advance(sctx, doc); err != nil {
							return nil, false, err
						}
					}
					pass = ref != nil && ref.IndexInternalID.Equals(doc)
				}
				if pass {
					pool.offer(score, global, n)
				}
			}
			for _, l := range leaves {
				if l.id == id {
					if err := l.next(end); err != nil {
						return nil, false, err
					}
				}
			}
			// a full pool: the words that cannot lift a document above
			// its lowest score are no longer walked
			if len(pool.items) == n && nonEssential < len(bounded) && pool.items[0].score > lastTheta {
				theta, moved := pool.items[0].score, false
				lastTheta = theta
				for nonEssential < len(bounded) {
					copy(sums, neSums)
					copy(counts, neCounts)
					l := bounded[nonEssential]
					sums[l.child] += l.ub
					counts[l.child]++
					if bound() >= theta {
						break
					}
					l.essential = false
					nonEssential++
					moved = true
					neSums[l.child] += l.ub
					neCounts[l.child]++
				}
				if moved {
					split()
				}
			}
		}
	}

	if maxScoreTrace != nil {
		walked, postings := 0, 0
		for _, l := range leaves {
			if l.term {
				walked += l.walked
				postings += int(l.count)
			}
		}
		maxScoreTrace(walked, postings)
	}
	kept := pool.all()
	out = make([]hybrid.Ranked, 0, len(kept))
	for _, it := range kept {
		binary.BigEndian.PutUint64(doc, it.id)
		ext, err := r.ExternalID(doc)
		if err != nil {
			return nil, false, err
		}
		_, id := splitKey(ext)
		out = append(out, hybrid.Ranked{ID: id, Score: it.score})
	}
	hybrid.SortRanked(out)
	return out, true, nil
}

// termBound is the most the middle factor of bleve's BM25 term score can
// be in a field of average length avg (see the comment at the top).
func termBound(avg float64) float64 {
	k1, b := search.BM25_k1, search.BM25_b
	s := max(1, math.Sqrt((1-b)*avg/b))
	return k1 / (1 + k1*(1-b)/s + k1*b*s/avg)
}

// msHeap is the pool: the best n documents so far, the worst on top, and
// the documents that tie with the worst (ties), so that equal scores at
// the cut can be decided by id once the walk is over: duplicated turns
// score the same, and bleve's internal order among them depends on how
// documents were batched and merged.
type msHeap struct {
	items []msItem
	ties  []msItem // score == items[0].score, not in items
}

type msItem struct {
	score float64
	id    uint64 // global document number
}

func (h *msHeap) Len() int { return len(h.items) }
func (h *msHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}
func (h *msHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *msHeap) Push(x any)    { h.items = append(h.items, x.(msItem)) }
func (h *msHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// takes tells whether a document of this score would enter the pool or
// tie with its worst.
func (h *msHeap) takes(score float64, n int) bool {
	return len(h.items) < n || score >= h.items[0].score
}

// offer adds a document to the pool if it is among the best n, or to the
// ties if it scores as the worst of them.
func (h *msHeap) offer(score float64, id uint64, n int) {
	if len(h.items) < n {
		heap.Push(h, msItem{score, id})
		return
	}
	worst := h.items[0]
	switch {
	case score < worst.score:
		return
	case score == worst.score:
		h.ties = append(h.ties, msItem{score, id})
		return
	}
	h.items[0] = msItem{score, id}
	heap.Fix(h, 0)
	if worst.score == h.items[0].score {
		h.ties = append(h.ties, worst)
	} else {
		h.ties = h.ties[:0] // they scored as the one that left
	}
}

// all is the pool and its ties.
func (h *msHeap) all() []msItem { return append(h.items, h.ties...) }

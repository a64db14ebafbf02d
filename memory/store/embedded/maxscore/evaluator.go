package maxscore

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"agentmem/memory/hybrid"
)

// Hit is a document of the pool: its id in the index and bleve's score.
type Hit struct {
	ID    string
	Score float64
}

// Result is what Search found: the pool (every document that ties with
// its n-th included, in no order), and the postings it walked against
// those of its words (what bleve walks).
type Result struct {
	Hits             []Hit
	Walked, Postings int
	Walkers          int // how many walked the segments (walk)
	Decoded          int // the words' postings lists (one a segment) kept decoded (decoded.go)
}

// evaluator is one evaluation of a disjunction over one index snapshot.
type evaluator struct {
	ctx     context.Context
	im      *mapping.IndexMappingImpl
	stats   *search.BM25Stats
	r       index.IndexReader
	segs    []*scorch.SegmentSnapshot
	offsets []uint64 // a segment's first global document number; the last is the total
	total   uint64   // live documents (BM25's document count)
	dicts   map[string][]segment.TermDictionary
	sctx    *search.SearchContext
	n       int

	children []*child
	others   []search.Searcher // bleve's searchers of the other disjuncts, in order
	leaves   []*leaf
	bounded  []*leaf // the words, by bound, least first
	t        float64 // how many children (bleve's coordination over them)
	invT     float64 // 1/t, for bounds

	// the filter, asked about the documents that would enter the pool
	filterQ query.Query
	filter  search.Searcher
	ref     *search.DocumentMatch
	doc     index.IndexInternalID
	// excluded are the global numbers of the documents that never enter
	// the pool (Search's exclude: a session's few), read once up front;
	// unlike a filter, they leave the priming walk on
	excluded map[uint64]bool

	pool    *pool
	shared  *threshold // the walkers' (team), nil with one
	outside float64    // shared as last seen (share)
	walkers int
	// sums and counts are a document's matched scores (or bounds) and
	// leaves per child, for bound; neSums and neCounts those of the leaves
	// not walked
	sums, neSums     []float64
	counts, neCounts []int
	nonEssential     int     // bounded[:nonEssential] are not walked
	walked, notWalk  []*leaf // the essential leaves, and bounded[:nonEssential]
	lastTheta        float64 // the pool's lowest score at the last demote
	// windowBounds: some word's bound is its window's (enterWindow), not
	// the whole index's
	windowBounds bool
	// floor is at most the pool's final lowest score (prime); 0: unknown
	floor  float64
	primed int   // the postings prime walked
	bulk   *bulk // bulkWindow's buffers, made at its first window
}

// Search evaluates top (under filter, when not nil, and without the
// documents exclude matches, when not nil: a must-not clause of few
// documents) on idx with MaxScore for the best n documents; ok is false
// when top or the index has a shape it does not take apart (run it in
// bleve then).
func Search(ctx context.Context, idx bleve.Index, top *query.DisjunctionQuery, filter, exclude query.Query, n int) (res Result, ok bool, err error) {
	im, isImpl := idx.Mapping().(*mapping.IndexMappingImpl)
	if !isImpl || im.ScoringModel != index.BM25Scoring || n <= 0 || top.Min != 0 {
		return res, false, nil
	}
	docs, err := idx.DocCount()
	if err != nil || docs == 0 {
		return res, false, err
	}
	adv, err := idx.Advanced()
	if err != nil {
		return res, false, err
	}
	r, err := adv.Reader()
	if err != nil {
		return res, false, err
	}
	defer r.Close()
	snap, isSnap := r.(*scorch.IndexSnapshot)
	if !isSnap {
		return res, false, nil
	}
	e := newEvaluator(ctx, im, r, snap, docs, n)
	defer e.close()
	if filter, err = e.exclude(exclude, filter); err != nil {
		return res, false, err
	}
	if ok, err := e.plan(top, filter); !ok || err != nil {
		return res, false, err
	}
	t, err := e.team()
	defer t.close()
	if err != nil {
		return res, false, err
	}
	if Prime {
		if err := e.prime(t); err != nil {
			return res, false, err
		}
		for _, w := range t.ws {
			w.demote()
		}
	}
	if err := t.each(func(_ int, w *evaluator, p part) error { return w.walkPart(p.seg, p.lo, p.hi) }); err != nil {
		return res, false, err
	}
	t.merge()
	return e.result()
}

// What tests and benchmarks turn to compare the evaluation's parts; each
// setting gives the same pool with the same scores.
var (
	// Prime turns the priming walk (prime) on. Off by default: with
	// window bounds, the walk saves more without it (EVALS.md, "Window
	// bounds for the text side").
	Prime = false
	// MemoPostings is the fewest postings of a word for which it keeps
	// the scores it computes (leaf.memo).
	MemoPostings uint64 = 2048
	// Probe advances the words not walked by their documents only
	// (leaf.probe).
	Probe = true
	// Windows bounds the words per window of documents (windows.go).
	Windows = true
	// Bulk walks the documents a window of BulkDocs at a time (bulk.go).
	Bulk = true
)

func newEvaluator(ctx context.Context, im *mapping.IndexMappingImpl, r index.IndexReader, snap *scorch.IndexSnapshot, docs uint64, n int) *evaluator {
	// the context bleve's searchers get from Index.SearchInContext
	ctx = hybrid.BM25Context(ctx, docs)
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
	stats, _ := ctx.Value(search.BM25StatsKey).(*search.BM25Stats)
	e := &evaluator{ctx: ctx, im: im, stats: stats, r: r, segs: snap.Segments(), n: n,
		dicts: map[string][]segment.TermDictionary{}, pool: &pool{}, lastTheta: math.Inf(-1),
		sctx: &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(16, 0), IndexReader: r}}
	// a document's global number is its segment's offset (the documents,
	// deleted included, of the segments before it) plus its number there
	e.offsets = make([]uint64, len(e.segs)+1)
	for i, ss := range e.segs {
		e.offsets[i+1] = e.offsets[i] + ss.Segment().Count()
	}
	e.total = uint64(stats.DocCount)
	e.doc = make(index.IndexInternalID, 8)
	return e
}

func (e *evaluator) close() {
	e.release()
	for _, sr := range e.others {
		sr.Close()
	}
	if e.filter != nil {
		e.filter.Close()
	}
}

// plan takes top apart into children and leaves, computes the query norm
// and each word's bound, and opens the filter; ok is false when top has a
// shape MaxScore does not evaluate.
func (e *evaluator) plan(top *query.DisjunctionQuery, filter query.Query) (ok bool, err error) {
	for _, d := range top.Disjuncts {
		if ok, err := e.planDisjunct(d); !ok || err != nil {
			return false, err
		}
	}
	otherOf := map[*child]search.Searcher{}
	j := 0
	for _, c := range e.children {
		if !c.match {
			otherOf[c] = e.others[j]
			j++
		}
	}
	// searchers by postings count, as bleve's disjunctions order them
	// (searcher.OrderedSearcherList, by sort.Sort): slices.SortFunc runs the
	// same generated pdqsort, so the same counts in the same order make the
	// same permutation
	if len(e.children) <= searcher.DisjunctionHeapTakeover {
		slices.SortFunc(e.children, func(a, b *child) int { return cmp.Compare(a.count, b.count) })
	}
	weight := 0.0
	for _, c := range e.children {
		weight += c.weight
	}
	qnorm := 1.0 / math.Sqrt(weight)
	if math.IsInf(qnorm, 0) || math.IsNaN(qnorm) {
		return false, nil
	}
	if ok, err := e.planLeaves(otherOf, qnorm); !ok || err != nil {
		return false, err
	}
	e.sortBounded()
	e.t = float64(len(e.children))
	e.invT = 1 / e.t
	for _, c := range e.children {
		if c.total > 0 {
			c.inv = 1 / float64(c.total)
		}
	}
	e.sums, e.neSums = make([]float64, len(e.children)), make([]float64, len(e.children))
	e.counts, e.neCounts = make([]int, len(e.children)), make([]int, len(e.children))
	e.splitEssential()
	e.filterQ = filter
	return true, e.openFilter()
}

// MaxExcluded is the most documents Search's exclude reads up front;
// beyond, they are left out through the filter (a must-not clause, asked
// about each document that would enter the pool): reading a session of
// 90,000 turns cost 22 ms and 4.8 MB a query, where the filter cost 6 ms.
var MaxExcluded = 4096

// exclude reads the documents q matches into excluded, and returns filter
// as it was; when they are more than MaxExcluded, it returns filter with
// q as a must-not clause instead. Nothing when q is nil.
func (e *evaluator) exclude(q, filter query.Query) (query.Query, error) {
	if q == nil {
		return filter, nil
	}
	s, err := q.Searcher(e.ctx, e.r, e.im, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if s.Count() > uint64(MaxExcluded) {
		bq := bleve.NewBooleanQuery()
		if filter != nil {
			bq.AddMust(filter)
		}
		bq.AddMustNot(q)
		return bq, nil
	}
	e.excluded = map[uint64]bool{}
	sctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(1, 0), IndexReader: e.r}
	for {
		m, err := s.Next(sctx)
		if err != nil || m == nil {
			return filter, err
		}
		e.excluded[binary.BigEndian.Uint64(m.IndexInternalID)] = true
		sctx.DocumentMatchPool.Put(m)
	}
}

// openFilter opens the filter's searcher, when there is a filter.
func (e *evaluator) openFilter() (err error) {
	if e.filterQ == nil {
		return nil
	}
	if e.filter, err = e.filterQ.Searcher(e.ctx, e.r, e.im, search.SearcherOptions{Score: "none"}); err != nil {
		return err
	}
	e.ref, err = e.filter.Next(e.sctx)
	return err
}

// planDisjunct adds a child for d: its words, or bleve's searcher of it.
func (e *evaluator) planDisjunct(d query.Query) (ok bool, err error) {
	switch d := d.(type) {
	case *query.MatchQuery:
		// as bleve runs it (search/query/match.go): a disjunction
		// (min 1) of term queries, one per analysed token
		if d.Operator != query.MatchQueryOperatorOr || d.Fuzziness != 0 {
			return false, nil
		}
		return e.planMatch(d)
	case *query.MatchPhraseQuery:
		// a phrase of one word (most entities) is its term query
		// (searcher.NewMultiPhraseSearcher: a conjunction of one term
		// searcher; every position matches a phrase of one)
		if d.Fuzziness != 0 {
			return false, nil
		}
		tokens, avg, ok := e.analyse(d.FieldVal, d.Analyzer, d.MatchPhrase)
		if !ok {
			return false, nil
		}
		if len(tokens) == 1 {
			l, err := e.word(d.FieldVal, tokens[0].Term, d.BoostVal.Value(), avg)
			if err != nil {
				return false, err
			}
			e.children = append(e.children, &child{match: true, leaves: []*leaf{l}, total: 1, count: l.count, weight: 0 + l.weight})
			return true, nil
		}
	}
	// anything else: bleve's searcher, run through beforehand
	sr, err := d.Searcher(e.ctx, e.r, e.im, search.SearcherOptions{})
	if err != nil {
		return false, err
	}
	e.others = append(e.others, sr)
	c := &child{}
	if _, none := sr.(*searcher.MatchNoneSearcher); !none {
		c.leaves = []*leaf{{ub: math.Inf(1), count: sr.Count(), weight: sr.Weight()}}
		c.count, c.weight = sr.Count(), sr.Weight()
	}
	e.children = append(e.children, c)
	return true, nil
}

// planMatch adds the child of a match query: a leaf per analysed word,
// in the order bleve sums them.
func (e *evaluator) planMatch(d *query.MatchQuery) (ok bool, err error) {
	tokens, avg, ok := e.analyse(d.FieldVal, d.Analyzer, d.Match)
	if !ok {
		return false, nil
	}
	c := &child{match: true}
	for _, tok := range tokens {
		l, err := e.word(d.FieldVal, tok.Term, d.BoostVal.Value(), avg)
		if err != nil {
			return false, err
		}
		c.leaves = append(c.leaves, l)
	}
	if len(c.leaves) <= searcher.DisjunctionHeapTakeover {
		slices.SortFunc(c.leaves, func(a, b *leaf) int { return cmp.Compare(a.count, b.count) }) // as the children above
	} // a heap disjunction sums in its heap's order: equal to the last bits
	for _, l := range c.leaves {
		c.count += l.count
		c.weight += l.weight
	}
	c.total = len(c.leaves)
	e.children = append(e.children, c)
	return true, nil
}

// planLeaves gives each leaf its child and the query norm, a word its
// bound, and another disjunct all its documents and scores (found by its
// searcher with the tree's query norm).
func (e *evaluator) planLeaves(otherOf map[*child]search.Searcher, qnorm float64) (ok bool, err error) {
	for ci, c := range e.children {
		if !c.match && len(c.leaves) == 1 {
			if ok, err := e.collectOther(otherOf[c], c.leaves[0], qnorm); !ok || err != nil {
				return false, err
			}
		}
		for _, l := range c.leaves {
			l.child = ci
			l.index = len(e.leaves)
			l.essential = true
			if l.term {
				l.qw = l.qw * qnorm
				l.ub = l.bound(termBound(l.avg))
				l.gub = l.ub
				e.bounded = append(e.bounded, l)
			}
			e.leaves = append(e.leaves, l)
		}
	}
	return true, nil
}

// sortBounded orders the words by bound, least first.
func (e *evaluator) sortBounded() {
	slices.SortStableFunc(e.bounded, func(a, b *leaf) int { return cmp.Compare(a.ub, b.ub) })
}

// collectOther runs sr to its end into l.
func (e *evaluator) collectOther(sr search.Searcher, l *leaf, qnorm float64) (ok bool, err error) {
	sr.SetQueryNorm(qnorm)
	for {
		dm, err := sr.Next(e.sctx)
		if err != nil {
			return false, err
		}
		if dm == nil {
			return true, nil
		}
		if len(dm.IndexInternalID) != 8 {
			return false, nil
		}
		l.ids = append(l.ids, binary.BigEndian.Uint64(dm.IndexInternalID))
		l.scores = append(l.scores, dm.Score)
		e.sctx.DocumentMatchPool.Put(dm)
	}
}

// analyse is text analysed for field as a query on it is (the query's
// analyzer or the field's), with the field's average length; ok is false
// when either is unknown.
func (e *evaluator) analyse(field, analyzerName, text string) (_ analysis.TokenStream, avg float64, ok bool) {
	if analyzerName == "" {
		analyzerName = e.im.AnalyzerNameForPath(field)
	}
	analyzer := e.im.AnalyzerNamed(analyzerName)
	card, known := e.stats.FieldCardinality[field]
	if analyzer == nil || !known || field == "" {
		return nil, 0, false
	}
	avg = math.Ceil(float64(card) / float64(e.total)) // as searcher.bm25ScoreMetrics
	return analyzer.Analyze([]byte(text)), avg, avg > 0
}

// word is a term query's leaf as searcher.NewTermSearcher makes it.
func (e *evaluator) word(field string, term []byte, boost, avg float64) (*leaf, error) {
	fd, err := e.dictionaries(field)
	if err != nil {
		return nil, err
	}
	l := &leaf{term: true, avg: avg, pls: make([]segment.PostingsList, len(e.segs)), seg: -1, probeSeg: -1}
	for i, ss := range e.segs {
		pl, err := fd[i].PostingsList(term, ss.Deleted(), nil)
		if err != nil {
			return nil, err
		}
		l.pls[i] = pl
		l.count += pl.Count()
		d, err := decodedOf(ss.Segment(), field, term, pl.Count())
		if err != nil {
			return nil, err
		}
		if d != nil {
			l.pls[i] = newDecodedList(pl, d, ss.Deleted())
		}
	}
	if Windows {
		if err := e.windowsOf(l, field, term); err != nil {
			return nil, err
		}
	}
	l.memoize = l.count >= MemoPostings
	// scorer.TermQueryScorer's idf and Weight
	l.idf = math.Log(1 + (float64(e.total)-float64(l.count)+0.5)/(float64(l.count)+0.5))
	w := boost * l.idf
	l.weight = w * w
	l.qw = boost * l.idf // times the query norm (planLeaves)
	return l, nil
}

// dictionaries is field's term dictionary in each segment.
func (e *evaluator) dictionaries(field string) ([]segment.TermDictionary, error) {
	if d, ok := e.dicts[field]; ok {
		return d, nil
	}
	d := make([]segment.TermDictionary, len(e.segs))
	for i, ss := range e.segs {
		var err error
		if d[i], err = ss.Segment().Dictionary(field); err != nil {
			return nil, err
		}
	}
	e.dicts[field] = d
	return d, nil
}

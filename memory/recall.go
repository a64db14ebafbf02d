package memory

import (
	"agentmem/memory/dates"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// RecallRequest asks for the memories that best answer a query.
type RecallRequest struct {
	Query     string
	K         int // 1 to MaxK; 0 takes one from the history's size (AutoK)
	Namespace string
	SessionID string
	// ExcludeSession leaves out the memories of one session (its id, or
	// the start of a UUID id as SessionID takes it): the conversation a
	// model is in, whose turns it already has.
	ExcludeSession string
	// After and Before bound session dates, inclusive. A date without a time
	// covers its whole day. Memories dated after the question are not
	// filtered unless Before says so: hard-filtering them hurts recall.
	After, Before string
	Order         Order  // "" means ByRelevance
	Fusion        Fusion // "" means the service default
	Pool          int    // candidates per side; 0 means DefaultPool(K)
	Weights       *Weights
	// Context is how many neighbouring turns (0 to MaxContext) come with
	// each hit, on each side, in its session's one passage.
	Context int
	// MaxTokens bounds the returned text (estimated as rendered); 0 means
	// no bound. A hit (with its context) that would pass it is left out and
	// the next ones are still tried; the best is always kept, as an excerpt
	// that fits (its context turns too) when it alone is longer. With
	// Excerpt, what the hits leave of it shows the best WidenHits excerpts
	// longer.
	MaxTokens int
	// Excerpt, when not 0, shows a memory longer than about that many
	// tokens as its part that best matches the query.
	Excerpt int
	// Fill, with Excerpt, returns as many memories as fit in the tokens
	// the best n would take shown whole (n from Budget: K, or read from
	// the chances; or in MaxTokens), and what they leave shows the best
	// WidenHits excerpts longer.
	Fill bool
	// Reranker says whether the service's reranker orders the candidates:
	// nil means whenever the service has one; true when it has none is an
	// error.
	Reranker *bool
	// Explain returns every fused candidate with what the learned order
	// read of it (RecallResult.Candidates); the recall is otherwise the
	// same.
	Explain bool
	// Ranks says the caller reads each hit's rank on each side (a
	// structured result; the hooks' relevance floor asks for a text
	// rank): a store that fuses the sides on its server, which reports
	// no side's rank, runs them apart instead (see Query.Ranks).
	Ranks bool
	// Budget says how a recall that fills sets its space: "" or ByChance
	// by the learned order's chances, ByK by the best K (see Budget).
	Budget Budget
}

// Budget is how a recall that fills (Fill) sets its space: what its best
// n memories take shown whole, n being K or read from the chances.
type Budget string

const (
	// ByChance, the default, sets n by the learned order's chances where
	// it ranked the candidates alone (weights.learned 1): the candidates
	// at least ChanceFloor as likely to be evidence as the best, and
	// between ChanceFewest and ChanceMost times K of them. A question
	// that one memory answers shows fewer memories than K; one whose
	// answer is spread over many shows more. Elsewhere n is K.
	ByChance Budget = "chance"
	// ByK sets n to K.
	ByK Budget = "k"
)

// The chance budget's constants, measured on the dev sets (EVALS.md,
// "The budget read from the chances"; the floor was 0.06 until the
// floor under a question that asks for several things, "A question that
// asks for several things", then 0.066 until a question that names a
// period searched deeper, "A question that names a period searches
// deeper").
const (
	ChanceFloor  = 0.068
	ChanceFewest = 0.3
	ChanceMost   = 3
)

// DefaultExcerpt is the excerpt length (in tokens, about) the tools use
// when a recall names none: long memories shown as their best-matching
// part, and the space saved filled with more memories (see Fill). Chosen
// by measurement on LoCoMo and LongMemEval (EVALS.md, "Recall defaults").
const DefaultExcerpt = 40

// FillCandidates bounds the candidates a recall that fills examines, in
// multiples of k: where the best k are long (LongMemEval), the fill is
// bounded by its candidates rather than its tokens, and the whole fused
// pool would spend the budget on ever less relevant memories (measured:
// EVALS.md, "Recall defaults").
const FillCandidates = 4

// DefaultK suits a history of about fifty sessions; about 20 suits five
// hundred. A recall that names no k takes one from the history's size
// (AutoK).
const DefaultK = 10

// RecallResult is what a recall found, in the requested order: the hits,
// and the passages they are returned in (each hit with its context), and
// the periods the query named, which weighed the ranking.
type RecallResult struct {
	Namespace string
	// K is the recall's k: the one asked for, or AutoK's.
	K        int
	Hits     []Hit
	Passages []Passage
	Periods  []Period
	// TimeBoost is the weight the periods had (0: none).
	TimeBoost float64
	// Pending counts the namespace's memories whose vectors are still being
	// made in the background: until then only their text can find them.
	// PendingError is why the last attempt to make them failed, while it
	// does (a full disk, an embedder that does not answer): they are tried
	// again, later.
	Pending      int
	PendingError string
	// Reranker names the reranker that ordered the hits ("": none did).
	// RerankError says why the one configured did not: the fused order
	// stands (a recall never fails for its reranker, unless the caller gave
	// up).
	Reranker    string
	RerankError string
	// Candidates, with RecallRequest.Explain, are every candidate of the
	// fused pool (both sides' pools, up to twice the pool, and what a
	// period's deeper search kept: Query.Depth), best first by
	// the ranking before any reranker, each with its Features.
	Candidates []Hit
	// Digest says the query named only periods, and the hits are a digest
	// of their sessions, not a search's (see asksOnlyOfPeriods); Sessions
	// is then how many sessions are dated in them (see DigestNote).
	Digest   bool
	Sessions int
}

// Text renders the result for a prompt (see Text).
func (r RecallResult) Text() string { return Text(r.Passages) }

// Recall runs one hybrid search: BM25 over the text, a match on the
// query's entities and, with an embedder, vector similarity, fused.
func (s *Service) Recall(ctx context.Context, req RecallRequest) (RecallResult, error) {
	q, order, err := s.query(ctx, req)
	if err != nil {
		return RecallResult{}, err
	}
	req.K = q.K // the one asked for, or the history's (autoK)
	if q.Weights.OrDefault().Time > 0 && asksOnlyOfPeriods(q.Text, q.Periods, s.Now()) {
		if res, ok, err := s.digest(ctx, q, req, order); ok || err != nil {
			return res, err
		}
	}
	reranked, err := s.useReranker(req)
	if err != nil {
		return RecallResult{}, err
	}
	if err := s.embedQuery(ctx, &q); err != nil {
		return RecallResult{}, err
	}
	rerankN := s.candidates(&q, req, reranked)
	// with explain, the store returns every candidate of the same pools
	// (hybrid.Rank), the recall working on its first q.K as without
	q.Explain, q.Ranks = req.Explain, req.Ranks
	if reranked {
		// the reranker orders the fused candidates, as it was measured
		// to (EVALS.md, "A reranker endpoint")
		q.Weights.Learned = -1
	}
	// counted before the search: a memory not counted had its vectors
	// before the search began, so a result that says none are pending
	// never lacks a vector hit for want of its vectors
	pending, err := s.pending(ctx, q.Namespace)
	if err != nil {
		return RecallResult{}, fmt.Errorf("counting the memories waiting for vectors: %w", err)
	}
	hits, err := s.store.Search(ctx, q)
	if err != nil {
		return RecallResult{}, fmt.Errorf("searching namespace %s: %w", q.Namespace, err)
	}
	var res RecallResult
	want := queryWords(q.Text) // the reranker's excerpts and the passages'
	if hits, err = s.recallHits(ctx, &q, req, hits, want, rerankN, reranked, &res); err != nil {
		return RecallResult{}, err
	}
	turns, err := s.withContext(ctx, hits, req.Context)
	if err != nil {
		return RecallResult{}, err
	}
	ps := s.recallPassages(ctx, &q, req, hits, turns, want, order)
	hits = returnedHits(hits, ps, order)
	res.Namespace, res.K, res.Hits, res.Passages, res.Periods = q.Namespace, req.K, hits, ps, q.Periods
	res.Pending = pending
	if err := s.filler.failure(); err != nil && pending > 0 {
		res.PendingError = err.Error()
	}
	if w := q.Weights.OrDefault(); w.Time > 0 && len(q.Periods) > 0 {
		res.TimeBoost = w.Time
	}
	return res, nil
}

// embedQuery sets q's vector from the embedder, where the service has
// one and q's fusion reads vectors.
func (s *Service) embedQuery(ctx context.Context, q *Query) error {
	if s.embedder == nil || q.Fusion == TextOnly {
		return nil
	}
	vs, err := s.embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return fmt.Errorf("embedding the query with %s: %w", s.embedder.ID(), err)
	}
	if len(vs) != 1 {
		return fmt.Errorf("embedder %s returned %d vectors for one query", s.embedder.ID(), len(vs))
	}
	q.Vector = vs[0]
	return nil
}

// recallHits cuts the store's hits to the recall's: with explain, every
// candidate kept in res and the first q.K of them; with the reranker,
// its order of the first rerankN (and in a fill, at most FillCandidates
// times k); without a fill, the best k.
func (s *Service) recallHits(ctx context.Context, q *Query, req RecallRequest, hits []Hit, want *stems, rerankN int, reranked bool, res *RecallResult) ([]Hit, error) {
	if req.Explain {
		res.Candidates = slices.Clone(hits)
		hits = hits[:min(len(hits), q.K)]
	}
	fill := req.Fill && req.Excerpt > 0
	if reranked {
		// the reranked candidates are the recall's: every hit returned
		// was read by the reranker
		var err error
		if hits, err = s.reranked(ctx, q.Text, want, hits[:min(len(hits), rerankN)], res); err != nil {
			return nil, err
		}
		if fill {
			hits = hits[:min(len(hits), FillCandidates*req.K)]
		}
	}
	if !fill && len(hits) > req.K {
		hits = hits[:req.K]
	}
	return hits, nil
}

// recallPassages are the hits' passages (each hit with its turns of
// context) within the request's budget: chosen by relevance, then
// arranged as order asks.
func (s *Service) recallPassages(ctx context.Context, q *Query, req RecallRequest, hits []Hit, turns [][]Memory, want *stems, order Order) []Passage {
	// with fill: the space the best n take shown whole, filled with
	// excerpts; by chance, where the learned order scored the hits, at
	// least k excerpts' for a question that asks for several things
	fillK, least := 0, 0
	if req.Fill && req.Excerpt > 0 {
		byChance := req.Budget != ByK && q.Weights.OrDefault().Learned >= 1
		fillK = fillCount(hits, req.K, byChance)
		if byChance && learnedScored(hits) && asksForSeveral(q.Text) {
			least = req.K * (req.Excerpt + SeveralHeader)
		}
		hits, turns = newSessionsFirst(hits, turns, req.K) // breadth.go
	}
	ps := s.passages(ctx, q.Namespace, hits, turns, req.MaxTokens, fillK, least, req.Excerpt, want, order)
	// chosen by relevance, then arranged as asked
	arrange(ps, order, func(p Passage) Memory { return p.Memories[0] })
	return ps
}

// returnedHits are the hits that the passages ps show as hits (the ones
// the budget left out are not returned), arranged as order asks.
func returnedHits(hits []Hit, ps []Passage, order Order) []Hit {
	kept := map[string]bool{}
	for _, p := range ps {
		for i, m := range p.Memories {
			if p.Hit[i] {
				kept[m.ID] = true
			}
		}
	}
	hits = slices.DeleteFunc(hits, func(h Hit) bool { return !kept[h.Memory.ID] })
	arrange(hits, order, func(h Hit) Memory { return h.Memory })
	return hits
}

// fillCount is the n of a recall that fills: k or, byChance, the hits
// at least ChanceFloor as likely as the best, between ChanceFewest·k and
// ChanceMost·k of them, where the learned order scored the hits (their
// Prior is set: their Score is the model's chance); never more than the
// hits.
func fillCount(hits []Hit, k int, byChance bool) int {
	if !byChance || !learnedScored(hits) {
		return min(k, len(hits))
	}
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Score)
	}
	n := 0
	for _, h := range hits {
		if h.Score >= ChanceFloor*best {
			n++
		}
	}
	n = max(n, int(math.Round(ChanceFewest*float64(k))), 1)
	return min(n, ChanceMost*k, len(hits))
}

// candidates sets how many fused candidates q asks the store for: k, or
// the candidates of a fill or of the reranker, from the same fused pool;
// it returns how many of them the reranker orders (0: none).
func (s *Service) candidates(q *Query, req RecallRequest, reranked bool) int {
	if req.Fill && req.Excerpt > 0 {
		// candidates to fill the space excerpts save: the fused pool the
		// best k come from (up to its two sides' candidates, and at most
		// FillCandidates times k), never a deeper one, which would rank the
		// best k otherwise
		q.Pool = q.PoolSize()
		q.K = min(2*q.Pool, FillCandidates*q.K, MaxK)
	}
	if !reranked {
		return 0
	}
	n := s.rerankCandidates(req.K)
	q.Pool = q.PoolSize()
	q.K = max(q.K, min(2*q.Pool, n))
	return n
}

// query reads req into the store's Query, and the order its results
// are arranged in; a request out of bounds is a FieldError.
func (s *Service) query(ctx context.Context, req RecallRequest) (Query, Order, error) {
	text := strings.TrimSpace(req.Query)
	if err := checkRecallBounds(text, req); err != nil {
		return Query{}, "", err
	}
	ns, err := s.ns(ctx, req.Namespace, false)
	if err != nil {
		return Query{}, "", err
	}
	session, exclude, err := s.recallSessions(ctx, ns, req)
	if err != nil {
		return Query{}, "", err
	}
	order, fusion, err := s.recallMode(req)
	if err != nil {
		return Query{}, "", err
	}
	k := req.K // 0: the history's, now the request is read (autoK)
	if k == 0 {
		k = s.autoK(ctx, ns, session)
	}
	q := Query{
		Namespace:      ns,
		Text:           text,
		SessionID:      session,
		K:              k,
		ExcludeSession: exclude,
		Pool:           req.Pool,
		Fusion:         fusion,
		Weights:        s.weights,
	}
	if q.Pool > 0 {
		q.Pool = max(q.Pool, k) // never fewer candidates per side than k
	}
	if req.Weights != nil {
		q.Weights = *req.Weights
	}
	q.Periods = s.queryPeriods(text)
	if err := s.queryBounds(&q, req); err != nil {
		return Query{}, "", err
	}
	return q, order, nil
}

// checkRecallBounds checks the query text (trimmed) and the request's
// numbers and budget, in that order.
func checkRecallBounds(text string, req RecallRequest) error {
	if text == "" {
		return &FieldError{"query", "must not be empty"}
	}
	if n := utf8.RuneCountInString(text); n > MaxQueryChars {
		return &FieldError{"query", fmt.Sprintf("is %d characters; the limit is %d", n, MaxQueryChars)}
	}
	if k := req.K; k < 0 || k > MaxK { // 0: the history's (autoK)
		return &FieldError{"k", fmt.Sprintf("must be between 1 and %d, got %d", MaxK, k)}
	}
	if req.Context < 0 || req.Context > MaxContext {
		return &FieldError{"context", fmt.Sprintf("must be between 0 and %d, got %d", MaxContext, req.Context)}
	}
	if req.Excerpt < 0 || req.Excerpt > MaxTokens {
		return &FieldError{"excerpt", fmt.Sprintf("must be between 0 and %d, got %d", MaxTokens, req.Excerpt)}
	}
	if req.MaxTokens < 0 || req.MaxTokens > MaxTokens {
		return &FieldError{"max_tokens", fmt.Sprintf("must be between 1 and %d, got %d", MaxTokens, req.MaxTokens)}
	}
	if req.Budget != "" && req.Budget != ByChance && req.Budget != ByK {
		return &FieldError{"budget", fmt.Sprintf("must be chance or k, got %q", req.Budget)}
	}
	if req.Pool < 0 || req.Pool > MaxPool { // 0: DefaultPool
		return &FieldError{"pool", fmt.Sprintf("must be between 1 and %d, got %d", MaxPool, req.Pool)}
	}
	return nil
}

// recallMode reads req's order and fusion (the service's by default) and
// checks its weights.
func (s *Service) recallMode(req RecallRequest) (Order, Fusion, error) {
	order := cmp.Or(req.Order, ByRelevance)
	if !slices.Contains([]Order{ByRelevance, Chronological, Recency}, order) {
		return "", "", &FieldError{"order", fmt.Sprintf("must be relevance, chronological or recency, got %q", order)}
	}
	fusion := cmp.Or(req.Fusion, s.fusion)
	if err := validFusion(fusion); err != nil {
		return "", "", err
	}
	if s.embedder == nil && (fusion == VectorOnly || fusion == Rerank) {
		return "", "", &FieldError{"fusion", fmt.Sprintf("%q needs vectors, and this server runs without an embedder (--embedder none)", fusion)}
	}
	if req.Weights != nil {
		if err := validWeights(*req.Weights); err != nil {
			return "", "", err
		}
	}
	return order, fusion, nil
}

// queryPeriods are the periods that the query text names (dates.Find,
// from now), which weigh the ranking. A count of units from now is read
// as about that long (dates.Options.About): "two weeks ago" also weighs
// the days within half a week of exactly two weeks ago. A period named
// twice is one ("last week … and last week"), the first naming it.
func (s *Service) queryPeriods(text string) []Period {
	var ps []Period
	for _, m := range dates.FindWith(text, dates.Options{Ref: s.Now(), About: true, Recent: true}) {
		same := func(p Period) bool { return p.From.Equal(m.From) && p.To.Equal(m.To) }
		if !m.From.IsZero() && !slices.ContainsFunc(ps, same) {
			ps = append(ps, Period{Text: text[m.Start:m.End], From: m.From, To: m.To, Back: m.Back})
		}
	}
	return ps
}

// queryBounds sets q's after and before bounds from req (bounds).
func (s *Service) queryBounds(q *Query, req RecallRequest) (err error) {
	q.After, q.Before, err = s.bounds(req.After, req.Before)
	return err
}

// bounds reads the after and before arguments (bound); before must not be
// earlier than after.
func (s *Service) bounds(after, before string) (a, b time.Time, err error) {
	if a, err = s.bound("after", after, false); err != nil {
		return a, b, err
	}
	if b, err = s.bound("before", before, true); err != nil {
		return a, b, err
	}
	if !a.IsZero() && !b.IsZero() && b.Before(a) {
		return a, b, &FieldError{"before", fmt.Sprintf("%s is earlier than after (%s)", before, after)}
	}
	return a, b, nil
}

// recallSessions resolves req's session_id and exclude_session in ns
// (sessionArg). An excluded session the namespace does not hold (a host's
// first prompt) is "": it leaves nothing out, and costs the search no
// filter.
func (s *Service) recallSessions(ctx context.Context, ns string, req RecallRequest) (session, exclude string, err error) {
	if session = req.SessionID; session != "" {
		if session, err = s.sessionArg(ctx, ns, "session_id", session); err != nil {
			return "", "", err
		}
	}
	if exclude = req.ExcludeSession; exclude == "" {
		return session, "", nil
	}
	if exclude, err = s.sessionArg(ctx, ns, "exclude_session", exclude); err != nil {
		return "", "", err
	}
	ids, err := s.store.SessionIDs(ctx, ns, exclude, 1)
	if err != nil || len(ids) == 0 || ids[0] != exclude {
		return session, "", err
	}
	return session, exclude, nil
}

// bound reads an after/before date. A bare date as an upper bound means the
// end of that day, so before=<question date> keeps that day's sessions.
func (s *Service) bound(field, v string, upper bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, dateOnly, err := s.parseDate(field, v)
	if err != nil {
		return time.Time{}, err
	}
	if upper && dateOnly {
		// whole seconds: Couchbase receives the bound as RFC 3339 without
		// fractions, and both stores must agree on it
		t = t.AddDate(0, 0, 1).Add(-time.Second)
	}
	return t, nil
}

// arrange orders hits or passages by the time of their memory (memOf) as
// order asks; by relevance they stay as they are.
func arrange[T any](xs []T, order Order, memOf func(T) Memory) {
	switch order {
	case Chronological:
		slices.SortStableFunc(xs, func(a, b T) int { return compareTime(memOf(a), memOf(b)) })
	case Recency:
		slices.SortStableFunc(xs, func(a, b T) int { return compareTime(memOf(b), memOf(a)) })
	}
}

func compareTime(a, b Memory) int {
	return cmp.Or(a.SessionDate.Compare(b.SessionDate), strings.Compare(a.SessionID, b.SessionID), a.Turn-b.Turn)
}

// validWeights bounds every weight, so that no score can overflow to
// infinity or NaN. Zero means the default.
func validWeights(w Weights) error {
	for _, f := range []struct {
		name string
		v    float64
		off  bool // negative turns it off
	}{{"weights.text", w.Text, false}, {"weights.vector", w.Vector, false}, {"weights.entity", w.Entity, false}, {"weights.time", w.Time, true}, {"weights.kinds", w.Kinds, true}} {
		if math.IsNaN(f.v) || f.v > MaxWeight || f.v < 0 && !f.off {
			return &FieldError{f.name, fmt.Sprintf("must be greater than 0 and at most %d, got %v", MaxWeight, f.v)}
		}
	}
	if math.IsNaN(w.Learned) || w.Learned > 1 {
		return &FieldError{"weights.learned", fmt.Sprintf("must be between 0 and 1, got %v", w.Learned)}
	}
	if math.IsNaN(w.Adjacent) || w.Adjacent > 1 {
		return &FieldError{"weights.adjacent", fmt.Sprintf("must be between 0 and 1, got %v", w.Adjacent)}
	}
	if w.RankConstant < 0 || w.RankConstant > MaxRankConstant {
		return &FieldError{"weights.rank_constant", fmt.Sprintf("must be between 1 and %d, got %d", MaxRankConstant, w.RankConstant)}
	}
	return nil
}

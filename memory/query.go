package memory

import (
	"cmp"
	"slices"
	"time"
)

// Order is how recalled memories are arranged once the best k are chosen.
type Order string

const (
	// ByRelevance keeps the fused ranking: best first.
	ByRelevance Order = "relevance"
	// Chronological sorts the chosen memories oldest first, which reads like
	// the conversation did.
	Chronological Order = "chronological"
	// Recency sorts the chosen memories newest first. The selection itself is
	// still by relevance: replacing relevance by recency hurts recall.
	Recency Order = "recency"
)

// Fusion is how the text and vector rankings are combined.
type Fusion string

const (
	// RRF is reciprocal-rank fusion of the text and vector rankings.
	RRF Fusion = "rrf"
	// RSF is relative-score fusion: each ranking's scores min-max
	// normalised, weighted and summed (Couchbase's default when RRF is not
	// available is a plain sum).
	RSF Fusion = "rsf"
	// TextOnly ranks by BM25 and entity matches alone.
	TextOnly Fusion = "text"
	// VectorOnly ranks by vector similarity alone.
	VectorOnly Fusion = "vector"
	// Rerank takes the vector ranking's top Pool and orders it by BM25,
	// keeping vector order for the memories the text side does not match.
	Rerank Fusion = "rerank"
)

// Fusions lists the valid fusion methods, for validation and schemas.
var Fusions = []Fusion{RRF, RSF, TextOnly, VectorOnly, Rerank}

// Query is one retrieval request, independent of the engine that runs it.
// The embedded store and the Couchbase store execute the same Query: the
// text part through the search kit's query tree (package hybrid: bleve's
// query model, which Couchbase Search shares, with the query's entities as
// a clause of their own) and the vector part as a kNN over Vector.
type Query struct {
	Namespace string
	Text      string
	// Vector is the query embedding; nil means lexical retrieval only.
	Vector    []float32
	SessionID string
	// ExcludeSession leaves out the memories of this session ("" none).
	ExcludeSession string
	// After and Before bound the session date (inclusive); zero means open.
	After, Before time.Time
	K             int
	// Pool is how many candidates each side (text, vector) contributes
	// before fusion; 0 means DefaultPool(K). A pool smaller than K gives
	// at most the pool's fused candidates: Recall fills from its whole
	// fused pool (up to twice Pool, and a period's PeriodExtra) by asking
	// for more than Pool.
	Pool    int
	Fusion  Fusion
	Weights Weights
	// Periods are the time expressions of Text resolved against the
	// service's today ("last week", "in May 2023"): memories dated in one,
	// or that mention a date in one, get Weights.Time as a boost. They
	// never filter.
	Periods []Period
	// Speakers are the speakers of Namespace that the query names: a
	// store's Search sets it (callers leave it nil) before it builds its
	// text side, looking them up only when the query has names (see
	// hybrid.QueryNames). Their names are matched as the speaker or a name
	// a turn mentions, not as words of the text (see hybrid.TextMatch).
	Speakers []string
	// Explain asks for each hit's Features (what the learned order reads
	// of it, whether or not it orders them) and for every candidate, not
	// the best K alone: the caller cuts them.
	Explain bool
	// Ranks asks for each hit's TextRank and VectorRank: a store whose
	// server could fuse a hybrid query's sides (Couchbase), and would
	// report neither, runs them apart and fuses them as the embedded
	// store does.
	Ranks bool
}

// Period is a time expression of a query and the period it names,
// [From, To).
type Period struct {
	Text     string
	From, To time.Time
	// Back reports a period its words say is past, or reaches back to
	// now ("last week", "two days ago", "since Monday": dates.Mention.Back).
	Back bool
}

// Contains reports whether t falls in the period.
func (p Period) Contains(t time.Time) bool { return !t.Before(p.From) && t.Before(p.To) }

// InPeriods reports whether t falls in one of ps.
func InPeriods(ps []Period, t time.Time) bool {
	return slices.ContainsFunc(ps, func(p Period) bool { return p.Contains(t) })
}

// Weights tune fusion. Text and Vector weight the two rankings; Entity
// boosts the entity clause inside the text ranking; Time boosts a memory
// dated in a period the query names; Kinds weights the match of the
// query's words on the kinds of a memory's nouns (hybrid.FieldKinds,
// package kinds) inside the text ranking; RankConstant is RRF's k. Zero
// means the default; a negative Time, Adjacent, Kinds or Learned turns
// that factor off.
type Weights struct {
	Text   float64
	Vector float64
	Entity float64
	Time   float64
	// Adjacent raises a candidate's score to at least this fraction of
	// the score of a neighbouring turn (just before or after it in its
	// session) that is one of the few best candidates, so an answer ranks
	// with the question it answers; read from the candidates' scores
	// alone (see hybrid.Rank). On by default (0.5).
	Adjacent float64
	Kinds    float64
	// Learned orders the candidates by the learned model's chance that
	// each is evidence (see hybrid.Rank): 1, the default, by the model
	// alone; between 0 and 1, a blend with the fused order; negative, the
	// fused order. Only reciprocal-rank fusion, the model's, is reordered.
	Learned      float64
	RankConstant int
}

// DefaultWeights are the weights used when a Query sets none.
func DefaultWeights() Weights {
	return Weights{Text: 1, Vector: 1, Entity: 1.5, Time: 0.5, Adjacent: 0.5, Kinds: 0.3, Learned: 1, RankConstant: DefaultRankConstant}
}

// OrDefault is w with DefaultWeights for the fields it leaves zero: every
// store fuses with these.
func (w Weights) OrDefault() Weights {
	d := DefaultWeights()
	if w.Text <= 0 {
		w.Text = d.Text
	}
	if w.Vector <= 0 {
		w.Vector = d.Vector
	}
	if w.Entity <= 0 {
		w.Entity = d.Entity
	}
	w.Time = cmp.Or(w.Time, d.Time)
	w.Adjacent = cmp.Or(w.Adjacent, d.Adjacent)
	w.Kinds = cmp.Or(w.Kinds, d.Kinds)
	w.Learned = cmp.Or(w.Learned, d.Learned)
	if w.RankConstant <= 0 {
		w.RankConstant = d.RankConstant
	}
	return w
}

// DefaultRankConstant is reciprocal-rank fusion's k: each side's best few
// decide (1/(1+rank)), and a memory both sides found ranks by how high
// both put it. The constant of the RRF paper, 60, suits lists a thousand
// deep; over pools of a few dozen it let memories both sides found low in
// their lists outrank the one memory either side put first. Chosen by
// measurement on LoCoMo, LongMemEval and the M-proxy (EVALS.md, "Recall
// defaults").
const DefaultRankConstant = 1

// DefaultPool is the candidate pool per side for k results: deep enough
// that a memory both sides rank fairly high is found by both (with a small
// rank constant the memories far down a list add almost nothing to the
// ranking), and a pool for the fill to take its memories from. Measured
// from 30 to 100 for k=10 (EVALS.md, "Recall defaults"): LoCoMo gains up
// to 60, LongMemEval's temporal questions lose from 60.
func DefaultPool(k int) int {
	return max(5*k, 50)
}

// PoolSize is the effective candidate pool of q.
func (q Query) PoolSize() int {
	if q.Pool > 0 {
		return q.Pool
	}
	return DefaultPool(q.K)
}

// A query that names a period (Periods, with the time boost on) searches
// deeper: each side returns PeriodDepth times the pool, hybrid.Fuse fuses
// the pool as without it, and hybrid.Rank keeps of the candidates found
// only past the pool the best PeriodExtra (by the fused order) that are
// dated in one of the periods or mention a date in one. "What did we
// decide last Tuesday?" then finds Tuesday's memories that share few
// words with it, as the time boost alone could not: it lifts only the
// candidates the pool holds. Measured on LoCoMo, LongMemEval and the
// M-proxy (EVALS.md, "A question that names a period searches deeper").
const (
	PeriodDepth = 4
	PeriodExtra = 10
)

// Depth is how many candidates each side of q's search returns: the
// pool, or PeriodDepth times it (at most MaxPool) where q names a period
// with the time boost on (see PeriodDepth), unless q is a Rerank (its
// text side re-orders its vector side's pool: the pool alone).
func (q Query) Depth() int {
	pool := q.PoolSize()
	if len(q.Periods) == 0 || q.Weights.OrDefault().Time <= 0 || q.Fusion == Rerank {
		return pool
	}
	return max(pool, min(PeriodDepth*pool, MaxPool))
}

// Hit is one retrieved memory with its fused score and, for diagnosis, its
// rank on each side (0 when that side did not return it).
type Hit struct {
	Memory     Memory  `json:"memory"`
	Score      float64 `json:"score"`
	TextRank   int     `json:"text_rank,omitempty"`
	VectorRank int     `json:"vector_rank,omitempty"`
	// FusedRank is the hit's rank in the fused ranking when a reranker
	// ordered the hits (and Score is then the reranker's); 0 otherwise.
	FusedRank int `json:"fused_rank,omitempty"`
	// Prior is the hit's score before the learned order scored it (the
	// fused score with its boosts; 0 when the learned order did not
	// apply): a recall's budget is what its best n by Prior take whole
	// (n from the learned order's chances, see Budget), so the learned
	// order's ranking changes which memories are shown, and its chances
	// how many (see Service.passages).
	Prior float64 `json:"-"`
	// Features are what the learned order read of the hit (named by
	// hybrid.FeatureNames), with Query.Explain; nil otherwise.
	Features []float64 `json:"-"`
}

// TieOrder orders two hits of equal score by their ranks alone (each
// side's, 0 for none), as a recall returns them, so that a caller that
// sees only the ranks knows the order (the hooks' auto-recall counts the
// hits that clear its floor, then asks for that many): those the text
// side found first, by their rank there, then the others, by their vector
// rank. It is the fusion's own order for a tie (the candidates as first
// seen, the text side's before the vector side's), and it decides the
// ties the boosts make too (two neighbours of one of the best hits lifted
// to the same score), which the order before them would otherwise decide.
func TieOrder(textA, vectorA, textB, vectorB int) int {
	if (textA > 0) != (textB > 0) {
		if textA > 0 {
			return -1
		}
		return 1
	}
	if textA > 0 {
		return cmp.Compare(textA, textB)
	}
	return cmp.Compare(vectorA, vectorB)
}

package evals

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
)

// FeatureLog writes the rows the learned order is fit on (evals/learn):
// for each question of a run's first configuration that has evidence
// turns, every candidate of its recall's fused pool with what the learned
// order read of it (recall's explain) and whether it holds evidence. One
// JSON object a line.
type FeatureLog struct {
	mu    sync.Mutex
	enc   *json.Encoder
	bench string
}

// NewFeatureLog writes to w; bench names the benchmark in every row.
func NewFeatureLog(w io.Writer, bench string) *FeatureLog {
	return &FeatureLog{enc: json.NewEncoder(w), bench: bench}
}

// featureRow is one question's candidates.
type featureRow struct {
	Bench      string             `json:"bench"`
	Unit       string             `json:"unit"`
	Question   string             `json:"question"`
	Query      string             `json:"query"` // the recall's query, as asked
	Category   string             `json:"category"`
	Sessions   []string           `json:"evidence_sessions,omitempty"` // the sessions that hold the answer
	Names      []string           `json:"feature_names"`
	Candidates []featureCandidate `json:"candidates"`
}

type featureCandidate struct {
	ID       string             `json:"id"`
	Evidence bool               `json:"evidence"`
	Score    float64            `json:"score"` // the ranking's score: the committed model's chance
	Features map[string]float64 `json:"features"`
}

// explain recalls the question again with explain, under the arguments
// of cfg, and logs its candidates. The timed recall is the other one.
func (l *FeatureLog) explain(ctx context.Context, a asked, cfg Config) error {
	if len(a.q.EvidenceTurns) == 0 {
		return nil
	}
	args := cfg.RecallArgs(a.q, a.ns[cfg.Granularity])
	args.Explain = true
	rec, _, err := a.conn.Recall(ctx, args)
	if err != nil {
		return err
	}
	ids := a.ids[cfg.Granularity]
	row := featureRow{Bench: l.bench, Unit: a.unit, Question: a.q.ID, Query: args.Query, Category: a.q.Category, Sessions: a.q.EvidenceSessions, Names: rec.FeatureNames}
	for _, c := range rec.Candidates {
		evidence := slices.ContainsFunc(ids[c.ID].Refs, func(ref string) bool { return slices.Contains(a.q.EvidenceTurns, ref) })
		row.Candidates = append(row.Candidates, featureCandidate{ID: c.ID, Evidence: evidence, Score: c.Score, Features: c.Features})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Encode(row)
}

// logFeatures logs a's candidates when the run keeps a feature log and
// cfg is its first configuration (its baseline).
func (r *runner) logFeatures(ctx context.Context, a asked, cfg Config) error {
	if r.o.Features == nil || len(r.o.Configs) == 0 || cfg.Name != r.o.Configs[0].Name {
		return nil
	}
	return r.o.Features.explain(ctx, a, cfg)
}

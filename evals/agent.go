package evals

import (
	"context"
	"time"

	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// asked is what every agent shares for one question: the connection, the
// namespace per granularity and the maps of stored ids back to turns.
type asked struct {
	unit  string
	now   time.Time // the unit's date: the server's clock
	conn  *client.Client
	q     Question
	today string // the today tool's sentence
	ns    map[Granularity]string
	ids   map[Granularity]IDMap
}

// scripted is the scripted agent's work on one question under one
// configuration: recall with the configuration's arguments, keep what the
// configuration keeps, show it to the answer model when there is one.
func (r *runner) scripted(ctx context.Context, a asked, cfg Config) (Result, error) {
	ns := a.ns[cfg.Granularity]
	start := time.Now()
	rec, text, err := a.conn.Recall(ctx, cfg.RecallArgs(a.q, ns))
	took := time.Since(start)
	if err != nil {
		return Result{}, err
	}
	text = WithoutToday(text)
	ms := rec.Memories
	if cfg.Order == recency && len(ms) > cfg.K {
		ms = ms[:cfg.K]
		text = firstMemories(text, rec.Memories, cfg.K)
	}
	res := r.result("scripted", cfg, a)
	res.RecallMS = float64(took.Microseconds()) / 1000
	res.Recalls = 1
	res.Recalled = ids(ms)
	res.K = rec.K
	if cfg.Order == recency {
		res.K = cfg.K // the recall's k was the pool's; the row keeps k
	}
	res.RerankError = rec.RerankError
	res.Retrieval = Score(a.q, res.Recalled, a.ids[cfg.Granularity])
	context := Context(text, cfg.NoPrefix)
	res.Tokens = r.o.Tokenizer.Count(context)
	res.AnswerShown = AnswerShown(res.Gold, context)
	if err := r.logFeatures(ctx, a, cfg); err != nil {
		return Result{}, err
	}
	if r.o.Chat == nil {
		return res, nil
	}
	res.Answer, err = r.o.Chat.Complete(ctx, answerSystem, AnswerPrompt(a.today, context, a.q.Text))
	if err != nil {
		return Result{}, err
	}
	return res, r.judge(ctx, &res, a, context)
}

// judge fills in the verdicts when a judge is configured. Sufficiency is
// not asked of questions whose right reply is that the history is silent.
func (r *runner) judge(ctx context.Context, res *Result, a asked, context string) error {
	if r.o.Judge == nil {
		return nil
	}
	ok, err := r.o.Judge.Correct(ctx, a.q, res.Answer)
	if err != nil {
		return err
	}
	res.Correct = &ok
	if a.q.Abstain {
		return nil
	}
	enough, err := r.o.Judge.Sufficient(ctx, a.q, a.today, context)
	if err != nil {
		return err
	}
	res.Sufficient = &enough
	return nil
}

func (r *runner) result(agent string, cfg Config, a asked) Result {
	q := a.q
	return Result{
		Agent: agent, Config: cfg.Name, Unit: a.unit, Question: q.ID, Category: q.Category,
		Abstain: q.Abstain, Evidence: q.EvidenceTurns, Gold: q.Answer,
		Fingerprint: r.fingerprint(agent, cfg),
	}
}

func ids(ms []spec.Recalled) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

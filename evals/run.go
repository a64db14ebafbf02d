package evals

import (
	"agentmem/tools/spec"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
)

// Options configure Run.
type Options struct {
	Data *Dataset
	// DataID names the data for the results' fingerprints: the file's
	// digest and anything that changed it (M-proxy).
	DataID string
	// Version names the code (the binary's revision), so that results
	// cached by other code are not reused.
	Version string
	Configs []Config
	// Scripted runs the scripted agent on Configs; LLMAgent (which needs
	// Chat) runs the agent-in-the-loop.
	Scripted bool
	LLMAgent bool
	// MaxToolCalls bounds the LLM agent's tool calls per question.
	MaxToolCalls int
	Dialer       Dialer
	// Host, when set, also asks questions through an agent host
	// (hostagent.go), under the first configuration: those HostQuestions
	// names (by question id), or every one when it is nil.
	Host          Host
	HostQuestions map[string]bool
	Workers       int
	Tokenizer     *Tokenizer
	Chat          *Chat  // nil: retrieval only
	Judge         *Judge // nil: no verdicts
	Results       *Results
	// Keep leaves each unit's namespaces in the store after its questions;
	// by default they are forgotten, which keeps the store small.
	Keep bool
	// UUIDSessions stores every session under a UUID made from its ids, as
	// agent hosts name theirs, instead of the benchmark's short id (see
	// uuidSessions): a recall's text then costs what it costs in a host.
	UUIDSessions bool
	Progress     *Progress // nil: silent
	// Features, when set, logs every candidate of each question's recall
	// under the first configuration, to fit the learned order (FeatureLog).
	Features *FeatureLog
}

// Outcome is what a run measured, cached results included.
type Outcome struct {
	Results []Result
	Ingest  map[Granularity][]IngestStat
}

type runner struct {
	o Options
}

// task is one question to ask one way.
type task struct {
	q     Question
	agent string
	cfg   Config
}

// Run asks every question of o.Data under every configuration, skipping
// what o.Results already holds. Units are worked on as many at once as
// there are workers (see chunk).
func Run(ctx context.Context, o Options) (Outcome, error) {
	o.Workers = max(o.Workers, 1)
	if o.LLMAgent && o.Chat == nil {
		return Outcome{}, errors.New("the LLM agent needs a chat model")
	}
	for _, c := range o.Configs {
		if err := c.Validate(); err != nil {
			return Outcome{}, err
		}
	}
	r := &runner{o: o}
	plans := make([][]task, len(o.Data.Units))
	turns, tasks := 0, 0
	var todo []int
	for i, u := range o.Data.Units {
		plans[i] = r.plan(u)
		tasks += len(plans[i])
		if len(plans[i]) > 0 {
			todo = append(todo, i)
		}
		for _, g := range granularities(plans[i]) {
			turns += Turns(Calls(u, g))
		}
	}
	o.Progress.Start(turns, tasks)
	defer o.Progress.Finish()

	for chunk := range slices.Chunk(todo, o.Workers) {
		if err := r.chunk(ctx, chunk, plans); err != nil {
			return Outcome{}, err
		}
	}
	return r.outcome(), nil
}

// chunk works on as many units as there are workers, in three phases: store
// them all, ask all their questions, forget them. Questions are never asked
// while another unit is being stored, so recall latency is not measured
// under ingest load, and every configuration of a question meets the same
// index.
func (r *runner) chunk(ctx context.Context, chunk []int, plans [][]task) error {
	units := make([]asked, len(chunk))
	var g errgroup.Group
	for w, i := range chunk {
		g.Go(func() (err error) {
			units[w], err = r.ingest(ctx, w, r.o.Data.Units[i], plans[i])
			return err
		})
	}
	err := g.Wait()
	defer func() {
		for _, a := range units {
			if a.conn != nil {
				a.conn.Close()
			}
		}
	}()
	if err != nil {
		return err
	}
	var jobs []func() error
	for w, i := range chunk {
		a := units[w]
		for _, ts := range byQuestion(plans[i]) {
			jobs = append(jobs, func() error {
				if err := r.question(ctx, a, ts); err != nil {
					return fmt.Errorf("%s, question %s: %w", a.unit, ts[0].q.ID, err)
				}
				return nil
			})
		}
	}
	if err := parallel(ctx, r.o.Workers, jobs); err != nil {
		return err
	}
	if r.o.Keep {
		return nil
	}
	for _, a := range units {
		for _, ns := range a.ns {
			if err := forget(ctx, a.conn, ns); err != nil {
				return fmt.Errorf("%s: %w", a.unit, err)
			}
		}
	}
	return nil
}

// parallel runs jobs, n at once, and returns the first error; after an
// error the jobs not yet started are skipped.
func parallel(ctx context.Context, n int, jobs []func() error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	for _, job := range jobs {
		if ctx.Err() != nil {
			break
		}
		g.Go(job)
	}
	return g.Wait()
}

// byQuestion groups tasks by question, in order.
func byQuestion(ts []task) [][]task {
	var out [][]task
	for _, t := range ts {
		if n := len(out); n > 0 && out[n-1][0].q.ID == t.q.ID {
			out[n-1] = append(out[n-1], t)
			continue
		}
		out = append(out, []task{t})
	}
	return out
}

// ways lists the tasks question q has in this run: the scripted agent
// under each configuration, the host under the first (for the questions of
// HostQuestions, or for every one with anyHost), and the LLM agent.
func (r *runner) ways(q Question, anyHost bool) []task {
	var ts []task
	if r.o.Scripted {
		for _, c := range r.o.Configs {
			ts = append(ts, task{q: q, agent: "scripted", cfg: c})
		}
	}
	if h := r.o.Host; h != nil && len(r.o.Configs) > 0 && (anyHost || r.o.HostQuestions == nil || r.o.HostQuestions[q.ID]) {
		ts = append(ts, task{q: q, agent: h.Name(), cfg: r.o.Configs[0]})
	}
	if r.o.LLMAgent {
		ts = append(ts, task{q: q, agent: "llm", cfg: LLMConfig})
	}
	return ts
}

// cached is t's result that the run's results hold, if they hold one made
// by the same code, data and models.
func (r *runner) cached(t task) (Result, bool) {
	return r.o.Results.Cached(t.agent, t.cfg.Name, t.q.ID, r.fingerprint(t.agent, t.cfg))
}

// plan lists the tasks of u that have no cached result.
func (r *runner) plan(u Unit) []task {
	var ts []task
	for _, q := range u.Questions {
		for _, t := range r.ways(q, false) {
			if _, ok := r.cached(t); !ok {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

func granularities(ts []task) []Granularity {
	var gs []Granularity
	for _, t := range ts {
		if !slices.Contains(gs, t.cfg.Granularity) {
			gs = append(gs, t.cfg.Granularity)
		}
	}
	return gs
}

// ingest connects to a server whose clock is u's, and stores u once per
// granularity its tasks need.
func (r *runner) ingest(ctx context.Context, worker int, u Unit, ts []task) (asked, error) {
	a := asked{unit: u.ID, now: u.Now, ns: map[Granularity]string{}, ids: map[Granularity]IDMap{}}
	conn, err := r.o.Dialer.Dial(ctx, u.Now, worker)
	if err != nil {
		return a, fmt.Errorf("%s: %w", u.ID, err)
	}
	a.conn = conn
	for _, g := range granularities(ts) {
		ns := namespace(u.ID, g)
		calls := Calls(u, g)
		if r.o.UUIDSessions {
			uuidSessions(u.ID, calls)
		}
		st := IngestStat{Unit: u.ID, Granularity: g, Turns: Turns(calls), Start: time.Now(), Fingerprint: r.ingestFingerprint(g)}
		ids := IDMap{}
		for _, c := range calls {
			got, err := remember(ctx, conn, ns, c)
			if err != nil {
				return a, fmt.Errorf("%s: storing session %s: %w", u.ID, c.SessionID, err)
			}
			ids.add(c, got)
			r.o.Progress.Turns(len(c.Refs))
		}
		// Stored is not done until searchable: one recall makes the store
		// index what it batched, so that the first question's latency is
		// the question's alone, and recall is asked again until no memory
		// waits for its vectors (a long call is acknowledged before they
		// are made), so that every question sees them all.
		noReranker := conn.NoReranker(ctx) // a server before rerankers refuses the argument
		for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
			res, _, err := conn.Recall(ctx, spec.RecallArgs{Query: "warm up", K: 1, Namespace: ns, Reranker: noReranker})
			if err != nil {
				return a, fmt.Errorf("%s: %w", u.ID, err)
			}
			if res.Pending == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return a, ctx.Err()
			case <-time.After(wait):
			}
		}
		st.End = time.Now()
		if err := r.o.Results.AddIngest(st); err != nil {
			return a, err
		}
		a.ns[g], a.ids[g] = ns, ids
	}
	return a, nil
}

// question asks one question every way its tasks say, after asking the
// server what day it is, as an agent would.
func (r *runner) question(ctx context.Context, a asked, ts []task) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, today, err := a.conn.Today(ctx)
	if err != nil {
		return err
	}
	a.q, a.today = ts[0].q, today
	for _, t := range ts {
		var res Result
		switch {
		case t.agent == "llm":
			res, err = r.llmAgent(ctx, a)
		case r.o.Host != nil && t.agent == r.o.Host.Name():
			res, err = r.hostAgent(ctx, a, t.cfg)
		default:
			res, err = r.scripted(ctx, a, t.cfg)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", t.agent, t.cfg.Name, err)
		}
		if err := r.o.Results.Add(res); err != nil {
			return err
		}
		r.o.Progress.Question()
	}
	return nil
}

// namespace is where unit u is stored at granularity g, the unit's id made
// safe as sessionIDs makes session ids.
func namespace(unit string, g Granularity) string {
	return "eval-" + sessionIDs{}.add(unit) + "-" + string(g)
}

// fingerprint identifies what a result depends on: data, server, agent,
// configuration and models.
func (r *runner) fingerprint(agent string, c Config) string {
	chat, judge := "", ""
	if r.o.Chat != nil {
		chat = r.o.Chat.Model
	}
	if r.o.Judge != nil {
		judge = r.o.Judge.Chat.Model
	}
	cfg, _ := json.Marshal(c)
	return digest(append(r.naming(), r.o.Version, r.o.DataID, r.o.Dialer.Describe(), agent, string(cfg), chat, judge, fmt.Sprint(r.o.MaxToolCalls))...)
}

func (r *runner) ingestFingerprint(g Granularity) string {
	return digest(append(r.naming(), r.o.Version, r.o.DataID, r.o.Dialer.Describe(), string(g))...)
}

// naming is what the sessions' naming adds to a fingerprint: nothing for
// the benchmark's ids, so results stored before the option stay valid.
func (r *runner) naming() []string {
	if r.o.UUIDSessions {
		return []string{"uuid-sessions"}
	}
	return nil
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// outcome collects the results of every task of the run, cached or new.
func (r *runner) outcome() Outcome {
	out := Outcome{Ingest: map[Granularity][]IngestStat{}}
	for _, u := range r.o.Data.Units {
		for _, q := range u.Questions {
			for _, t := range r.ways(q, true) {
				if res, ok := r.cached(t); ok {
					out.Results = append(out.Results, res)
				}
			}
		}
	}
	for _, g := range []Granularity{ByTurn, ByRound, BySession} {
		if st := r.o.Results.Ingest(r.ingestFingerprint(g)); len(st) > 0 {
			out.Ingest[g] = st
		}
	}
	return out
}

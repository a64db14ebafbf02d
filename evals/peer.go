package evals

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"agentmem/evals/peers"
)

// PeerAgent is the agent name of a peer's results: one search per question,
// as the scripted agent recalls once.
const PeerAgent = "peer"

// PeerOptions configure RunPeer: one other memory server (package peers)
// through the same questions as agentmem, with the same k.
type PeerOptions struct {
	Data *Dataset
	// DataID and Version are as in Options: they fingerprint the results.
	DataID, Version string
	// Name is the peer's name (peers.Names); Installation is where it is.
	Name         string
	Installation peers.Installation
	K            int
	// Workers is how many units are worked on at once, each by its own
	// server process.
	Workers int
	// Timeout bounds every call: starting the server, storing one
	// session, one search. A call that takes longer counts as a timeout,
	// and the server is restarted.
	Timeout   time.Duration
	Tokenizer *Tokenizer
	Results   *Results
	Progress  *Progress
}

// Describe names the peer's package, version and Node.js for reports.
func (o PeerOptions) Describe() string {
	p := o.Installation.Package
	return fmt.Sprintf("%s@%s (Node.js %d, stdio)", p.Name, p.Version, o.Installation.NodeMajor)
}

func (o PeerOptions) fingerprint() string {
	return digest(o.Version, o.DataID, PeerAgent, o.Name, o.Describe(), fmt.Sprint(o.K))
}

// RunPeer asks every question of o.Data of one peer, skipping what
// o.Results already holds. Every unit gets a server process and data
// directory of its own: the unit's turns are stored (one Store per
// session), then its questions are asked one at a time, with the question
// as the peer's adapter turns it into a query.
//
// A failed call never stops the run: the question is recorded with the
// failure's kind (peers.Kind) and scored as a miss. After a crash or a
// timeout the server is restarted in a fresh data directory and the unit is
// stored again (not counted in the ingest speed) before the next question;
// a unit whose storing fails twice has all its questions recorded as
// failures of that kind.
func RunPeer(ctx context.Context, o PeerOptions) (Outcome, error) {
	if o.K < 1 {
		return Outcome{}, fmt.Errorf("k: %d, must be at least 1", o.K)
	}
	o.Workers = max(o.Workers, 1)
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if _, err := peers.New(o.Name); err != nil {
		return Outcome{}, err
	}
	base, err := os.MkdirTemp("", "agentmem-peer-"+o.Name+"-")
	if err != nil {
		return Outcome{}, err
	}
	defer os.RemoveAll(base)
	fp := o.fingerprint()
	units, turns, questions := peerTodos(o, fp)
	o.Progress.Start(turns, questions)
	defer o.Progress.Finish()
	for chunk := range slices.Chunk(units, o.Workers) {
		if err := runPeerChunk(ctx, o, fp, base, chunk); err != nil {
			return Outcome{}, err
		}
	}
	out := Outcome{Ingest: map[Granularity][]IngestStat{}}
	for _, u := range o.Data.Units {
		for _, q := range u.Questions {
			if r, ok := o.Results.Cached(PeerAgent, o.Name, q.ID, fp); ok {
				out.Results = append(out.Results, r)
			}
		}
	}
	if st := latestIngest(o.Results.Ingest(fp)); len(st) > 0 {
		out.Ingest[ByTurn] = st
	}
	return out, nil
}

// peerTodo is a unit with the questions of it still to ask.
type peerTodo struct {
	u  Unit
	qs []Question
}

// peerTodos are the units of o.Data with questions o.Results does not
// hold (or holds as failures) under fingerprint fp, with how many turns
// they store and questions they ask.
func peerTodos(o PeerOptions, fp string) (units []peerTodo, turns, questions int) {
	for _, u := range o.Data.Units {
		var qs []Question
		for _, q := range u.Questions {
			if r, ok := o.Results.Cached(PeerAgent, o.Name, q.ID, fp); !ok || r.FailureKind != "" {
				qs = append(qs, q)
			}
		}
		if len(qs) > 0 {
			units = append(units, peerTodo{u, qs})
			turns += len(peerTurns(u))
			questions += len(qs)
		}
	}
	return units, turns, questions
}

// runPeerChunk works on a chunk of units at once, a server each. As for
// agentmem: the chunk's units are all stored first, then their questions
// are asked, so that no search is timed while another unit is being
// stored.
func runPeerChunk(ctx context.Context, o PeerOptions, fp, base string, chunk []peerTodo) error {
	runs := make([]*peerRun, len(chunk))
	var wg sync.WaitGroup
	for i, t := range chunk {
		runs[i] = &peerRun{o: o, fp: fp, base: base, u: t.u, turns: peerTurns(t.u)}
		wg.Go(func() { runs[i].ingest(ctx) })
	}
	wg.Wait()
	errs := make([]error, len(chunk))
	for i, t := range chunk {
		wg.Go(func() { errs[i] = runs[i].ask(ctx, t.qs) })
	}
	wg.Wait()
	for _, r := range runs {
		r.close()
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// latestIngest keeps the last record of each unit (a resumed run stores a
// unit again).
func latestIngest(st []IngestStat) []IngestStat {
	at := map[string]int{}
	var out []IngestStat
	for _, s := range st {
		if i, ok := at[s.Unit]; ok {
			out[i] = s
			continue
		}
		at[s.Unit] = len(out)
		out = append(out, s)
	}
	return out
}

// peerTurns is a unit's turns as a peer stores them, in order; empty
// turns are left out, as they are for agentmem (Calls).
func peerTurns(u Unit) []peers.Turn {
	var out []peers.Turn
	for _, s := range u.Sessions {
		for _, t := range s.Turns {
			if strings.TrimSpace(t.Text) == "" {
				continue
			}
			out = append(out, peers.Turn{Ref: t.Ref, SessionID: s.ID, Date: s.Date, Role: t.Role, Speaker: t.Speaker, Text: t.Text})
		}
	}
	return out
}

// peerRun is one unit on one peer: its server process, adapter and state.
type peerRun struct {
	o     PeerOptions
	fp    string
	base  string
	u     Unit
	turns []peers.Turn

	p   peers.Peer
	c   *client.Client
	dir string
	// broken is why the unit could not be stored, when it could not; its
	// questions then fail with it.
	broken error
}

// ns is the namespace the unit is stored in, the same as agentmem's.
func (r *peerRun) ns() string { return namespace(r.u.ID, ByTurn) }

// start starts a fresh server process with a fresh adapter and data
// directory, and stores the unit; timed says whether to record the time.
func (r *peerRun) start(ctx context.Context, timed bool) error {
	r.close()
	dir, err := os.MkdirTemp(r.base, "unit-")
	if err != nil {
		return err
	}
	r.dir = dir
	if r.p, err = peers.New(r.o.Name); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	r.c, err = peers.Open(cctx, r.o.Installation, r.p, dir)
	cancel()
	if err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	st := IngestStat{Unit: r.u.ID, Granularity: ByTurn, Turns: len(r.turns), Start: time.Now(), Fingerprint: r.fp}
	for _, sess := range peers.BySession(r.turns) {
		sctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
		err := r.p.Store(sctx, r.c, r.ns(), sess)
		cancel()
		if err != nil {
			return fmt.Errorf("storing session %s: %w", sess[0].SessionID, err)
		}
		if timed {
			r.o.Progress.Turns(len(sess))
		}
	}
	st.End = time.Now()
	if timed {
		return r.o.Results.AddIngest(st)
	}
	return nil
}

// ingest stores the unit, and once more in a fresh server if that fails.
func (r *peerRun) ingest(ctx context.Context) {
	err := r.start(ctx, true)
	if err != nil && ctx.Err() == nil {
		err = r.start(ctx, false)
	}
	r.broken = err
}

func (r *peerRun) close() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
	if r.dir != "" {
		os.RemoveAll(r.dir)
		r.dir = ""
	}
}

// ask asks qs in order. Only a cancelled run and a failure to record a
// result are errors; a peer's failures are results.
func (r *peerRun) ask(ctx context.Context, qs []Question) error {
	ids := IDMap{}
	for _, t := range r.turns {
		ids[t.Ref] = Held{Session: t.SessionID, Refs: []string{t.Ref}}
	}
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := Result{
			Agent: PeerAgent, Config: r.o.Name, Unit: r.u.ID, Question: q.ID, Category: q.Category,
			Abstain: q.Abstain, Evidence: q.EvidenceTurns, Gold: q.Answer, Recalls: 1, Fingerprint: r.fp,
			// until the search succeeds: a failed question is a miss, never left out
			Retrieval: Score(q, nil, ids),
		}
		if r.broken != nil {
			res.FailureKind, res.Failure = peers.Kind(r.broken), "the unit could not be stored: "+r.broken.Error()
		} else if err := r.search(ctx, q, ids, &res); err != nil {
			return err
		}
		if err := r.o.Results.Add(res); err != nil {
			return err
		}
		r.o.Progress.Question()
	}
	return nil
}

// search asks q of the peer, timed, and records in res what it recalled
// (ids: where each turn is held), or its failure; after a crash or a
// timeout the server is restarted, and the unit stored again. Only a
// cancelled run is an error.
func (r *peerRun) search(ctx context.Context, q Question, ids IDMap, res *Result) error {
	sctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	start := time.Now()
	hits, err := r.p.Search(sctx, r.c, r.ns(), q.Text, r.o.K)
	took := time.Since(start)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	res.RecallMS = float64(took.Microseconds()) / 1000
	if err != nil {
		res.FailureKind, res.Failure = peers.Kind(err), err.Error()
		if k := res.FailureKind; k == peers.Crash || k == peers.Timeout {
			res.Restarted = true
			if err := r.start(ctx, false); err != nil {
				r.broken = fmt.Errorf("restarting after a %s: %w", k, err)
			}
		}
		return nil
	}
	recalled, local, texts := peerRecalled(hits, ids)
	res.Recalled = recalled
	res.Retrieval = Score(q, res.Recalled, local)
	res.Tokens = r.o.Tokenizer.Count(strings.Join(texts, "\n\n"))
	res.AnswerShown = AnswerShown(res.Gold, strings.Join(texts, "\n\n"))
	return nil
}

// peerRecalled are the ids of a peer's hits (a hit without turns left
// out), with ids (where each turn is held) and, cloned, a made-up id for
// each hit holding several turns (a merged duplicate), and the hits'
// texts.
func peerRecalled(hits []peers.Hit, ids IDMap) (recalled []string, local IDMap, texts []string) {
	local, cloned := ids, false
	for i, h := range hits {
		id := ""
		switch len(h.Refs) {
		case 0:
			continue
		case 1:
			id = h.Refs[0]
		default: // one memory holding several turns (a merged duplicate)
			id = fmt.Sprintf("hit %d", i)
			if !cloned {
				local, cloned = maps.Clone(ids), true
			}
			local[id] = Held{Session: ids[h.Refs[0]].Session, Refs: h.Refs}
		}
		recalled = append(recalled, id)
		texts = append(texts, h.Text)
	}
	return recalled, local, texts
}

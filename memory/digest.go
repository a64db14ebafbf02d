package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A question that names a period and asks nothing else of it ("What did
// we do last week?", "What happened in October?", "Summarise yesterday")
// has no words for the search to match and no meaning for the vectors to
// find: ranked by the search, the period's shortest and emptiest turns
// came first ("Done. Anything else?"), as they are as close as any to a
// question without content. Such a question is answered by the period's
// sessions instead, as a digest: the sessions dated in it with the most
// turns, each shown by its turns of most content (DigestTurns), one
// passage a session, oldest first, in the space k excerpts take. Measured:
// EVALS.md, "A question that names only a period".

// lightWords are the words, stemmed, that a question about a period may
// say without asking anything of it beyond the period: what happened,
// was done, worked on, talked about, said or asked in general, and the
// units of time a period's own words leave ("what did we do that day").
var lightWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`happen happened happening do doing done work working worked
		talk talked talking discuss discussed discussing say said mention mentioned
		go going went get got up thing things anything something everything stuff else
		ask asked asking accomplish accomplished achieve achieved new
		summary summarize summarise recap overview remind tell show list us
		chat chatted conversation conversations session sessions
		day days week weeks weekend month months year years`) {
		m[stem(w)] = true
	}
	return m
}()

// DigestSessions bounds the sessions a digest reads, in multiples of k: the
// period's sessions with the most turns.
const DigestSessions = 3

// DigestTurns bounds the turns of a session a digest reads: its first ones.
const DigestTurns = 200

// asksOnlyOfPeriods reports whether text names periods (ps, found in it by
// queryPeriods) and, outside them, says no word but stop words and
// lightWords: a question a digest answers.
func asksOnlyOfPeriods(text string, ps []Period) bool {
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		text = strings.Replace(text, p.Text, " ", 1)
	}
	for k := range queryWords(text).index {
		if !lightWords[k] {
			return false
		}
	}
	return true
}

// digestHits are the hits of a digest of q's periods (see
// asksOnlyOfPeriods): the sessions dated in them with the most turns, at
// most DigestSessions·k, each session's turns ranked by their content
// words (contentWords), and the hits taken a turn of each session at a
// time, the sessions in that order, so that a budget keeps one turn of
// every session before a second of any.
func (s *Service) digestHits(ctx context.Context, q Query) (hits []Hit, sessions int, err error) {
	from, to := q.Periods[0].From, q.Periods[0].To
	for _, p := range q.Periods[1:] {
		from, to = minTime(from, p.From), maxTime(to, p.To)
	}
	f := SessionFilter{After: from, Before: to.Add(-time.Nanosecond), Limit: MaxSessionPage}
	if !q.After.IsZero() {
		f.After = maxTime(f.After, q.After)
	}
	if !q.Before.IsZero() {
		f.Before = minTime(f.Before, q.Before)
	}
	var dated []SessionInfo
	for {
		page, err := s.store.Sessions(ctx, q.Namespace, f)
		if err != nil {
			return nil, 0, fmt.Errorf("listing the sessions of namespace %s: %w", q.Namespace, err)
		}
		for _, si := range page.Sessions {
			if (q.SessionID == "" || si.ID == q.SessionID) && si.ID != q.ExcludeSession {
				dated = append(dated, si)
			}
		}
		if f.Cursor = page.Next; f.Cursor == "" {
			break
		}
	}
	// the most turns first, then the newest (the order the pages came in)
	slices.SortStableFunc(dated, func(a, b SessionInfo) int { return cmp.Compare(b.Turns, a.Turns) })
	var ranked [][]Memory // each session's turns in the periods, by content
	for _, si := range dated[:min(len(dated), DigestSessions*q.K)] {
		turns, err := s.store.Turns(ctx, q.Namespace, si.ID, 0, DigestTurns-1)
		if err != nil {
			return nil, 0, fmt.Errorf("reading session %s: %w", si.ID, err)
		}
		turns = slices.DeleteFunc(turns, func(m Memory) bool { return !inAny(q.Periods, m.SessionDate) })
		words := make(map[string]int, len(turns))
		for _, m := range turns {
			words[m.ID] = contentWords(m.Text)
		}
		slices.SortStableFunc(turns, func(a, b Memory) int { return cmp.Compare(words[b.ID], words[a.ID]) })
		if len(turns) > 0 {
			ranked = append(ranked, turns)
		}
	}
	for i := 0; ; i++ {
		n := len(hits)
		for _, turns := range ranked {
			if i < len(turns) {
				hits = append(hits, Hit{Memory: turns[i]})
			}
		}
		if len(hits) == n {
			break
		}
	}
	for i := range hits {
		hits[i].Score = 1 / float64(i+1)
	}
	// the sessions read that hold turns in the periods (a session resumed
	// across them may hold none), and those past the ones read
	return hits, len(ranked) + max(0, len(dated)-DigestSessions*q.K), nil
}

// contentWords counts the distinct words of text that are no stop words,
// up to DefaultExcerpt: what a digest ranks a session's turns by, so that
// "Done. Anything else?" comes after the turn that says what was done,
// and a long turn counts no more than its excerpt shows.
func contentWords(text string) int {
	if len(text) > contentBytes {
		// a long turn's first words hold its excerpt's worth of content
		if i := strings.LastIndexByte(text[:contentBytes], ' '); i > 0 {
			text = text[:i]
		}
	}
	return min(len(queryWords(text).index), DefaultExcerpt)
}

// contentBytes bounds what contentWords reads of a turn.
const contentBytes = 2048

// inAny reports whether t falls in one of ps.
func inAny(ps []Period, t time.Time) bool {
	return slices.ContainsFunc(ps, func(p Period) bool { return p.Contains(t) })
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// digest is the recall of a question that names only periods (see
// asksOnlyOfPeriods): digestHits, shown as passages in the space k
// excerpts take with their headers (as for a question that asks for
// several things; within max_tokens), or, without excerpts, the first k
// whole; oldest first,
// unless the request asks for another order than relevance. Where no turn
// is dated in the periods (a question of next week, or of a week without
// sessions) there is no digest (ok false): a search finds the memories
// that mention a date there ("we deploy next Tuesday").
func (s *Service) digest(ctx context.Context, q Query, req RecallRequest, order Order) (res RecallResult, ok bool, err error) {
	hits, sessions, err := s.digestHits(ctx, q)
	if err != nil || len(hits) == 0 {
		return RecallResult{}, false, err
	}
	pending, err := s.pending(ctx, q.Namespace)
	if err != nil {
		return RecallResult{}, false, fmt.Errorf("counting the memories waiting for vectors: %w", err)
	}
	res = RecallResult{Namespace: q.Namespace, K: q.K, Periods: q.Periods, Pending: pending, Digest: true, Sessions: sessions}
	if req.Explain {
		res.Candidates = slices.Clone(hits)
	}
	turns, err := s.withContext(ctx, hits, req.Context)
	if err != nil {
		return RecallResult{}, false, err
	}
	if order == ByRelevance {
		order = Chronological
	}
	budget := req.MaxTokens
	if req.Fill && req.Excerpt > 0 {
		if least := q.K * (req.Excerpt + SeveralHeader); budget == 0 || least < budget {
			budget = least
		}
	} else if len(hits) > q.K {
		hits, turns = hits[:q.K], turns[:q.K]
	}
	ps := s.passages(ctx, q.Namespace, hits, turns, budget, 0, 0, req.Excerpt, queryWords(""), order)
	arrange(ps, order, func(p Passage) Memory { return p.Memories[0] })
	res.Hits, res.Passages = returnedHits(hits, ps, order), ps
	if err := s.filler.failure(); err != nil && pending > 0 {
		res.PendingError = err.Error()
	}
	return res, true, nil
}

// DigestNote says what a digest shows, for the model to read before it:
// "A digest of last week (2026-11-09 to 2026-11-15): 4 of its 6 sessions,
// each by its turns of most content." The sessions are those dated in the
// periods; one whose turns there are all past its first DigestTurns is
// counted, not shown.
func (r RecallResult) DigestNote() string {
	var periods []string
	for _, p := range r.Periods {
		from, last := p.From.Format(time.DateOnly), p.To.AddDate(0, 0, -1).Format(time.DateOnly)
		if from == last {
			periods = append(periods, fmt.Sprintf("%s (%s)", p.Text, from))
		} else {
			periods = append(periods, fmt.Sprintf("%s (%s to %s)", p.Text, from, last))
		}
	}
	what := strings.Join(periods, " and ")
	switch shown := len(sessionsOf(r.Passages, passageSession)); {
	case r.Sessions == 1 && shown == 1:
		return fmt.Sprintf("A digest of %s: its one session, by its turns of most content.", what)
	case shown == r.Sessions:
		return fmt.Sprintf("A digest of %s: all %d of its sessions, each by its turns of most content.", what, shown)
	default:
		return fmt.Sprintf("A digest of %s: %d of its %d sessions, each by its turns of most content.", what, shown, r.Sessions)
	}
}

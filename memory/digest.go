package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"agentmem/memory/dates"
)

// A question that names a period and asks nothing else of it ("What did
// we do last week?", "What happened in October?", "Summarise yesterday")
// has no words for the search to match and no meaning for the vectors to
// find: ranked by the search, the period's shortest and emptiest turns
// came first ("Done. Anything else?"), as they are as close as any to a
// question without content. Such a question is answered by the period's
// sessions instead, as a digest: the sessions dated in it with the most
// turns, each shown by its turns of most content (contentWords), one
// passage a session, oldest first, in the space k excerpts take. Measured:
// EVALS.md, "A question that names only a period".

// DigestSessions bounds the sessions a digest reads, in multiples of k:
// the periods' sessions with the most turns.
const DigestSessions = 3

// A digest reads a session's turns DigestWindow at a time, from its
// first, until it has passed the periods or read DigestMostTurns: a
// session resumed in a period holds its turns there after the others.
// It reads DigestAllTurns at most in all (the sessions read after that, a
// window each): a month of long sessions is not read whole.
const (
	DigestWindow    = 200
	DigestMostTurns = 2000
	DigestAllTurns  = 10000
)

// digestHits are the hits of a digest of q's periods (see
// asksOnlyOfPeriods): the sessions dated in them (each period's, once)
// with the most turns, at most DigestSessions·k (ties spread over the
// periods: spread), each session's turns in the periods ranked by their
// content words (contentWords), and the hits taken a turn of each session
// at a time, the sessions in that order, so that a budget keeps one turn
// of every session before a second of any. sessions counts the sessions
// read that hold turns in the periods, and those past the ones read.
func (s *Service) digestHits(ctx context.Context, q Query) (hits []Hit, sessions int, err error) {
	dated, err := s.periodSessions(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	spread(dated)
	slices.SortStableFunc(dated, func(a, b SessionInfo) int { return cmp.Compare(b.Turns, a.Turns) })
	read := dated[:min(len(dated), DigestSessions*q.K)]
	var ranked [][]Memory // each session's turns in the periods, by content
	left := DigestAllTurns
	for _, si := range read {
		turns, n, err := s.turnsIn(ctx, q, si.ID, max(DigestWindow, min(DigestMostTurns, left)))
		if err != nil {
			return nil, 0, err
		}
		left -= n
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
	return hits, len(ranked) + len(dated) - len(read), nil
}

// periodSessions are the sessions of q's namespace dated in one of its
// periods (and within its after and before, its session, not its excluded
// one), each once, oldest first.
func (s *Service) periodSessions(ctx context.Context, q Query) ([]SessionInfo, error) {
	var out []SessionInfo
	seen := map[string]bool{}
	for _, p := range q.Periods {
		f := SessionFilter{After: p.From, Before: p.To.Add(-time.Nanosecond), Limit: MaxSessionPage}
		if !q.After.IsZero() {
			f.After = maxTime(f.After, q.After)
		}
		if !q.Before.IsZero() {
			f.Before = minTime(f.Before, q.Before)
		}
		if f.Before.Before(f.After) {
			continue
		}
		for {
			page, err := s.store.Sessions(ctx, q.Namespace, f)
			if err != nil {
				return nil, fmt.Errorf("listing the sessions of namespace %s: %w", q.Namespace, err)
			}
			for _, si := range page.Sessions {
				if !seen[si.ID] && (q.SessionID == "" || si.ID == q.SessionID) && si.ID != q.ExcludeSession {
					seen[si.ID] = true
					out = append(out, si)
				}
			}
			if f.Cursor = page.Next; f.Cursor == "" {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return a.Date.Compare(b.Date) })
	return out, nil
}

// spread orders sessions (oldest first) so that any first n of them lie
// across the whole span: by the bits of their position reversed (the
// first, the middle, the quarters, ...). A digest takes the sessions with
// the most turns, and where many have as many, a year's would otherwise
// all be of its last days.
func spread(sessions []SessionInfo) {
	bits := 0
	for 1<<bits < len(sessions) {
		bits++
	}
	key := make(map[string]uint, len(sessions))
	for i, si := range sessions {
		r := uint(0)
		for b := 0; b < bits; b++ {
			r |= uint(i>>b&1) << (bits - 1 - b)
		}
		key[si.ID] = r
	}
	slices.SortStableFunc(sessions, func(a, b SessionInfo) int { return cmp.Compare(key[a.ID], key[b.ID]) })
}

// turnsIn are the turns of session dated in one of q's periods, read a
// window at a time from its first (DigestWindow), until a window passes
// the last period's end, the session ends, or most are read (read counts
// them).
func (s *Service) turnsIn(ctx context.Context, q Query, session string, most int) (out []Memory, read int, err error) {
	end := q.Periods[0].To
	for _, p := range q.Periods[1:] {
		end = maxTime(end, p.To)
	}
	for from := 0; from < most; from += DigestWindow {
		turns, err := s.store.Turns(ctx, q.Namespace, session, from, from+DigestWindow-1)
		if err != nil {
			return nil, read, fmt.Errorf("reading session %s: %w", session, err)
		}
		read += len(turns)
		for _, m := range turns {
			if InPeriods(q.Periods, m.SessionDate) {
				out = append(out, m)
			}
		}
		if len(turns) == 0 || !turns[len(turns)-1].SessionDate.Before(end) {
			break
		}
	}
	return out, read, nil
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
// `A digest of the sessions of "last week" (2026-11-09 to 2026-11-15): 4
// of its 6, each by its turns of most content.` The sessions are those dated in the
// periods and hold turns there, among their first DigestMostTurns (one
// whose turns there lie past those is neither shown nor counted).
func (r RecallResult) DigestNote() string {
	what := "A digest of the sessions of " + r.periodsSaid()
	switch shown := len(sessionsOf(r.Passages, passageSession)); {
	case r.Sessions == 1 && shown == 1:
		return what + ": its one session, by its turns of most content."
	case r.Sessions == 2 && shown == 2:
		return what + ": both, each by its turns of most content."
	case shown == r.Sessions:
		return fmt.Sprintf("%s: all %d, each by its turns of most content.", what, shown)
	default:
		return fmt.Sprintf("%s: %d of its %d, each by its turns of most content.", what, shown, r.Sessions)
	}
}

// periodsSaid are r's periods as a note says them: `"last week"
// (2026-11-09 to 2026-11-15) and "May" (…)`.
func (r RecallResult) periodsSaid() string {
	var periods []string
	for _, p := range r.Periods {
		from, last := p.From.Format(time.DateOnly), p.To.AddDate(0, 0, -1).Format(time.DateOnly)
		if from == last {
			periods = append(periods, fmt.Sprintf("%q (%s)", p.Text, from))
		} else {
			periods = append(periods, fmt.Sprintf("%q (%s to %s)", p.Text, from, last))
		}
	}
	return strings.Join(periods, " and ")
}

// PeriodNote says, for a search whose query named periods, that none of
// the memories it shows is dated in them or says a day in them: "What
// did we decide about the cache last week?" when nothing is dated last
// week shows the best matches of other days, and the model is told so,
// rather than left to take them for that week's. "" when one is, or the
// query named none, or the recall is a digest.
func (r RecallResult) PeriodNote() string {
	if r.Digest || r.TimeBoost == 0 || len(r.Periods) == 0 || len(r.Passages) == 0 {
		return ""
	}
	for _, p := range r.Passages {
		for i, m := range p.Memories {
			if p.Hit[i] && MentionsPeriod(m, r.Periods) {
				return ""
			}
		}
	}
	return "No memory found is dated in " + r.periodsSaid() + " or names a day in it: these are the best matches of other days."
}

// MentionsPeriod reports whether m is dated in one of ps, or says a day
// in one (its relative dates read against its session's date): what the
// time boost lifts (hybrid.Rank) and a period's note asks of the memories
// shown.
func MentionsPeriod(m Memory, ps []Period) bool {
	if len(ps) == 0 {
		return false
	}
	if InPeriods(ps, m.SessionDate) {
		return true
	}
	for _, d := range dates.Find(m.Text, m.SessionDate) {
		if !d.From.IsZero() && slices.ContainsFunc(ps, func(p Period) bool { return d.From.Before(p.To) && p.From.Before(d.To) }) {
			return true
		}
	}
	return false
}

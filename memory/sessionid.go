package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ShortSessionLen is the fewest characters of a session id that is a UUID
// the text of a recall shows. Hosts name their sessions by UUIDs (Claude
// Code, Codex, ChatGPT and Claude.ai exports), and a UUID costs a model
// 19 to 36 tokens (o200k: digits cost less than letters), about what a
// short turn does: shown whole in every passage header they took an eighth
// to a fifth of a recall's text (EVALS.md, "Session ids shown by their
// start"). Its first 8 characters cost 3 to 5
// and, with the session's date beside them, name it; every argument that
// names a session takes them (resolveSession). Where they start another
// session's id of the namespace too (UUIDv7 ids begin with a timestamp,
// so sessions started within a minute share them), a recall shows more of
// the id, as git shortens commit ids (see label).
const ShortSessionLen = 8

// ShortSession is the id a header shows for session id at the least: the
// first ShortSessionLen characters of a UUID, any other id whole.
func ShortSession(id string) string {
	if isUUID(id) {
		return id[:ShortSessionLen]
	}
	return id
}

// isUUID reports whether s is a UUID in its canonical text form,
// 8-4-4-4-12 hex digits, in either case.
func isUUID(s string) bool {
	return len(s) == 36 && uuidStart(s)
}

// uuidStart reports whether s is the start of a UUID's canonical form.
func uuidStart(s string) bool {
	const pattern = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	if len(s) > len(pattern) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if pattern[i] == '-' && c != '-' || pattern[i] == 'x' && !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// shortForm reports whether id may be the start of a UUID a recall showed
// (at least ShortSessionLen characters, fewer than a whole UUID), so that
// an argument naming a session is looked up by its start.
func shortForm(id string) bool {
	return len(id) >= ShortSessionLen && len(id) < 36 && uuidStart(id)
}

// passages groups the hits into passages (group) within budget tokens
// (0: none), with each UUID session headed by its label (label). With
// fillK > 0 the budget is at most what the best fillK hits take shown
// whole (wholeTokens; best by their Prior where the learned order scored
// them), or least tokens where that is more, their sessions labelled
// first, so that their headers count as shown. When a session shown is
// labelled longer than the grouping counted, the hits are grouped again
// with its label; a session that only the second grouping shows (rare: a
// longer header left room for another) is labelled without a third.
func (s *Service) passages(ctx context.Context, ns string, hits []Hit, turns [][]Memory, budget, fillK, least, excerpt int, want *stems, order Order) []Passage {
	labels := map[string]string{}
	if fillK > 0 {
		bh, bt := bestByPrior(hits, turns, fillK)
		s.label(ctx, ns, sessionsOf(bh, hitSession), labels)
		full := max(wholeTokens(bh, bt, labels, order), least)
		if budget == 0 || full < budget {
			budget = full
		}
	}
	ps := group(hits, turns, budget, excerpt, want, labels, order)
	if s.label(ctx, ns, sessionsOf(ps, passageSession), labels) {
		ps = group(hits, turns, budget, excerpt, want, labels, order)
		s.label(ctx, ns, sessionsOf(ps, passageSession), labels)
	}
	for i := range ps {
		ps[i].Label = labels[passageSession(ps[i])]
	}
	return ps
}

// bestByPrior is the best n hits, with their turns, by the score they had
// before the learned order (Hit.Prior), or the first n where it did not
// apply (a reranker's or a fusion's own order).
func bestByPrior(hits []Hit, turns [][]Memory, n int) ([]Hit, [][]Memory) {
	if !learnedScored(hits) {
		return hits[:n], turns[:n]
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	// stable: equal priors keep the order they came in
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(hits[b].Prior, hits[a].Prior) })
	bh, bt := make([]Hit, 0, n), make([][]Memory, 0, n)
	for _, i := range idx[:n] {
		bh, bt = append(bh, hits[i]), append(bt, turns[i])
	}
	return bh, bt
}

// learnedScored says whether the learned order scored hits: it sets
// every hit's Prior (a fused score, above 0) where it applies.
func learnedScored(hits []Hit) bool {
	return slices.ContainsFunc(hits, func(h Hit) bool { return h.Prior > 0 })
}

// sessionsOf is the sessions of xs (hits or passages), each once, in
// their order.
func sessionsOf[T any](xs []T, session func(T) string) []string {
	var ids []string
	for _, x := range xs {
		if id := session(x); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func hitSession(h Hit) string         { return h.Memory.SessionID }
func passageSession(p Passage) string { return p.Memories[0].SessionID }

// label sets in labels the label of each UUID session of ids (the
// sessions shown together): its shortest start, of ShortSessionLen
// characters or more (never ending in "-"), that is no other of ids and
// starts no other UUID of them and, on a store with QuickSessionIDs, no
// other session id of namespace ns (as resolveSession reads a start, in
// its case first), looked up one session after the other (a seek each).
// On a store without it, a UUIDv7's label holds the whole of its time
// (uuid7Time characters), so that sessions begun within a minute, which
// its lookups cannot tell apart, are told apart by it. It reports whether a label is
// longer than the one labels held (or ShortSession's). A lookup that
// fails labels its session by its whole id, which names it in every call,
// and is logged: a label never fails a recall.
func (s *Service) label(ctx context.Context, ns string, ids []string, labels map[string]string) (longer bool) {
	_, quick := s.store.(QuickSessionIDs)
	for _, id := range ids {
		if !isUUID(id) {
			continue
		}
		before := cmp.Or(labels[id], ShortSession(id))
		n := localShortest(id, ids)
		switch {
		case !quick && id[14] == '7':
			n = max(n, uuid7Time)
		case quick && labels[id] != "" && len(labels[id]) >= n:
			continue // unique in the namespace: looked up before
		}
		l := id[:n]
		if quick {
			var err error
			if l, err = s.shortest(ctx, ns, id, n); err != nil {
				s.log.Warn("a recall names a session by its whole id", "namespace", ns, "session", id, "err", err)
				l = id
			}
		}
		longer = longer || len(l) > len(before)
		labels[id] = l
	}
	return longer
}

// uuid7Time is how many characters of a UUIDv7 hold its time (48 bits of
// milliseconds).
const uuid7Time = len("xxxxxxxx-xxxx")

// localShortest is the length of the shortest start of id, of
// ShortSessionLen characters or more and not ending in "-", that is no
// other id of ids and starts no other UUID of them (what resolveSession
// would take it for).
func localShortest(id string, ids []string) int {
	n := ShortSessionLen
	for ; n < len(id); n++ {
		if id[n-1] == '-' {
			continue
		}
		if !slices.ContainsFunc(ids, func(o string) bool { return o != id && (o == id[:n] || isUUID(o) && strings.HasPrefix(o, id[:n])) }) {
			break
		}
	}
	return n
}

// shortest is the label of session id (a UUID) in ns, of n characters at
// least: see label.
func (s *Service) shortest(ctx context.Context, ns, id string, n int) (string, error) {
	for ; n < len(id); n++ {
		if id[n-1] == '-' {
			continue
		}
		ids, err := s.store.SessionIDs(ctx, ns, id[:n], 2)
		if err != nil {
			return "", err
		}
		if len(ids) < 2 {
			break
		}
	}
	return id[:n], nil
}

// maxResolved bounds the sessions an ambiguous start is reported with,
// and maxStarting the ids starting with it that are read to decide.
const (
	maxResolved = 5
	maxStarting = 4096
)

// sessionArg checks the argument field (session_id, exclude_session) of
// a call that reads or deletes a session (validName) and resolves it
// (resolveSession), its errors naming field.
func (s *Service) sessionArg(ctx context.Context, ns, field, id string) (string, error) {
	if err := validName(field, id, maxSessionID); err != nil {
		return "", err
	}
	id, err := s.resolveSession(ctx, ns, id)
	var fe *FieldError
	if errors.As(err, &fe) {
		return "", &FieldError{field, fe.Msg}
	}
	return id, err
}

// resolveSession returns the session a session_id argument names in
// namespace ns: the session of that very id when there is one, else the
// one session whose id is a UUID starting with it when the argument is
// the start of a UUID as a recall shows it (in its case, or when none is,
// in another), else the argument as it is (a session that holds nothing
// is the caller's to report, or to start). Several sessions starting with
// it are a *FieldError on session_id that names them.
func (s *Service) resolveSession(ctx context.Context, ns, id string) (string, error) {
	if !shortForm(id) {
		return id, nil
	}
	// as given first (a label is unique so), then in the other cases
	var found []string
	for _, start := range slices.Compact([]string{id, strings.ToLower(id), strings.ToUpper(id)}) {
		ids, err := s.starting(ctx, ns, start)
		if err != nil {
			return "", err
		}
		if slices.Contains(ids, id) {
			return id, nil
		}
		for _, sid := range ids {
			if isUUID(sid) && !slices.Contains(found, sid) {
				found = append(found, sid)
			}
		}
		if len(found) > 0 {
			break
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		slices.Sort(found)
		more := ""
		if len(found) > maxResolved {
			found, more = found[:maxResolved], " and more"
		}
		return "", &FieldError{"session_id", fmt.Sprintf("%q starts the ids of several sessions of namespace %s (%s%s); give more of the id", id, ns, strings.Join(found, ", "), more)}
	}
	return id, nil
}

// starting returns the session ids of ns that start with start, up to
// maxStarting: a first look at a few, then at all when they fill it.
func (s *Service) starting(ctx context.Context, ns, start string) ([]string, error) {
	for limit := maxResolved + 2; ; limit = maxStarting {
		ids, err := s.store.SessionIDs(ctx, ns, start, limit)
		if err != nil {
			return nil, fmt.Errorf("looking up the sessions of namespace %s that start with %s: %w", ns, start, err)
		}
		if len(ids) < limit || limit == maxStarting {
			return ids, nil
		}
	}
}

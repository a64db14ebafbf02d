package memory

import (
	"cmp"
	"context"
	"slices"
)

// sessionAsItWas is the session Remember compares a call with
// (withForgotten): have, what it holds (or its last turns), with the marks
// of its forgotten turns where the store keeps them (ForgottenTurns).
func (s *Service) sessionAsItWas(ctx context.Context, ns, sessionID string, have []Memory, byKey map[string]string) (seen []Memory, forgot map[string]bool, err error) {
	var gone []Memory
	if ft, ok := s.store.(ForgottenTurns); ok {
		if gone, err = ft.ForgottenTurns(ctx, ns, sessionID); err != nil {
			return nil, nil, err
		}
	}
	seen, forgot = withForgotten(have, gone, byKey)
	return seen, forgot, nil
}

// nextTurn is the position after the last of seen (in turn order): a
// session's next turn, after its forgotten ones too.
func nextTurn(seen []Memory) int {
	if n := len(seen); n > 0 {
		return seen[n-1].Turn + 1
	}
	return 0
}

// withForgotten is the session as Remember compares a call with it: the
// memories it holds (have, in turn order) and the marks of the turns
// forgotten from it (gone), in turn order, so that a resend meets a
// forgotten turn where it was and is not stored again. The marks' client
// ids join byKey (when the store found the call's keys: FindKeys), and
// forgot holds the marks' ids.
func withForgotten(have, gone []Memory, byKey map[string]string) (seen []Memory, forgot map[string]bool) {
	live := make(map[string]bool, len(have))
	for _, m := range have {
		live[m.ID] = true
	}
	// a turn read live and then as forgotten (a forget between the two
	// reads) is compared once, as the turn it was
	gone = slices.DeleteFunc(slices.Clone(gone), func(m Memory) bool { return live[m.ID] })
	forgot = make(map[string]bool, len(gone))
	for _, m := range gone {
		forgot[m.ID] = true
		if m.Key != "" && byKey != nil {
			if _, ok := byKey[m.Key]; !ok {
				byKey[m.Key] = m.ID
			}
		}
	}
	if len(gone) == 0 {
		return have, forgot
	}
	seen = slices.Concat(have, gone)
	slices.SortStableFunc(seen, func(a, b Memory) int { return cmp.Compare(a.Turn, b.Turn) })
	return seen, forgot
}

// byContent marks the turns idx of incoming that start with a tail of the
// session as the resend of that tail: of the session as it was (seen,
// its forgotten turns where they were) or as it is (have), whichever
// tail is the longer, so that a client that dropped a forgotten turn
// from its own copy of the conversation resends the rest as what it is.
func byContent(have, seen []Memory, incoming []turn, idx []int, held []string) {
	o, tail := resentTail(seen, incoming, idx)
	if len(seen) != len(have) {
		if o2, tail2 := resentTail(have, incoming, idx); o2 > o {
			o, tail = o2, tail2
		}
	}
	for j := range o {
		held[idx[j]] = tail[j].ID
	}
}

// resentTail is the longest tail of ms that the turns idx of incoming
// start with, and its length.
func resentTail(ms []Memory, incoming []turn, idx []int) (int, []Memory) {
	for o := min(len(ms), len(idx)); o > 0; o-- {
		tail := ms[len(ms)-o:]
		if slices.EqualFunc(tail, idx[:o], func(m Memory, i int) bool { return m.Hash == incoming[i].Hash }) {
			return o, tail
		}
	}
	return 0, nil
}

// forgottenByContent holds as forgotten each incoming turn still new that
// says what a forgotten turn of seen (its ids in forgot) said: one without
// a key, or one whose key is new where the forgotten turn had none.
func forgottenByContent(seen []Memory, incoming []turn, held []string, forgot map[string]bool) {
	if len(forgot) == 0 {
		return
	}
	said := map[string]Memory{} // a forgotten turn's hash: the first to say it
	for _, m := range seen {
		if _, ok := said[m.Hash]; forgot[m.ID] && !ok {
			said[m.Hash] = m
		}
	}
	for i, t := range incoming {
		if m, ok := said[t.Hash]; ok && held[i] == "" && (t.Key == "" || m.Key == "") {
			held[i] = m.ID
		}
	}
}

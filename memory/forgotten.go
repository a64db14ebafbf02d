package memory

import (
	"cmp"
	"context"
	"slices"
)

// forgottenTurns reads the marks of the session's turns forgotten by
// their ids, where the store keeps them (ForgottenTurns).
func (s *Service) forgottenTurns(ctx context.Context, ns, sessionID string) ([]Memory, error) {
	ft, ok := s.store.(ForgottenTurns)
	if !ok {
		return nil, nil
	}
	return ft.ForgottenTurns(ctx, ns, sessionID)
}

// withForgotten is the session as Remember compares a call with it: the
// memories it holds (have, in turn order) and the marks of the turns
// forgotten from it (gone), in turn order, so that a resend meets a
// forgotten turn where it was and is not stored again. The marks' client
// ids join byKey (when the store found the call's keys: FindKeys), and
// forgot holds the marks' ids.
func withForgotten(have, gone []Memory, byKey map[string]string) (seen []Memory, forgot map[string]bool) {
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

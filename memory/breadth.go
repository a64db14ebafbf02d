package memory

import "slices"

// SessionsFirstAfter is where, in multiples of k, the fill of a recall
// whose k is above DefaultK (a large history's, AutoK) turns to sessions
// it has not shown: past the best SessionsFirstAfter·k candidates, each
// other session's best candidate comes before more turns of the sessions
// already there. In a history of hundreds of sessions a question's answer
// is spread over sessions that rank below the first few's other turns,
// and one passage per session pays a header for each; measured on the
// M-proxy (about 500 sessions a question, k 17), its 200 questions not
// used to choose this gain 2 questions' evidence sessions and lose none,
// at the same turns and answers shown (EVALS.md, "Sessions first past
// the best 1.5k, in large histories").
const SessionsFirstAfter = 1.5

// newSessionsFirst orders hits (and their turns) for a fill of k: the
// best SessionsFirstAfter·k as they are, then the best of each session
// none of those is of, in order, then the rest, in order. At k up to
// DefaultK it leaves them as they are.
func newSessionsFirst(hits []Hit, turns [][]Memory, k int) ([]Hit, [][]Memory) {
	n := int(SessionsFirstAfter*float64(k) + 0.5)
	if k <= DefaultK || n >= len(hits) {
		return hits, turns
	}
	seen := map[string]bool{}
	for _, h := range hits[:n] {
		seen[h.Memory.SessionID] = true
	}
	oh, ot := slices.Clone(hits[:n]), slices.Clone(turns[:n])
	var rh []Hit
	var rt [][]Memory
	for i := n; i < len(hits); i++ {
		if id := hits[i].Memory.SessionID; !seen[id] {
			seen[id] = true
			oh, ot = append(oh, hits[i]), append(ot, turns[i])
		} else {
			rh, rt = append(rh, hits[i]), append(rt, turns[i])
		}
	}
	return append(oh, rh...), append(ot, rt...)
}

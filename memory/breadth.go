package memory

import "slices"

// In a large history's recall (k above DefaultK: AutoK's, or one asked
// for) the fill, past its best SessionsFirstAfter·k candidates, takes the
// sessions it has not shown before more turns of the ones it has: a
// candidate of a session already shown counts SessionShownWeight of its
// chance. In a history of hundreds of sessions a question's answer is
// spread over sessions whose best turn ranks below the first sessions'
// other turns, at about the same chance; a turn of a session shown
// that is several times as likely still comes first, so a question about
// one long session keeps its turns. Measured on the M-proxy (about 500
// sessions a question, k 17; EVALS.md, "Sessions first past the best
// 1.5k, in large histories").
const (
	SessionsFirstAfter = 1.5
	SessionShownWeight = 0.25
)

// newSessionsFirst orders hits (and their turns) for a fill of k: the
// best SessionsFirstAfter·k as they are, then the rest by their chance,
// SessionShownWeight of it for a session already among those before.
// It reads the learned order's chances: where the learned order did not
// score the hits, or at k up to DefaultK, the order stands.
func newSessionsFirst(hits []Hit, turns [][]Memory, k int) ([]Hit, [][]Memory) {
	n := int(SessionsFirstAfter*float64(k) + 0.5)
	if k <= DefaultK || n >= len(hits) || !learnedScored(hits) {
		return hits, turns
	}
	seen := map[string]bool{}
	for _, h := range hits[:n] {
		seen[h.Memory.SessionID] = true
	}
	order := make([]int, n, len(hits)) // the hits' indices, in the new order
	for i := range order {
		order[i] = i
	}
	rest := make([]int, 0, len(hits)-n) // the hits not yet taken, and their weights
	weights := make([]float64, 0, len(hits)-n)
	for i := n; i < len(hits); i++ {
		w := hits[i].Score
		if seen[hits[i].Memory.SessionID] {
			w *= SessionShownWeight
		}
		rest, weights = append(rest, i), append(weights, w)
	}
	for len(rest) > 0 {
		best := 0 // the first of the most likely: ties keep their order
		for j := 1; j < len(rest); j++ {
			if weights[j] > weights[best] {
				best = j
			}
		}
		i := rest[best]
		rest, weights = slices.Delete(rest, best, best+1), slices.Delete(weights, best, best+1)
		order = append(order, i)
		if id := hits[i].Memory.SessionID; !seen[id] {
			seen[id] = true
			for j, r := range rest {
				if hits[r].Memory.SessionID == id {
					weights[j] *= SessionShownWeight
				}
			}
		}
	}
	oh, ot := make([]Hit, len(order)), make([][]Memory, len(order))
	for j, i := range order {
		oh[j], ot[j] = hits[i], turns[i]
	}
	return oh, ot
}

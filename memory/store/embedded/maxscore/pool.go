package maxscore

import "container/heap"

// pool is the best n documents so far, the worst on top, and
// the documents that tie with the worst (ties), so that equal scores at
// the cut can be decided by id once the walk is over: duplicated turns
// score the same, and bleve's internal order among them depends on how
// documents were batched and merged.
type pool struct {
	items []item
	ties  []item // score == items[0].score, not in items
}

type item struct {
	score float64
	id    uint64 // global document number
}

func (h *pool) Len() int { return len(h.items) }
func (h *pool) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.score != b.score {
		return a.score < b.score
	}
	return a.id > b.id
}
func (h *pool) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *pool) Push(x any)    { h.items = append(h.items, x.(item)) }
func (h *pool) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// takes tells whether a document of this score would enter the pool or
// tie with its worst.
func (h *pool) takes(score float64, n int) bool {
	return len(h.items) < n || score >= h.items[0].score
}

// offer adds a document to the pool if it is among the best n, or to the
// ties if it scores as the worst of them.
func (h *pool) offer(score float64, id uint64, n int) {
	if len(h.items) < n {
		heap.Push(h, item{score, id})
		return
	}
	worst := h.items[0]
	switch {
	case score < worst.score:
		return
	case score == worst.score:
		h.ties = append(h.ties, item{score, id})
		return
	}
	h.items[0] = item{score, id}
	heap.Fix(h, 0)
	if worst.score == h.items[0].score {
		h.ties = append(h.ties, worst)
	} else {
		h.ties = h.ties[:0] // they scored as the one that left
	}
}

// all is the pool and its ties.
func (h *pool) all() []item { return append(h.items, h.ties...) }

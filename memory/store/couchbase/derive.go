package couchbase

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// A memory is indexed with its neighbouring turns' text (hybrid.Doc) and
// each page of a session is a document of its own (hybrid.Page), as in the
// embedded store. Inside the transaction of a write, the turns around the
// ones written or deleted are read by key (memory.MemoryID names a turn's
// memory), and every document whose content changes is written with them:
// the memories, the neighbours whose context changes, and their pages.

// neighbourReach is how far a write looks for the nearest turn before and after it,
// across turns deleted in between.
const neighbourReach = 8

// pageKey is the key of page p of a session.
func pageKey(ns, session string, p int) string {
	return key(kindPage, ns, session+"#"+strconv.Itoa(p))
}

// window is the memories of one session read inside a transaction, by turn.
type window struct {
	ns, session string
	docs        map[int]memoryDoc
	results     map[int]*gocb.TransactionGetResult // for a replace
}

// readWindow reads, inside tc, the turns of a session that neighbour the
// given turns (up to neighbourReach away) or share a page with them, except the
// turns in skip.
func (s *Store) readWindow(tc *gocb.TransactionAttemptContext, ns, session string, turns []int, skip map[int]bool) (*window, error) {
	lo, hi := slices.Min(turns), slices.Max(turns)
	from := min(max(lo-neighbourReach, 0), hybrid.PageOf(lo)*hybrid.PageTurns)
	to := max(hi+neighbourReach, (hybrid.PageOf(hi)+1)*hybrid.PageTurns-1)
	keys := make([]string, 0, to-from+1)
	byKey := map[string]int{}
	for t := from; t <= to; t++ {
		if skip[t] {
			continue
		}
		k := memoryKey(ns, memory.MemoryID(session, t))
		keys = append(keys, k)
		byKey[k] = t
	}
	w := &window{ns: ns, session: session, docs: map[int]memoryDoc{}, results: map[int]*gocb.TransactionGetResult{}}
	var mu sync.Mutex
	err := parallelKeys(keys, func(k string) error {
		res, err := tc.Get(s.coll, k)
		if errors.Is(err, gocb.ErrDocumentNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var d memoryDoc
		if err := res.Content(&d); err != nil {
			return fmt.Errorf("decoding memory %s: %w", k, err)
		}
		if d.Namespace != ns || d.SessionID != session {
			return nil
		}
		mu.Lock()
		w.docs[byKey[k]], w.results[byKey[k]] = d, res
		mu.Unlock()
		return nil
	})
	return w, err
}

// derivation is what a write changes in the index, besides the memories it
// writes: neighbours whose context changes, pages to write, pages to remove.
type derivation struct {
	mems       map[string]memoryDoc // the memories written, with their context
	neighbours map[string]neighbour // existing memories whose context changes
	pages      map[string]hybrid.PageDoc
	emptied    []string // page keys with no turn left
}

type neighbour struct {
	res *gocb.TransactionGetResult
	doc memoryDoc
}

// derive computes, from a window read around the turns written (put) and
// deleted (gone), the documents of a session that change.
func derive(w *window, put []memory.Memory, gone []int) derivation {
	d := derivation{mems: map[string]memoryDoc{}, neighbours: map[string]neighbour{}, pages: map[string]hybrid.PageDoc{}}
	// the session as it will be: the window, the memories written
	byTurn := map[int]memory.Memory{}
	for t, doc := range w.docs {
		byTurn[t] = doc.memory()
	}
	written := map[int]bool{}
	for _, m := range put {
		byTurn[m.Turn] = m
		written[m.Turn] = true
	}
	for _, t := range gone {
		delete(byTurn, t)
	}
	turns := make([]int, 0, len(byTurn))
	for t := range byTurn {
		turns = append(turns, t)
	}
	slices.Sort(turns)
	neighboursOf := func(i int) hybrid.Neighbours {
		var n hybrid.Neighbours
		if i > 0 {
			p := byTurn[turns[i-1]]
			n.Prev = &p
		}
		if i+1 < len(turns) {
			x := byTurn[turns[i+1]]
			n.Next = &x
		}
		return n
	}
	changed := map[int]bool{} // turns next to a written or deleted one
	for _, m := range put {
		i, _ := slices.BinarySearch(turns, m.Turn)
		doc := newMemoryDoc(m)
		doc.IndexDoc = hybrid.Doc(m, neighboursOf(i))
		d.mems[memoryKey(m.Namespace, m.ID)] = doc
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(turns) && !written[turns[j]] {
				changed[turns[j]] = true
			}
		}
	}
	for _, t := range gone {
		i, _ := slices.BinarySearch(turns, t) // the first turn after t
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(turns) && !written[turns[j]] {
				changed[turns[j]] = true
			}
		}
	}
	for t := range changed {
		doc, ok := w.docs[t]
		if !ok {
			continue
		}
		i, _ := slices.BinarySearch(turns, t)
		doc.IndexDoc = hybrid.Doc(byTurn[t], neighboursOf(i))
		d.neighbours[memoryKey(w.ns, doc.ID)] = neighbour{res: w.results[t], doc: doc}
	}
	pages := map[int]bool{}
	for _, m := range put {
		pages[hybrid.PageOf(m.Turn)] = true
	}
	for _, t := range gone {
		pages[hybrid.PageOf(t)] = true
	}
	for p := range pages {
		var ms []memory.Memory
		for _, t := range turns {
			if hybrid.PageOf(t) == p {
				ms = append(ms, byTurn[t])
			}
		}
		k := pageKey(w.ns, w.session, p)
		if len(ms) == 0 {
			d.emptied = append(d.emptied, k)
		} else {
			d.pages[k] = hybrid.Page(ms)
		}
	}
	return d
}

// written are the keys a derivation writes, besides the memories.
func (d derivation) written() []string {
	var out []string
	for k := range d.neighbours {
		out = append(out, k)
	}
	for k := range d.pages {
		out = append(out, k)
	}
	return out
}

// apply writes a derivation inside tc: the neighbours' new context and the
// pages (the memories themselves are the caller's).
func (s *Store) apply(tc *gocb.TransactionAttemptContext, d derivation) error {
	keys := append(d.written(), d.emptied...)
	slices.Sort(keys)
	return parallelKeys(keys, func(k string) error {
		if n, ok := d.neighbours[k]; ok {
			return txReplace(tc, n.res, n.doc)
		}
		old, err := tc.Get(s.coll, k)
		notFound := errors.Is(err, gocb.ErrDocumentNotFound)
		if err != nil && !notFound {
			return err
		}
		if p, ok := d.pages[k]; ok {
			if notFound {
				return s.txInsert(tc, k, p)
			}
			return txReplace(tc, old, p)
		}
		if notFound {
			return nil
		}
		return tc.Remove(old)
	})
}

// parallelKeys runs f on keys, opsInFlight at once, and returns the first
// error.
func parallelKeys(keys []string, f func(string) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, opsInFlight)
	for _, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(k); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

package memory

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEmbedWait is how long Remember waits for the vectors of what it
// stores before it stores the memories without them and acknowledges: the
// built-in model embeds about 20 KB a second on one core, so a call of a
// few messages waits, and one of a megabyte (about a minute of embedding)
// is acknowledged within seconds while its vectors are made in the
// background.
const DefaultEmbedWait = 2 * time.Second

// fillBatch is how many pending memories the background filler embeds and
// stores at a time: each batch is durable on its own. Batches of 64 give
// the embedder enough texts to keep every core busy to the end of a call
// (texts of a call are embedded in parallel), and cost one write per 64
// vectors.
const fillBatch = 64

// bulkQuiet and bulkDefer: while remember calls asking for their vectors
// later keep arriving (a bulk import), the filler waits until none came for
// bulkQuiet, so that the import's text is searchable first, but never more
// than bulkDefer in a row.
const (
	bulkQuiet = 300 * time.Millisecond
	bulkDefer = 30 * time.Second
)

// filler makes the vectors of a store's pending memories in the
// background, one batch at a time, until none is left: it embeds a batch
// while the one before it is written. There is one per store, whatever the
// number of services over it.
type filler struct {
	store    PendingVectors
	turns    Store // the same store: the turns before pending memories
	embedder Embedder
	log      *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running bool
	again   bool // kicked while running: look again before stopping

	lastBulk atomic.Int64 // unix nanoseconds of the last remember with vectors later

	// failing is why the last pass stopped, until a pass stores again
	// (nil: it did not fail): a recall says it beside its pending count
	failing atomic.Pointer[error]
}

// failure is why the filler's last pass failed, nil when it did not (or
// since stored vectors again).
func (f *filler) failure() error {
	if f == nil {
		return nil
	}
	if p := f.failing.Load(); p != nil {
		return *p
	}
	return nil
}

var (
	fillersMu sync.Mutex
	fillers   = map[PendingVectors]*filler{}
)

// fillerFor returns the filler of st, made on first use, and whether it was
// made now.
func fillerFor(st PendingVectors, turns Store, e Embedder, log *slog.Logger) (*filler, bool) {
	fillersMu.Lock()
	defer fillersMu.Unlock()
	if f := fillers[st]; f != nil {
		return f, false
	}
	f := &filler{store: st, turns: turns, embedder: e, log: log}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	fillers[st] = f
	return f, true
}

// kick makes sure the filler runs.
func (f *filler) kick() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		return
	}
	if f.running {
		f.again = true
		return
	}
	f.running = true
	f.wg.Add(1)
	go f.run()
}

// bulk notes a remember whose vectors were left to the filler.
func (f *filler) bulk() {
	f.lastBulk.Store(time.Now().UnixNano())
	f.kick()
}

// yieldToBulk waits while bulk remembers keep arriving, at most bulkDefer
// (or until ctx is done).
func (f *filler) yieldToBulk(ctx context.Context) {
	deadline := time.Now().Add(bulkDefer)
	for {
		quiet := time.Since(time.Unix(0, f.lastBulk.Load()))
		if quiet >= bulkQuiet || time.Now().After(deadline) {
			return
		}
		if !sleep(ctx, bulkQuiet-quiet) {
			return
		}
	}
}

// fillResult is an embedded batch on its way to the store.
type fillResult struct {
	ms   []Memory
	prev []*Memory // the turn each was embedded after (storedPrevious)
	err  error
}

func (f *filler) run() {
	defer f.wg.Done()
	backoff := time.Second
	done := 0
	start := time.Now()
	for {
		n, err := f.pass()
		done += n
		if f.ctx.Err() != nil {
			return
		}
		if n > 0 || err == nil {
			f.failing.Store(nil)
		}
		if err != nil {
			// the memories stay pending: try again later
			f.failing.Store(&err)
			f.log.Warn("making the vectors of stored memories; retrying", "err", err, "in", backoff)
			if !sleep(f.ctx, backoff) {
				return
			}
			backoff = min(2*backoff, time.Minute)
			continue
		}
		backoff = time.Second
		f.mu.Lock()
		if !f.again {
			f.running = false
			f.mu.Unlock()
			if done > 0 {
				f.log.Info("vectors made in the background", "memories", done, "took", time.Since(start).Round(time.Millisecond))
			}
			return
		}
		f.again = false
		f.mu.Unlock()
	}
}

// pass embeds and stores pending memories until none is left or a step
// fails, embedding each batch while the one before it is written, and
// returns how many it stored.
func (f *filler) pass() (int, error) {
	fl := &inFlight{keys: map[string]bool{}} // embedded or being written
	ready := make(chan fillResult, 1)
	stop := make(chan struct{}) // closed when a write failed
	go f.embedBatches(fl, ready, stop)
	return f.storeBatches(fl, ready, stop)
}

// inFlight are the pending memories a pass has embedded or is writing
// (by namespace and id), which its next batch leaves out.
type inFlight struct {
	mu   sync.Mutex
	keys map[string]bool
}

// skip is a copy of the memories in flight.
func (fl *inFlight) skip() map[string]bool {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return maps.Clone(fl.keys)
}

// add notes ms in flight.
func (fl *inFlight) add(ms []Memory) {
	fl.mu.Lock()
	for _, m := range ms {
		fl.keys[m.Namespace+"\x1f"+m.ID] = true
	}
	fl.mu.Unlock()
}

// remove notes ms stored.
func (fl *inFlight) remove(ms []Memory) {
	fl.mu.Lock()
	for _, m := range ms {
		delete(fl.keys, m.Namespace+"\x1f"+m.ID)
	}
	fl.mu.Unlock()
}

// embedBatches is a pass's embedding side: it embeds the next batch of
// pending memories not in flight and hands it (or the error that stopped
// it) to ready, until none is left, a step fails, stop is closed or the
// filler ends; then it closes ready.
func (f *filler) embedBatches(fl *inFlight, ready chan<- fillResult, stop <-chan struct{}) {
	defer close(ready)
	for {
		f.yieldToBulk(f.ctx)
		select {
		case <-stop:
			return
		default:
		}
		ms, err := f.next(fl.skip())
		if err == nil && len(ms) == 0 {
			return
		}
		var prev []*Memory
		if err == nil {
			fl.add(ms)
			prev, err = f.embed(ms)
		}
		select {
		case ready <- fillResult{ms, prev, err}:
		case <-stop:
			return
		case <-f.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// storeBatches is a pass's writing side: it stores the vectors of each
// batch from ready until ready is closed, and returns how many memories
// it stored. At the first failure it closes stop and drains ready.
func (f *filler) storeBatches(fl *inFlight, ready <-chan fillResult, stop chan<- struct{}) (int, error) {
	stored := 0
	var failed error
	for r := range ready {
		if failed != nil {
			continue // drain: the embedder stops at its next batch
		}
		err := r.err
		if err == nil {
			err = f.store.SetVectors(f.ctx, r.ms)
		}
		if err == nil {
			err = f.afterForgotten(r)
		}
		if err != nil {
			failed = err
			close(stop)
			continue
		}
		stored += len(r.ms)
		fl.remove(r.ms)
	}
	if failed == nil {
		failed = f.ctx.Err()
	}
	return stored, failed
}

// next reads up to fillBatch pending memories that are not in skip.
func (f *filler) next(skip map[string]bool) ([]Memory, error) {
	ms, err := f.store.PendingVectors(f.ctx, fillBatch+len(skip))
	if err != nil {
		return nil, err
	}
	out := ms[:0]
	for _, m := range ms {
		if !skip[m.Namespace+"\x1f"+m.ID] && len(out) < fillBatch {
			out = append(out, m)
		}
	}
	return out, nil
}

// embed sets the vectors of ms and returns the turn each was embedded
// after. A panic in making them (a bug of ours or of the embedder's on
// some text) is an error of this batch, as an embedder's failure is: it
// runs in the background, where a panic would end the server, and at
// every start after it, as the memories are still pending.
func (f *filler) embed(ms []Memory) (prev []*Memory, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("making the vectors of %d memories from %s panicked: %v", len(ms), ms[0].ID, p)
			f.log.Error("making vectors panicked; the memories stay pending, found by their text", "memories", len(ms), "first", ms[0].ID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	return vectorizeStored(f.ctx, f.turns, f.embedder, ms)
}

// afterForgotten makes again the vectors just stored of the memories of r
// whose previous turn was forgotten while they were made: a forget
// re-embeds only the turns that have their vectors (Service.reembedAfter),
// and these were still pending. Whichever of the two stores last sees the
// other's write, so no vectors keep a forgotten turn's words.
func (f *filler) afterForgotten(r fillResult) error {
	up, ok := f.turns.(VectorUpgrader)
	if !ok {
		return nil
	}
	var again []Memory
	for i, p := range r.prev {
		if p == nil {
			continue
		}
		ts, err := f.turns.Turns(f.ctx, p.Namespace, p.SessionID, p.Turn, p.Turn)
		if err != nil {
			return err
		}
		if len(ts) == 0 || ts[0].ID != p.ID {
			again = append(again, r.ms[i])
		}
	}
	if len(again) == 0 {
		return nil
	}
	return revectorize(f.ctx, f.turns, up, f.embedder, again)
}

// stop ends the filler, waiting for its current batch to stop, and forgets
// it: what is still pending is embedded after the next open.
func (f *filler) stop() {
	fillersMu.Lock()
	if fillers[f.store] == f {
		delete(fillers, f.store)
	}
	fillersMu.Unlock()
	f.cancel()
	f.wg.Wait()
}

// startFiller sets up background vectors for s when its store can hold
// pending memories, and resumes the ones a previous process left pending.
func (s *Service) startFiller() {
	pv, ok := s.store.(PendingVectors)
	if !ok || s.embedder == nil {
		return
	}
	f, made := fillerFor(pv, s.store, s.embedder, s.log)
	s.filler = f
	if !made {
		return
	}
	n, err := pv.CountPending(context.Background(), "")
	if err != nil {
		s.log.Warn("counting memories waiting for vectors", "err", err)
		n = 1 // let the filler look
	}
	if n > 0 {
		s.log.Info("memories stored without vectors are queued for embedding", "memories", n)
		f.kick()
	}
}

// Close stops the background work on the service's store (vectors being
// made are made again after the next open). The store stays open.
func (s *Service) Close() error {
	s.stopUpgrade()
	if s.filler != nil {
		s.filler.stop()
	}
	return nil
}

// put embeds ms and stores them. When the store can hold pending memories,
// the embedding may take up to the service's embed wait: past it, the
// memories are stored without vectors (durable, and their text searchable
// at once) and the filler makes their vectors in the background.
//
// With later set (and such a store), the memories are stored without
// vectors at once, and the filler makes them, in batches, as soon as no
// other such call has come for a moment: the way to store a history in
// bulk.
func (s *Service) put(ctx context.Context, ms, existing []Memory, later bool) error {
	if later && s.embedder != nil && s.filler != nil {
		if err := s.store.Put(ctx, ms); err != nil {
			return err
		}
		s.filler.bulk()
		return nil
	}
	if s.embedder == nil || s.filler == nil || s.embedWait < 0 {
		if err := s.embed(ctx, ms, existing); err != nil {
			return err
		}
		return s.store.Put(ctx, ms)
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := slices.Clone(ms)
	done := make(chan error, 1)
	prev := previousTurns(work, existing)
	go func() { done <- vectorize(ectx, s.embedder, work, prev) }()
	t := time.NewTimer(s.embedWait)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		return s.store.Put(ctx, work)
	case <-t.C:
		cancel() // the filler embeds them again, one batch at a time
		if err := s.store.Put(ctx, ms); err != nil {
			return err
		}
		s.filler.kick()
		return nil
	}
}

// pending counts the memories of namespace ns whose vectors are still to
// be made.
func (s *Service) pending(ctx context.Context, ns string) (int, error) {
	pv, ok := s.store.(PendingVectors)
	if !ok || s.embedder == nil {
		return 0, nil
	}
	return pv.CountPending(ctx, ns)
}

// sleep waits d, or until ctx is done (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

package couchbase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

// opsInFlight bounds the operations one transaction or bulk read runs at
// once: gocb transactions accept concurrent operations on distinct
// documents, and a remember of a long session should not take a round trip
// per turn.
const opsInFlight = 16

// Put stores ms all-or-nothing in one Couchbase transaction (rather than
// writes with compensation, which a crash midway would leave half done):
// every memory document and the manifest of every session they belong to
// commit together, or the transaction rolls back and none is visible. A
// memory whose key exists is replaced, so re-ingest is idempotent.
func (s *Store) Put(ctx context.Context, ms []memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	if err := s.checkPut(ms); err != nil {
		return err
	}
	// a write may add a speaker: the next recall that names someone reads
	// the speakers again, whether the write succeeded or not
	defer s.known.drop(namespacesOf(ms)...)
	docs := make(map[string]memoryDoc, len(ms))
	added := map[string]sessionDoc{} // session key -> the ids this Put adds
	for _, m := range ms {
		docs[memoryKey(m.Namespace, m.ID)] = newMemoryDoc(m)
		sk := sessionKey(m.Namespace, m.SessionID)
		sd, ok := added[sk]
		if !ok {
			sd = sessionDoc{Type: typeSession, NS: m.Namespace, Session: m.SessionID}
		}
		added[sk] = sd.with(m.ID)
	}
	keys := slices.AppendSeq(slices.Collect(maps.Keys(docs)), maps.Keys(added))
	slices.Sort(keys)
	res, err := s.cluster.Transactions().Run(func(tc *gocb.TransactionAttemptContext) error {
		return parallel(ctx, keys, func(k string) error {
			if d, ok := docs[k]; ok {
				return s.txUpsert(tc, k, d)
			}
			return s.txManifest(tc, k, added[k])
		})
	}, &gocb.TransactionOptions{Timeout: s.txTimeout(ctx)})
	if err != nil {
		return s.whyFailed(ctx, err, keys[len(keys)-1], "storing %d memories in %s", len(ms), s.cfg.keyspace())
	}
	s.touch(ctx, res, keys)
	return nil
}

// whyFailed wraps a failed transaction's error. A transaction whose
// collection is gone only expires (its reads and writes retry an unknown
// collection until its time is up), so a plain read of one of its keys
// says whether that is why: then the error names the collection and
// setup, not the timeout.
func (s *Store) whyFailed(ctx context.Context, err error, key, op string, args ...any) error {
	if _, probe := s.manifest(ctx, key); probe != nil && hint(probe, s.cfg) == collectionGone(s.cfg) {
		return wrap(probe, s.cfg, op, args...)
	}
	return wrap(err, s.cfg, op, args...)
}

func (s *Store) checkPut(ms []memory.Memory) error {
	for i, m := range ms {
		if m.Namespace == "" || m.SessionID == "" || m.ID == "" {
			return fmt.Errorf("memory %d has no namespace, session or id", i)
		}
		if len(m.Vectors) == 0 {
			continue
		}
		if m.Embedder != s.embedder {
			return fmt.Errorf("%w: memory %s was embedded by %s, the store holds vectors of %s", memory.ErrEmbedderMismatch, m.ID, describe(m.Embedder, len(m.Vectors[0])), describe(s.embedder, s.dims))
		}
		for w, v := range m.Vectors {
			if len(v) != s.dims {
				return fmt.Errorf("memory %s has a vector of %d dimensions; the store holds %d", m.ID, len(v), s.dims)
			}
			for c, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					return fmt.Errorf("memory %s: component %d of the vector of window %d is %v; vectors must be finite", m.ID, c, w, x)
				}
			}
		}
	}
	return nil
}

// txUpsert writes a memory document inside a transaction: insert when new,
// replace when it exists.
func (s *Store) txUpsert(tc *gocb.TransactionAttemptContext, key string, doc memoryDoc) error {
	old, err := tc.Get(s.coll, key)
	switch {
	case errors.Is(err, gocb.ErrDocumentNotFound):
		err = s.txInsert(tc, key, doc)
	case err == nil:
		err = txReplace(tc, old, doc)
	}
	return err
}

// txInsert and txReplace encode v before they hand it to the transaction:
// gocb v2.11 turns its transcoder's failure into an operation error that
// the transaction commits past (what the attempt staged before it is
// committed), where any other error the attempt returns rolls it back.
// Found on gocaves (TestCavesTransactionFails).
func (s *Store) txInsert(tc *gocb.TransactionAttemptContext, key string, v any) error {
	raw, err := encode(key, v)
	if err != nil {
		return err
	}
	_, err = tc.Insert(s.coll, key, raw)
	return err
}

func txReplace(tc *gocb.TransactionAttemptContext, old *gocb.TransactionGetResult, v any) error {
	raw, err := encode("", v)
	if err != nil {
		return err
	}
	_, err = tc.Replace(old, raw)
	return err
}

func encode(key string, v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		if key == "" {
			return nil, fmt.Errorf("encoding a document: %w", err)
		}
		return nil, fmt.Errorf("encoding document %s: %w", key, err)
	}
	return raw, nil
}

// txManifest adds the ids of add to the session manifest at key.
func (s *Store) txManifest(tc *gocb.TransactionAttemptContext, key string, add sessionDoc) error {
	old, cur, err := txGet[sessionDoc](tc, s.coll, key, "session manifest")
	switch {
	case err != nil:
		return err
	case old == nil:
		return s.txInsert(tc, key, add)
	}
	return txReplace(tc, old, cur.with(add.IDs...))
}

// txGet reads the document at key inside a transaction, decoded into a T
// (what names it in an error); its result is nil when there is none.
func txGet[T any](tc *gocb.TransactionAttemptContext, coll *gocb.Collection, key, what string) (*gocb.TransactionGetResult, T, error) {
	var v T
	res, err := tc.Get(coll, key)
	if errors.Is(err, gocb.ErrDocumentNotFound) {
		return nil, v, nil
	}
	if err != nil {
		return nil, v, err
	}
	if err := res.Content(&v); err != nil {
		return nil, v, fmt.Errorf("decoding %s %s: %w", what, key, err)
	}
	return res, v, nil
}

// touch makes a mutation token for each committed document. Transactions
// return none, and a search waits for tokens (ConsistentWith) to see a
// write; a touch with no expiry changes nothing but the document's sequence
// number, which is after the commit's. When this fails the memories are
// stored all the same; a recall right away may just miss them.
func (s *Store) touch(ctx context.Context, res *gocb.TransactionResult, keys []string) {
	if res != nil && !res.UnstagingComplete {
		s.log.Warn("transaction committed; its documents are being completed in the background, so a recall right away may miss them", "transaction", res.TransactionID)
		return
	}
	ops := make([]gocb.BulkOp, len(keys))
	touches := make([]*gocb.TouchOp, len(keys))
	for i, k := range keys {
		touches[i] = &gocb.TouchOp{ID: k}
		ops[i] = touches[i]
	}
	if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
		s.log.Warn("cannot mark the stored memories for read-your-writes", "err", brief(err))
		return
	}
	var toks []gocb.MutationToken
	for _, t := range touches {
		if t.Err != nil {
			s.log.Warn("cannot mark a stored memory for read-your-writes", "key", t.ID, "err", brief(t.Err))
			continue
		}
		if mt := t.Result.MutationToken(); mt != nil {
			toks = append(toks, *mt)
		}
	}
	s.written.add(time.Now(), toks...)
}

// txTimeout is the transaction's time: the configured one, or less when the
// context ends sooner (gocb transactions take no context).
func (s *Store) txTimeout(ctx context.Context) time.Duration {
	t := s.cfg.TransactionTimeout
	if d, ok := ctx.Deadline(); ok {
		t = min(t, time.Until(d))
	}
	return max(t, time.Millisecond)
}

// parallel runs f on every key with at most opsInFlight at once and returns
// the first error; once one fails or ctx ends, keys not yet started are
// skipped.
func parallel(ctx context.Context, keys []string, f func(string) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return first != nil
	}
	sem := make(chan struct{}, opsInFlight)
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
		if failed() {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			var err error
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic on %s: %v", k, p)
				}
				if err != nil {
					mu.Lock()
					if first == nil || consequence(first) && !consequence(err) {
						first = err
					}
					mu.Unlock()
				}
				<-sem
				wg.Done()
			}()
			err = f(k)
		}()
	}
	wg.Wait()
	return first
}

// consequence reports whether err is a transaction's refusal of an
// operation because an earlier one failed: the earlier one says why.
func consequence(err error) bool {
	return strings.Contains(err.Error(), gocb.ErrPreviousOperationFailed.Error())
}

// namespacesOf is the namespaces of ms, each once.
func namespacesOf(ms []memory.Memory) []string {
	var out []string
	for _, m := range ms {
		if !slices.Contains(out, m.Namespace) {
			out = append(out, m.Namespace)
		}
	}
	return out
}

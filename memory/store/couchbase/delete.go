package couchbase

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

// Delete removes what sel selects and reports how many memories it removed.
// Ids and sessions are removed in one transaction with the manifests they
// appear in. A whole namespace is removed document by document, after a key
// scan: it may hold more than one transaction should, and running it again
// after a failure finishes the job.
func (s *Store) Delete(ctx context.Context, sel memory.Selector) (int, error) {
	if sel.Namespace == "" {
		return 0, errors.New("delete: no namespace")
	}
	// a delete may remove a speaker's last turn (see speakers)
	defer s.known.drop(sel.Namespace)
	var n int
	var err error
	switch {
	case sel.All:
		n, err = s.deleteNamespace(ctx, sel.Namespace)
	case sel.SessionID != "":
		n, err = s.deleteSession(ctx, sel.Namespace, sel.SessionID, sel.Reimport)
	case len(sel.IDs) > 0:
		n, err = s.deleteIDs(ctx, sel.Namespace, sel.IDs)
	}
	if err == nil && n > 0 && s.embedder != "" && s.Recipe() != s.cfg.Recipe {
		err = s.recordRecipeIfEmpty(ctx)
	}
	return n, err
}

// recordRecipeIfEmpty records the configured recipe when the collection
// holds no memory any more: it holds no vectors of an earlier recipe, and
// the memories it takes next are of this one.
func (s *Store) recordRecipeIfEmpty(ctx context.Context) error {
	empty, err := s.empty(ctx)
	if err != nil || !empty {
		return err
	}
	return s.putMeta(ctx, s.embedder, s.dims)
}

func (s *Store) deleteIDs(ctx context.Context, ns string, ids []string) (int, error) {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, memoryKey(ns, id))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var n int
	_, err := s.cluster.Transactions().Run(func(tc *gocb.TransactionAttemptContext) error {
		var mu sync.Mutex
		n = 0
		gone := map[string][]memoryDoc{} // session -> removed memories
		err := parallel(ctx, keys, func(k string) error {
			d, ok, err := s.txRemove(tc, ns, k)
			if err != nil || !ok {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			n++
			gone[d.SessionID] = append(gone[d.SessionID], d)
			return nil
		})
		if err != nil {
			return err
		}
		return parallel(ctx, slices.Collect(maps.Keys(gone)), func(sess string) error {
			return s.txShrink(tc, sessionKey(ns, sess), gone[sess])
		})
	}, &gocb.TransactionOptions{Timeout: s.txTimeout(ctx)})
	if err != nil {
		return 0, wrap(err, s.cfg, "deleting %d memories from namespace %s", len(keys), ns)
	}
	return n, nil
}

// deleteSession removes a session's memories, marking each as forgotten
// in its manifest (memory.ForgottenTurns), or, with reimport, the
// manifest too, marks and all.
func (s *Store) deleteSession(ctx context.Context, ns, sess string, reimport bool) (int, error) {
	var n int
	_, err := s.cluster.Transactions().Run(func(tc *gocb.TransactionAttemptContext) error {
		man, sd, err := txGet[sessionDoc](tc, s.coll, sessionKey(ns, sess), "session manifest")
		if err != nil || man == nil {
			return err
		}
		keys := make([]string, len(sd.IDs))
		for i, id := range sd.IDs {
			keys[i] = memoryKey(ns, id)
		}
		var mu sync.Mutex
		var gone []memoryDoc
		err = parallel(ctx, keys, func(k string) error {
			d, ok, err := s.txRemove(tc, ns, k)
			if ok {
				mu.Lock()
				gone = append(gone, d)
				mu.Unlock()
			}
			return err
		})
		n = len(gone)
		switch {
		case err != nil:
			return err
		case reimport:
			return tc.Remove(man)
		}
		return txReplace(tc, man, sd.without(gone))
	}, &gocb.TransactionOptions{Timeout: s.txTimeout(ctx)})
	if err != nil {
		return 0, wrap(err, s.cfg, "deleting session %s of namespace %s", sess, ns)
	}
	return n, nil
}

// txRemove removes the memory of ns at key inside a transaction and returns
// what it held; ok is false when there was none.
func (s *Store) txRemove(tc *gocb.TransactionAttemptContext, ns, key string) (d memoryDoc, ok bool, err error) {
	res, d, err := txGet[memoryDoc](tc, s.coll, key, "memory")
	if err != nil || res == nil {
		return d, false, err
	}
	if d.Namespace != ns {
		return d, false, nil // keys embed the namespace; this cannot happen
	}
	return d, true, tc.Remove(res)
}

// txShrink removes the memories gone, forgotten by their ids, from the
// session manifest at key, where it marks them as forgotten
// (memory.ForgottenTurns).
func (s *Store) txShrink(tc *gocb.TransactionAttemptContext, key string, gone []memoryDoc) error {
	res, sd, err := txGet[sessionDoc](tc, s.coll, key, "session manifest")
	if err != nil || res == nil {
		return err
	}
	return txReplace(tc, res, sd.without(gone))
}

// deleteNamespace removes every memory and manifest whose key has the
// namespace's prefix, and the session pages an older agentmem wrote. The
// scan is consistent with this Store's own writes.
func (s *Store) deleteNamespace(ctx context.Context, ns string) (int, error) {
	n := 0
	for _, kind := range []string{kindMemory, kindSess, kindPage} {
		keys, err := s.scanKeys(ctx, nsPrefix(kind, ns))
		if err != nil {
			return n, err
		}
		for chunk := range slices.Chunk(keys, 256) {
			ops := make([]gocb.BulkOp, len(chunk))
			rms := make([]*gocb.RemoveOp, len(chunk))
			for i, k := range chunk {
				rms[i] = &gocb.RemoveOp{ID: k}
				ops[i] = rms[i]
			}
			if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
				return n, wrap(err, s.cfg, "deleting namespace %s (%d memories deleted so far; run it again to finish)", ns, n)
			}
			for _, r := range rms {
				switch {
				case r.Err == nil:
					if kind == kindMemory {
						n++
					}
					s.written.add(time.Now(), tokenOf(r.Result)...)
				case errors.Is(r.Err, gocb.ErrDocumentNotFound):
				default:
					return n, wrap(r.Err, s.cfg, "deleting namespace %s (%d memories deleted so far; run it again to finish)", ns, n)
				}
			}
		}
	}
	return n, nil
}

func tokenOf(r *gocb.MutationResult) []gocb.MutationToken {
	if r == nil || r.MutationToken() == nil {
		return nil
	}
	return []gocb.MutationToken{*r.MutationToken()}
}

// scanKeys lists the keys that start with prefix.
func (s *Store) scanKeys(ctx context.Context, prefix string) ([]string, error) {
	res, err := s.coll.Scan(gocb.NewRangeScanForPrefix(prefix), &gocb.ScanOptions{
		Context: ctx, IDsOnly: true, ConsistentWith: s.written.state(time.Now()),
	})
	if err != nil {
		return nil, wrap(err, s.cfg, "listing the keys %s* of %s", prefix, s.cfg.keyspace())
	}
	defer res.Close()
	var keys []string
	for it := res.Next(); it != nil; it = res.Next() {
		keys = append(keys, it.ID())
	}
	if err := res.Err(); err != nil {
		return nil, wrap(err, s.cfg, "listing the keys %s* of %s", prefix, s.cfg.keyspace())
	}
	return keys, nil
}

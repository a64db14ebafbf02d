package couchbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

var _ memory.VectorUpgrader = (*Store)(nil)

// ReplaceVectors stores the vectors of memories the collection holds with
// the same text (Hash) and embedder, replacing theirs. Each document is
// replaced only as it was read (its CAS), so a memory deleted or rewritten
// meanwhile keeps what it has; the rest of the document is unchanged.
func (s *Store) ReplaceVectors(ctx context.Context, ms []memory.Memory) (int, error) {
	if err := s.checkPut(ms); err != nil {
		return 0, err
	}
	for _, m := range ms {
		if len(m.Vectors) == 0 {
			return 0, fmt.Errorf("memory %s has no vectors to replace theirs with", m.ID)
		}
	}
	n := 0
	for chunk := range slices.Chunk(ms, 256) {
		ops := make([]gocb.BulkOp, len(chunk))
		gets := make([]*gocb.GetOp, len(chunk))
		for i, m := range chunk {
			gets[i] = &gocb.GetOp{ID: memoryKey(m.Namespace, m.ID)}
			ops[i] = gets[i]
		}
		if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
			return n, wrap(err, s.cfg, "reading %d memories from %s", len(chunk), s.cfg.keyspace())
		}
		var reps []*gocb.ReplaceOp
		for i, g := range gets {
			if errors.Is(g.Err, gocb.ErrDocumentNotFound) {
				continue
			}
			if g.Err != nil {
				return n, wrap(g.Err, s.cfg, "reading memory %s", g.ID)
			}
			var d memoryDoc
			if err := g.Result.Content(&d); err != nil {
				return n, fmt.Errorf("decoding memory %s: %w", g.ID, err)
			}
			if d.Hash != chunk[i].Hash || d.Embedder != chunk[i].Embedder {
				continue // another text since, or no vectors yet
			}
			d.Vector = chunk[i].Vectors
			reps = append(reps, &gocb.ReplaceOp{ID: g.ID, Value: d, Cas: g.Result.Cas()})
		}
		if len(reps) == 0 {
			continue
		}
		ops = ops[:0]
		for _, r := range reps {
			ops = append(ops, r)
		}
		if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
			return n, wrap(err, s.cfg, "replacing the vectors of %d memories", len(reps))
		}
		for _, r := range reps {
			switch {
			case r.Err == nil:
				n++
				s.written.add(time.Now(), tokenOf(r.Result)...)
			case errors.Is(r.Err, gocb.ErrCasMismatch), errors.Is(r.Err, gocb.ErrDocumentNotFound):
				// changed or deleted since it was read: it keeps what it has
			default:
				return n, wrap(r.Err, s.cfg, "replacing the vectors of memory %s", r.ID)
			}
		}
	}
	return n, nil
}

// RecordRecipe records the recipe the store was opened with (Config.Recipe)
// in the meta document, as that of every memory's vectors.
func (s *Store) RecordRecipe(ctx context.Context) error {
	return s.putMeta(ctx, s.embedder, s.dims)
}

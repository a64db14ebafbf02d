package couchbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

var _ memory.Reindexer = (*Store)(nil)

// reindexBatch is how many memories are embedded and written at a time: an
// interrupted reindex keeps what it finished and can simply be run again.
const reindexBatch = 256

// OpenForReindex opens the store whatever embedder its vectors were made
// with, for Reindex. Run `agentmem couchbase setup` with the new embedder
// first, so that the index has its dimensions.
func OpenForReindex(ctx context.Context, cfg Config) (*Store, error) {
	s, err := dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cfg, cluster := s.cfg, s.cluster
	res, err := s.coll.Get(metaKey, &gocb.GetOptions{Context: ctx})
	switch {
	case err == nil:
		var meta metaDoc
		if err := res.Content(&meta); err != nil {
			cluster.Close(nil)
			return nil, fmt.Errorf("decoding the meta document %s of %s: %w", metaKey, cfg.keyspace(), err)
		}
		s.embedder, s.dims = meta.Embedder, meta.Dims
		s.setRecipe(meta.Recipe)
	case !errors.Is(err, gocb.ErrDocumentNotFound):
		cluster.Close(nil)
		return nil, wrap(err, cfg, "reading the store's meta document from %s", cfg.keyspace())
	}
	return s, nil
}

// Reindex passes every memory of the collection through vectorize in place
// and records (id, dims) as the store's embedder (see memory.Reindexer).
func (s *Store) Reindex(ctx context.Context, id string, dims int, vectorize func(context.Context, []memory.Memory) error, progress func(done, total int)) error {
	if err := s.checkIndex(ctx, dims); err != nil {
		return err
	}
	keys, err := s.scanKeys(ctx, kindMemory+sep)
	if err != nil {
		return err
	}
	slices.Sort(keys)
	for start := 0; start < len(keys); start += reindexBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := keys[start:min(start+reindexBatch, len(keys))]
		if err := s.reembed(ctx, chunk, vectorize); err != nil {
			return err
		}
		if progress != nil {
			progress(start+len(chunk), len(keys))
		}
	}
	return s.recordEmbedder(ctx, id, dims)
}

// reembed rewrites the memories at keys with the vectors vectorize gives
// them, and their searchable fields as this version derives them. A
// memory deleted meanwhile stays deleted.
func (s *Store) reembed(ctx context.Context, keys []string, vectorize func(context.Context, []memory.Memory) error) error {
	docs, err := s.memories(ctx, keys)
	if err != nil {
		return err
	}
	present := make([]string, 0, len(docs))
	ms := make([]memory.Memory, 0, len(docs))
	for _, k := range keys {
		if d, ok := docs[k]; ok {
			present = append(present, k)
			ms = append(ms, d.memory())
		}
	}
	if len(ms) > 0 {
		if err := vectorize(ctx, ms); err != nil {
			return err
		}
	}
	ops := make([]gocb.BulkOp, len(present))
	reps := make([]*gocb.ReplaceOp, len(present))
	for i, k := range present {
		d := docs[k]
		d.Vector, d.Embedder = ms[i].Vectors, ms[i].Embedder
		// the searchable fields derived again, so that a reindex also
		// brings a document an earlier agentmem wrote up to this one's
		// hybrid.DocVersion (its kinds, hybrid.FieldKinds)
		d.IndexDoc = hybrid.Doc(ms[i])
		reps[i] = &gocb.ReplaceOp{ID: k, Value: d}
		ops[i] = reps[i]
	}
	if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
		return wrap(err, s.cfg, "rewriting %d memories", len(ops))
	}
	for _, r := range reps {
		switch {
		case r.Err == nil:
			s.written.add(time.Now(), tokenOf(r.Result)...)
		case errors.Is(r.Err, gocb.ErrDocumentNotFound):
		default:
			return wrap(r.Err, s.cfg, "rewriting memory %s", r.ID)
		}
	}
	return nil
}

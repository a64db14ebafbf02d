package couchbase

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/couchbase/gocb/v2"
	"golang.org/x/sync/errgroup"

	"agentmem/memory"
)

var _ memory.VectorUpgrader = (*Store)(nil)

// replaceParallel is how many documents ReplaceVectors writes at once.
const replaceParallel = 16

// ReplaceVectors stores the vectors of memories the collection holds with
// the same text (Hash) and embedder, replacing theirs: a subdocument write
// of the vector field alone, by the CAS the document was read with, so a
// memory deleted or rewritten meanwhile keeps what it has and the rest of
// the document is left as it is.
func (s *Store) ReplaceVectors(ctx context.Context, ms []memory.Memory) (int, error) {
	if err := s.checkPut(ms); err != nil {
		return 0, err
	}
	for _, m := range ms {
		if len(m.Vectors) == 0 {
			return 0, fmt.Errorf("memory %s has no vectors to replace its own with", m.ID)
		}
	}
	var n atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(replaceParallel)
	for _, m := range ms {
		g.Go(func() error {
			ok, err := s.replaceVectors(gctx, m)
			if ok {
				n.Add(1)
			}
			return err
		})
	}
	err := g.Wait()
	return int(n.Load()), err
}

// replaceVectors replaces m's vectors if the collection holds m with the
// same text and embedder, and reports whether it did.
func (s *Store) replaceVectors(ctx context.Context, m memory.Memory) (bool, error) {
	k := memoryKey(m.Namespace, m.ID)
	// the two fields it checks, not the document with its vectors
	res, err := s.coll.Get(k, &gocb.GetOptions{Context: ctx, Project: []string{"hash", "embedder"}})
	if errors.Is(err, gocb.ErrDocumentNotFound) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err, s.cfg, "reading memory %s", m.ID)
	}
	var d memoryDoc
	if err := res.Content(&d); err != nil {
		return false, fmt.Errorf("decoding memory %s: %w", m.ID, err)
	}
	if d.Hash != m.Hash || d.Embedder != m.Embedder {
		return false, nil // another text since, or no vectors yet
	}
	return s.writeVectors(ctx, k, m.Vectors, res.Cas())
}

// writeVectors writes the vector field of the document at k if its CAS is
// still cas, and reports whether it did: a document changed or deleted
// since keeps what it has.
func (s *Store) writeVectors(ctx context.Context, k string, vs [][]float32, cas gocb.Cas) (bool, error) {
	mut, err := s.coll.MutateIn(k, []gocb.MutateInSpec{gocb.UpsertSpec("vector", vs, nil)},
		&gocb.MutateInOptions{Context: ctx, Cas: cas})
	switch {
	case err == nil:
		s.written.add(time.Now(), tokenOf(&mut.MutationResult)...)
		return true, nil
	// gocb reports a subdocument write's CAS mismatch as ErrDocumentExists
	case errors.Is(err, gocb.ErrCasMismatch), errors.Is(err, gocb.ErrDocumentExists), errors.Is(err, gocb.ErrDocumentNotFound):
		return false, nil
	default:
		return false, wrap(err, s.cfg, "replacing the vectors of %s", k)
	}
}

// RecordRecipe records the recipe the store was opened with (Config.Recipe)
// in the meta document, as that of every memory's vectors: by the CAS it
// read the document with, and only while it still names this store's
// embedder, so that a reindex to another embedder meanwhile (by another
// server on the collection) is not undone.
func (s *Store) RecordRecipe(ctx context.Context) error {
	res, err := s.coll.Get(metaKey, &gocb.GetOptions{Context: ctx})
	if errors.Is(err, gocb.ErrDocumentNotFound) {
		return s.putMeta(ctx, s.embedder, s.dims)
	}
	if err != nil {
		return wrap(err, s.cfg, "reading the store's meta document from %s", s.cfg.keyspace())
	}
	var meta metaDoc
	if err := res.Content(&meta); err != nil {
		return fmt.Errorf("decoding the meta document %s of %s: %w", metaKey, s.cfg.keyspace(), err)
	}
	if meta.Embedder != s.embedder || meta.Dims != s.dims {
		return fmt.Errorf("%w: %s now holds vectors of %s, not of %s this server was opened with: the recipe is left as it is", memory.ErrEmbedderMismatch, s.cfg.keyspace(), describe(meta.Embedder, meta.Dims), describe(s.embedder, s.dims))
	}
	meta.Recipe, meta.Updated = s.cfg.Recipe, time.Now().UTC()
	if meta.Embedder == "" {
		meta.Recipe = ""
	}
	if _, err := s.coll.Replace(metaKey, meta, &gocb.ReplaceOptions{Context: ctx, Cas: res.Cas()}); err != nil {
		return wrap(err, s.cfg, "recording the recipe in %s", s.cfg.keyspace())
	}
	s.setRecipe(meta.Recipe)
	return nil
}

package embedded

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

var _ memory.VectorUpgrader = (*Store)(nil)

// ReplaceVectors stores the vectors of memories the store holds with the
// same text (Hash) and embedder, replacing theirs, while the store serves:
// one transaction, journalled as SetVectors' are, so that a vector
// snapshot older than it is brought up to date at open. A memory deleted,
// changed, or still pending since it was read is skipped.
func (s *Store) ReplaceVectors(ctx context.Context, ms []memory.Memory) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if len(m.Vectors) == 0 {
			return 0, fmt.Errorf("memory %s has no vectors to replace its own with", m.ID)
		}
		if m.Embedder != s.embedderID {
			return 0, fmt.Errorf("memory %s has vectors of %q, but the store holds %s", m.ID, m.Embedder, describe(s.embedderID, s.dims))
		}
		if err := checkVectors(m, s.dims); err != nil {
			return 0, err
		}
	}
	var set []memory.Memory
	var keys []string
	var seq uint64
	err := s.update(func(tx *bolt.Tx) error {
		mem, vec := tx.Bucket(bucketMem), tx.Bucket(bucketVec)
		for _, m := range ms {
			k := []byte(key(m.Namespace, m.ID))
			raw := mem.Get(k)
			if raw == nil {
				continue
			}
			stored, err := decode(raw)
			if err != nil {
				return err
			}
			if stored.Hash != m.Hash || stored.Embedder != m.Embedder {
				continue // another text since, or pending (no embedder)
			}
			if err := vec.Put(k, encodeVectors(m.Vectors)); err != nil {
				return err
			}
			stored.Vectors = m.Vectors
			set = append(set, stored)
			keys = append(keys, string(k))
		}
		if len(keys) == 0 {
			return nil
		}
		var err error
		seq, err = s.journal(tx, keys, false)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("replacing the vectors of %d memories: %w", len(ms), err)
	}
	if seq > 0 {
		s.seq = seq // the text is unchanged: no index needs this entry
	}
	return len(set), s.vecPut(set)
}

// RecordRecipe records the recipe the store was opened with
// (Options.Recipe) as that of its vectors.
func (s *Store) RecordRecipe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var recipe string
	if err := s.update(func(tx *bolt.Tx) (err error) {
		recipe, err = putMeta(tx.Bucket(bucketMeta), s.embedderID, s.dims, s.wantRecipe)
		return err
	}); err != nil {
		return fmt.Errorf("recording the recipe of the vectors: %w", err)
	}
	s.recipe = recipe
	return nil
}

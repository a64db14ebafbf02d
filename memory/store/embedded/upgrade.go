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
// one transaction, journalled as SetVectors' are (storeVectors). A memory
// deleted, changed, or still pending since it was read is skipped.
func (s *Store) ReplaceVectors(ctx context.Context, ms []memory.Memory) (int, error) {
	for _, m := range ms {
		if len(m.Vectors) == 0 {
			return 0, fmt.Errorf("memory %s has no vectors to replace its own with", m.ID)
		}
	}
	return s.storeVectors(ctx, ms, func(_ *bolt.Tx, _ []byte, m memory.Memory, stored *memory.Memory) (bool, error) {
		// not another text since, nor pending (no embedder)
		return stored != nil && stored.Hash == m.Hash && stored.Embedder == m.Embedder, nil
	})
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

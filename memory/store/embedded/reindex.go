package embedded

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// reindexBatch is how many memories are embedded and written per transaction:
// an interrupted reindex keeps what it finished, and can simply be run again.
const reindexBatch = 256

// Reindex passes every memory through vectorize in place and records
// (id, dims) as the store's embedder (see memory.Reindexer).
func (s *Store) Reindex(ctx context.Context, id string, dims int, vectorize func(context.Context, []memory.Memory) error, progress func(done, total int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// the records change without the journal from the first batch: no
	// snapshot holds from then on, and the vectors in memory, which the
	// close would save as one, are the old embedder's (they are loaded
	// again at the end; a reindex cut short leaves the next open to load
	// the records, without the memories already re-embedded)
	if err := s.dropSnapshots(); err != nil {
		return err
	}
	s.emptyVectors()
	keys, err := s.memoryKeys()
	if err != nil {
		return err
	}
	for start := 0; start < len(keys); start += reindexBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := keys[start:min(start+reindexBatch, len(keys))]
		ms, err := s.memoriesOf(chunk)
		if err != nil {
			return err
		}
		if err := vectorize(ctx, ms); err != nil {
			return err
		}
		if err := s.putReindexed(chunk, ms, id, dims); err != nil {
			return err
		}
		if progress != nil {
			progress(start+len(chunk), len(keys))
		}
	}
	var recipe string
	if err := s.update(func(tx *bolt.Tx) (err error) {
		recipe, err = putMeta(tx.Bucket(bucketMeta), id, dims, s.wantRecipe)
		return err
	}); err != nil {
		return err
	}
	s.embedderID, s.dims, s.recipe = id, dims, recipe
	// the records changed without the journal: no snapshot holds
	if err := s.dropSnapshots(); err != nil {
		return err
	}
	return s.guard(s.loadVectors)
}

// memoryKeys is the key of every memory of the store, copied out of the
// transaction.
func (s *Store) memoryKeys() ([][]byte, error) {
	var keys [][]byte
	if err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMem).ForEach(func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		})
	}); err != nil {
		return nil, err
	}
	return keys, nil
}

// memoriesOf decodes the memories of keys.
func (s *Store) memoriesOf(keys [][]byte) ([]memory.Memory, error) {
	ms := make([]memory.Memory, 0, len(keys))
	if err := s.view(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		for _, k := range keys {
			m, err := decode(mem.Get(k))
			if err != nil {
				return err
			}
			ms = append(ms, m)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return ms, nil
}

// putReindexed writes ms, the memories of keys re-embedded, in one
// transaction, refusing one not embedded by id in dims dimensions, and
// clears their pending marks.
func (s *Store) putReindexed(keys [][]byte, ms []memory.Memory, id string, dims int) error {
	return s.update(func(tx *bolt.Tx) error {
		mem, vec := tx.Bucket(bucketMem), tx.Bucket(bucketVec)
		for i, m := range ms {
			k := keys[i]
			if m.Embedder != id {
				return fmt.Errorf("memory %s was embedded by %q during a reindex to %q", m.ID, m.Embedder, id)
			}
			for _, v := range m.Vectors {
				if len(v) != dims {
					return fmt.Errorf("memory %s has a %d-dimensional vector during a reindex to %d dimensions", m.ID, len(v), dims)
				}
			}
			if err := putRecord(mem, vec, k, m); err != nil {
				return err
			}
			if err := unmarkPending(tx, k); err != nil {
				return err
			}
		}
		return nil
	})
}

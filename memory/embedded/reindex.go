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

// Reindex re-embeds every memory with e (nil: drop all vectors) in place and
// records e as the store's embedder.
func (s *Store) Reindex(ctx context.Context, e memory.Embedder, progress func(done, total int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, dims := "", 0
	if e != nil {
		id, dims = e.ID(), e.Dims()
	}
	var keys [][]byte
	if err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMem).ForEach(func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		})
	}); err != nil {
		return err
	}
	for start := 0; start < len(keys); start += reindexBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := keys[start:min(start+reindexBatch, len(keys))]
		ms := make([]memory.Memory, 0, len(chunk))
		if err := s.db.View(func(tx *bolt.Tx) error {
			mem := tx.Bucket(bucketMem)
			for _, k := range chunk {
				m, err := decode(mem.Get(k))
				if err != nil {
					return err
				}
				ms = append(ms, m)
			}
			return nil
		}); err != nil {
			return err
		}
		var vecs [][][]float32
		if e != nil {
			texts := make([]string, len(ms))
			for i, m := range ms {
				texts[i] = m.EmbedText()
			}
			var err error
			if vecs, err = memory.EmbedDocuments(ctx, e, texts); err != nil {
				return fmt.Errorf("embedding with %s: %w", id, err)
			}
		}
		if err := s.db.Update(func(tx *bolt.Tx) error {
			mem, vec := tx.Bucket(bucketMem), tx.Bucket(bucketVec)
			for i, m := range ms {
				k := chunk[i]
				m.Embedder = id
				raw, err := encode(m)
				if err != nil {
					return err
				}
				if err := mem.Put(k, raw); err != nil {
					return err
				}
				if e != nil {
					err = vec.Put(k, encodeVectors(vecs[i]))
				} else {
					err = vec.Delete(k)
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		if progress != nil {
			progress(start+len(chunk), len(keys))
		}
	}
	if err := s.db.Update(func(tx *bolt.Tx) error {
		return putMeta(tx.Bucket(bucketMeta), id, dims)
	}); err != nil {
		return err
	}
	s.embedderID, s.dims = id, dims
	s.vectors = map[string]*space{}
	return s.loadVectors()
}

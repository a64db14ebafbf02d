package embedded

import (
	"bytes"
	"context"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// Memories stored before their vectors are made (see memory.PendingVectors)
// are listed in the pending bucket, by memory key, with their content hash:
// written in the transaction that stores the memory, removed in the one
// that stores its vectors or deletes it, so a crash in between leaves the
// memory listed, and the next open embeds it.
var bucketPending = []byte("pending")

var _ memory.PendingVectors = (*Store)(nil)

// isPending says whether Put takes m as a memory whose vectors come later:
// no vectors and no embedder, in a store that keeps vectors.
func (s *Store) isPending(m memory.Memory) bool {
	return s.embedderID != "" && m.Embedder == "" && len(m.Vectors) == 0
}

// markPending lists (or unlists) the memory m stored under k in tx.
func (s *Store) markPending(tx *bolt.Tx, k []byte, m memory.Memory) error {
	if s.isPending(m) {
		b, err := tx.CreateBucketIfNotExists(bucketPending)
		if err != nil {
			return err
		}
		return b.Put(k, []byte(m.Hash))
	}
	return unmarkPending(tx, k)
}

func unmarkPending(tx *bolt.Tx, k []byte) error {
	if b := tx.Bucket(bucketPending); b != nil {
		return b.Delete(k)
	}
	return nil
}

// PendingVectors returns up to n memories stored without their vectors
// yet, in key order.
func (s *Store) PendingVectors(ctx context.Context, n int) ([]memory.Memory, error) {
	var out []memory.Memory
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPending)
		if b == nil {
			return nil
		}
		mem := tx.Bucket(bucketMem)
		c := b.Cursor()
		for k, _ := c.First(); k != nil && len(out) < n; k, _ = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, err := getMemory(mem, k)
			if err != nil {
				return err
			}
			if m == nil {
				continue
			}
			out = append(out, *m)
		}
		return nil
	})
	return out, err
}

// CountPending counts the memories of namespace ns ("" for all) still
// waiting for their vectors.
func (s *Store) CountPending(ctx context.Context, ns string) (int, error) {
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPending)
		if b == nil {
			return nil
		}
		var prefix []byte
		if ns != "" {
			prefix = []byte(ns + "\x1f")
		}
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// SetVectors stores the vectors of memories stored pending. A memory that
// is no longer pending (deleted, or replaced since) is skipped: its
// vectors were made from a text the store no longer holds.
func (s *Store) SetVectors(ctx context.Context, ms []memory.Memory) error {
	_, err := s.storeVectors(ctx, ms, func(tx *bolt.Tx, k []byte, m memory.Memory, stored *memory.Memory) (bool, error) {
		b := tx.Bucket(bucketPending)
		if b == nil {
			return false, nil
		}
		hash := b.Get(k)
		if hash == nil || stored == nil {
			return false, nil
		}
		if err := b.Delete(k); err != nil {
			return false, err
		}
		if string(hash) != m.Hash || stored.Hash != m.Hash || stored.Embedder != "" {
			return false, nil // another text, or vectors already made (a reindex)
		}
		stored.Embedder = m.Embedder
		raw, err := encode(*stored)
		if err != nil {
			return false, err
		}
		return true, tx.Bucket(bucketMem).Put(k, raw)
	})
	return err
}

// storeVectors stores the vectors of the memories of ms that take says to
// (given the stored memory, nil when there is none; it may change the
// record), in one transaction, journalled so that a vector snapshot older
// than it is brought up to date at open (snapshot.go), then puts them in
// the vector indexes; it returns how many it stored.
func (s *Store) storeVectors(ctx context.Context, ms []memory.Memory, take func(tx *bolt.Tx, k []byte, m memory.Memory, stored *memory.Memory) (bool, error)) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if m.Embedder != s.embedderID {
			return 0, fmt.Errorf("memory %s was embedded by %q, but the store holds %s", m.ID, m.Embedder, describe(s.embedderID, s.dims))
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
			stored, err := getMemory(mem, k)
			if err != nil {
				return err
			}
			if ok, err := take(tx, k, m, stored); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			if len(m.Vectors) > 0 {
				if err := vec.Put(k, encodeVectors(m.Vectors)); err != nil {
					return err
				}
			}
			stored.Vectors = m.Vectors
			set = append(set, *stored)
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
		return 0, fmt.Errorf("storing the vectors of %d memories: %w", len(ms), err)
	}
	if seq > 0 {
		s.seq = seq // the text is unchanged: no index needs this entry
	}
	return len(set), s.vecPut(set)
}

// checkVectors refuses vectors of the wrong length or with a non-finite
// component.
func checkVectors(m memory.Memory, dims int) error {
	for _, v := range m.Vectors {
		if len(v) != dims {
			return fmt.Errorf("memory %s has a %d-dimensional vector; the store holds %d dimensions", m.ID, len(v), dims)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("memory %s has a vector with a non-finite component (%v)", m.ID, x)
			}
		}
	}
	return nil
}

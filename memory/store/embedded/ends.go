package embedded

import (
	"bytes"
	"context"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

var _ memory.SessionEnds = (*Store)(nil)

// SessionEnds reads a session's first memory and its last n, seeking to
// both ends of its run of session keys: the cost does not grow with the
// session's length (see memory.SessionEnds).
func (s *Store) SessionEnds(ctx context.Context, ns, session string, n int) (*memory.Memory, []memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var first *memory.Memory
	var last []memory.Memory
	err := s.view(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		prefix := sessionPrefix(ns, session)
		inSession := func(k []byte) bool { return len(k) == len(prefix)+4 && bytes.HasPrefix(k, prefix) }
		load := func(id []byte) (*memory.Memory, error) {
			return getMemory(mem, []byte(key(ns, string(id))))
		}
		c := tx.Bucket(bucketSession).Cursor()
		k, id := c.Seek(sessionKey(ns, session, 0))
		for ; k != nil && inSession(k) && first == nil; k, id = c.Next() {
			m, err := load(id)
			if err != nil {
				return err
			}
			first = m
		}
		if first == nil {
			return nil
		}
		// from the session's last key backwards
		k, id = c.Seek(sessionKey(ns, session, math.MaxUint32))
		switch {
		case k == nil:
			k, id = c.Last()
		case !inSession(k):
			k, id = c.Prev()
		}
		for ; k != nil && inSession(k) && len(last) < n; k, id = c.Prev() {
			m, err := load(id)
			if err != nil {
				return err
			}
			if m != nil {
				last = append(last, *m)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Reverse(last)
	return first, last, nil
}

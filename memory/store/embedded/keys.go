package embedded

import (
	"context"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// The keys bucket finds a memory by its client key (the message id a
// client sent) within its session: namespace 0x1f session 0x1f key -> id.
// Put writes an entry for every keyed memory; an entry is trusted only when
// the memory it names still holds that key in that session, so deletes and
// replacements need not remove entries (Delete does, to keep it small). A
// store written before the bucket existed is indexed once, on the first
// lookup (keyMarker records it).
var (
	bucketKeys = []byte("keys")
	keyMarker  = []byte("keys-indexed")
)

var _ memory.KeyFinder = (*Store)(nil)

func clientKey(ns, session, k string) []byte {
	return []byte(ns + "\x1f" + session + "\x1f" + k)
}

// putClientKey records m's client key, if it has one.
func putClientKey(tx *bolt.Tx, m memory.Memory) error {
	if m.Key == "" {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bucketKeys)
	if err != nil {
		return err
	}
	return b.Put(clientKey(m.Namespace, m.SessionID, m.Key), []byte(m.ID))
}

func deleteClientKey(tx *bolt.Tx, m memory.Memory) error {
	if b := tx.Bucket(bucketKeys); b != nil && m.Key != "" {
		return b.Delete(clientKey(m.Namespace, m.SessionID, m.Key))
	}
	return nil
}

// FindKeys returns the ids of the memories of a session that hold the given
// client keys (keys the session does not hold are absent), without reading
// the session.
func (s *Store) FindKeys(ctx context.Context, ns, session string, keys []string) (map[string]string, error) {
	if err := s.indexClientKeys(ctx); err != nil {
		return nil, err
	}
	out := map[string]string{}
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketKeys)
		if b == nil {
			return nil
		}
		mem := tx.Bucket(bucketMem)
		for _, k := range keys {
			id := b.Get(clientKey(ns, session, k))
			if id == nil {
				continue
			}
			m, err := getMemory(mem, []byte(key(ns, string(id))))
			if err != nil {
				return err
			}
			if m == nil {
				continue
			}
			if m.Key == k && m.SessionID == session {
				out[k] = m.ID
			}
		}
		return nil
	})
	return out, err
}

// indexClientKeys fills the keys bucket from the records once per store.
func (s *Store) indexClientKeys(ctx context.Context) error {
	done := false
	if err := s.view(func(tx *bolt.Tx) error {
		done = tx.Bucket(bucketMeta).Get(keyMarker) != nil
		return nil
	}); err != nil || done {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta.Get(keyMarker) != nil {
			return nil
		}
		c := tx.Bucket(bucketMem).Cursor()
		for k, raw := c.First(); k != nil; k, raw = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, err := decode(raw)
			if err != nil {
				return err
			}
			if m.Key != "" {
				if err := putClientKey(tx, m); err != nil {
					return err
				}
				n++
			}
		}
		return meta.Put(keyMarker, []byte("1"))
	})
	if err == nil && n > 0 {
		s.log.Info("indexed the client message ids of the stored memories", "memories", n)
	}
	return err
}

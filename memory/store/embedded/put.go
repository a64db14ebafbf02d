package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// sessionKey orders a session's turns: namespace, session, big-endian turn.
func sessionKey(ns, session string, turn int) []byte {
	k := make([]byte, 0, len(ns)+len(session)+6)
	k = append(k, ns...)
	k = append(k, 0x1f)
	k = append(k, session...)
	k = append(k, 0x1f)
	return binary.BigEndian.AppendUint32(k, uint32(turn))
}

func sessionPrefix(ns, session string) []byte {
	k := sessionKey(ns, session, 0)
	return k[:len(k)-4]
}

// turnOf is the turn of a sessionKey.
func turnOf(sessionKey []byte) int {
	return int(binary.BigEndian.Uint32(sessionKey[len(sessionKey)-4:]))
}

// Put stores ms in one fsync'd transaction: all or none. Their namespaces'
// indexes learn of them in the next batch (at most flushAt documents later,
// or before the next search), and the journal covers a crash in between.
func (s *Store) Put(ctx context.Context, ms []memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if m.Embedder != s.embedderID && !s.isPending(m) {
			return fmt.Errorf("memory %s was embedded by %q, but the store holds %s", m.ID, m.Embedder, describe(s.embedderID, s.dims))
		}
		if err := checkVectors(m, s.dims); err != nil {
			return err
		}
	}
	for _, m := range ms {
		if err := s.ready(ctx, m.Namespace); err != nil {
			return err
		}
	}
	var keys []string
	var seq uint64
	err := s.update(func(tx *bolt.Tx) error {
		mem, vec, sess := tx.Bucket(bucketMem), tx.Bucket(bucketVec), tx.Bucket(bucketSession)
		for _, m := range ms {
			k := []byte(key(m.Namespace, m.ID))
			if err := putRecord(mem, vec, k, m); err != nil {
				return err
			}
			if err := sess.Put(sessionKey(m.Namespace, m.SessionID, m.Turn), []byte(m.ID)); err != nil {
				return err
			}
			if err := s.markPending(tx, k, m); err != nil {
				return err
			}
			if err := putClientKey(tx, m); err != nil {
				return err
			}
		}
		// a turn put where one was forgotten (an import) is not forgotten
		if err := unmark(tx, ms); err != nil {
			return err
		}
		// the memories' documents: journalled here, derived for the
		// index at the flush (flushIndex)
		keys = keysOf(ms)
		var err error
		seq, err = s.journal(tx, keys, true)
		return err
	})
	if err != nil {
		return fmt.Errorf("writing %d memories: %w", len(ms), err)
	}
	s.seq = seq
	if err := s.stage(ctx, seq, keys, true); err != nil {
		return err
	}

	if err := s.vecPut(ms); err != nil {
		return err
	}
	if s.npend >= flushAt {
		return s.flushLocked()
	}
	return nil
}

// putRecord writes m's record under k in mem, and its vectors in vec (or
// deletes the vectors there when m has none).
func putRecord(mem, vec *bolt.Bucket, k []byte, m memory.Memory) error {
	raw, err := encode(m)
	if err != nil {
		return err
	}
	if err := mem.Put(k, raw); err != nil {
		return err
	}
	if len(m.Vectors) > 0 {
		return vec.Put(k, encodeVectors(m.Vectors))
	}
	return vec.Delete(k)
}

// getMemory reads the memory stored under k in mem, nil when there is none.
func getMemory(mem *bolt.Bucket, k []byte) (*memory.Memory, error) {
	raw := mem.Get(k)
	if raw == nil {
		return nil, nil
	}
	m, err := decode(raw)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// Session returns one session's memories in turn order.
func (s *Store) Session(ctx context.Context, ns, session string) ([]memory.Memory, error) {
	return s.Turns(ctx, ns, session, 0, math.MaxInt32)
}

// Turns returns the memories of turns from..to of one session, in order.
func (s *Store) Turns(ctx context.Context, ns, session string, from, to int) ([]memory.Memory, error) {
	var out []memory.Memory
	from, to = max(from, 0), min(to, math.MaxInt32)
	err := s.view(func(tx *bolt.Tx) error {
		mem := tx.Bucket(bucketMem)
		prefix := sessionPrefix(ns, session)
		c := tx.Bucket(bucketSession).Cursor()
		for k, id := c.Seek(sessionKey(ns, session, from)); k != nil && len(k) == len(prefix)+4 && string(k[:len(prefix)]) == string(prefix) && turnOf(k) <= to; k, id = c.Next() {
			m, err := getMemory(mem, []byte(key(ns, string(id))))
			if err != nil {
				return err
			}
			if m == nil {
				// the session entry and the record are written and
				// deleted together: one without the other is damage
				// (a record's key changed), never silently a shorter session
				return fmt.Errorf("%w: the entry of session %q turn %d names memory %q", errRecordMissing, session, turnOf(k), string(id))
			}
			out = append(out, *m)
		}
		return nil
	})
	return out, err
}

package embedded

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// Listing and export read the session bucket, whose keys
// (namespace 0x1f session 0x1f big-endian turn) order every memory by
// namespace, session and turn; the memory records are read only for a
// session's first turn (its date and preview) or, on export, one batch at
// a time.

// exportBatch is how many memories one read transaction of an export
// gathers before they are handed out, so a slow writer never holds a
// transaction open and a large store is never loaded whole.
const exportBatch = 256

// parseSessionKey splits a session bucket key. Names hold no 0x1f, and the
// turn is the last four bytes (which may).
func parseSessionKey(k []byte) (ns, session string, ok bool) {
	if len(k) < 6 || k[len(k)-5] != 0x1f {
		return "", "", false
	}
	n, sess, ok := bytes.Cut(k[:len(k)-5], []byte{0x1f})
	if !ok {
		return "", "", false
	}
	return string(n), string(sess), true
}

// sessionsOf walks the session keys that start with prefix (a namespace's,
// or nil for all) and calls fn once per session with its summary.
func sessionsOf(tx *bolt.Tx, prefix []byte, fn func(memory.SessionInfo) error) error {
	mem := tx.Bucket(bucketMem)
	c := tx.Bucket(bucketSession).Cursor()
	var cur memory.SessionInfo
	var lastID []byte // the id of cur's last turn, when not its first
	have := false
	flush := func() error {
		if !have {
			return nil
		}
		if len(lastID) > 0 {
			if raw := mem.Get([]byte(key(cur.Namespace, string(lastID)))); raw != nil {
				m, err := decode(raw)
				if err != nil {
					return err
				}
				cur.Last = m.SessionDate
			}
		}
		return fn(cur)
	}
	for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = c.Next() {
		ns, session, ok := parseSessionKey(k)
		if !ok {
			continue
		}
		if have && ns == cur.Namespace && session == cur.ID {
			cur.Turns++
			lastID = append(lastID[:0], id...)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		lastID = lastID[:0:0]
		cur, have = memory.SessionInfo{Namespace: ns, ID: session, Turns: 1}, true
		if raw := mem.Get([]byte(key(ns, string(id)))); raw != nil {
			m, err := decode(raw)
			if err != nil {
				return err
			}
			cur.Date, cur.Preview = m.SessionDate, memory.Preview(m.Text)
		}
	}
	return flush()
}

// Namespaces summarises every namespace.
func (s *Store) Namespaces(ctx context.Context) ([]memory.NamespaceInfo, error) {
	var out []memory.NamespaceInfo
	err := s.view(func(tx *bolt.Tx) error {
		return sessionsOf(tx, nil, func(si memory.SessionInfo) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			out = memory.AddSessionInfo(out, si)
			return nil
		})
	})
	return out, err
}

// Sessions lists one page of a namespace's sessions, newest first.
func (s *Store) Sessions(ctx context.Context, ns string, f memory.SessionFilter) (memory.SessionPage, error) {
	var all []memory.SessionInfo
	err := s.view(func(tx *bolt.Tx) error {
		return sessionsOf(tx, []byte(ns+"\x1f"), func(si memory.SessionInfo) error {
			all = append(all, si)
			return ctx.Err()
		})
	})
	if err != nil {
		return memory.SessionPage{}, err
	}
	return memory.PageSessions(all, f)
}

// QuickSessionIDs says that SessionIDs costs a recall little (see
// memory.QuickSessionIDs).
func (*Store) QuickSessionIDs() {}

// SessionIDs returns the ids of ns's sessions that start with prefix, in
// byte order, at most limit: a seek to the first and one past each, in
// the session entries and in the marks of forgotten turns.
func (s *Store) SessionIDs(ctx context.Context, ns, prefix string, limit int) ([]string, error) {
	if limit < 1 {
		return nil, nil
	}
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		ids, err := sessionsIn(ctx, tx.Bucket(bucketSession), ns, prefix, limit)
		if err != nil {
			return err
		}
		// and those that hold only forgotten turns: a forget with reimport,
		// or a remember, may name them by their start too
		gone, err := sessionsIn(ctx, tx.Bucket(bucketForgot), ns, prefix, limit)
		out = slices.Compact(slices.Sorted(slices.Values(append(ids, gone...))))
		out = out[:min(len(out), limit)]
		return err
	})
	return out, err
}

// sessionsIn is the sessions of ns starting with prefix that b's session
// keys name (nil b: none), in byte order, at most limit.
func sessionsIn(ctx context.Context, b *bolt.Bucket, ns, prefix string, limit int) ([]string, error) {
	if b == nil {
		return nil, nil
	}
	var out []string
	c := b.Cursor()
	start := []byte(ns + "\x1f" + prefix)
	for k, _ := c.Seek(start); k != nil && bytes.HasPrefix(k, start) && len(out) < limit; {
		_, sess, ok := parseSessionKey(k)
		if !ok { // as sessionsOf: not a session's key
			k, _ = c.Next()
			continue
		}
		out = append(out, sess)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// past the session's last turn
		last := sessionKey(ns, sess, math.MaxUint32)
		if k, _ = c.Seek(last); bytes.Equal(k, last) {
			k, _ = c.Next()
		}
	}
	return out, nil
}

// Export hands out every memory of ns ("" for all) in namespace, session
// and turn order, exportBatch at a time.
func (s *Store) Export(ctx context.Context, ns string, vectors bool, fn func(memory.Memory) error) error {
	var prefix []byte
	if ns != "" {
		prefix = []byte(ns + "\x1f")
	}
	_, dims := s.Embedder()
	salvage := memory.Salvaging(ctx) // nil: a damaged record fails the export
	var last []byte                  // the last session key handed out
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch := make([]memory.Memory, 0, exportBatch)
		err := s.view(func(tx *bolt.Tx) error {
			mem, vec := tx.Bucket(bucketMem), tx.Bucket(bucketVec)
			c := tx.Bucket(bucketSession).Cursor()
			k, id := c.Seek(prefix)
			if last != nil {
				k, id = c.Seek(last)
				if bytes.Equal(k, last) {
					k, id = c.Next()
				}
			}
			for ; k != nil && bytes.HasPrefix(k, prefix) && len(batch) < exportBatch; k, id = c.Next() {
				mns, _, ok := parseSessionKey(k)
				if !ok {
					continue
				}
				last = append(last[:0], k...)
				m, err := exported(mem, vec, []byte(key(mns, string(id))), vectors, dims, salvage)
				if err != nil {
					return err
				}
				if m != nil {
					batch = append(batch, *m)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, m := range batch {
			if err := fn(m); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
	}
}

// CountMemories is the number of memories namespace ns holds, read from
// its text index (its writes flushed first): a recall that names no k
// takes one from it (memory.AutoK).
func (s *Store) CountMemories(ctx context.Context, ns string) (int, error) {
	t, unlock, err := s.readText(ctx, ns) // nil: the namespace holds nothing
	if err != nil {
		return 0, err
	}
	defer unlock()
	if t == nil {
		return 0, nil
	}
	var n uint64
	err = t.read(ctx, func() (err error) { n, err = t.idx.DocCount(); return err })
	return int(n), err
}

// exported reads the memory of key mk as an export writes it (with its
// vectors when asked): nil when there is none, or, salvaging, when its
// record is damaged; a damaged vector, salvaging, leaves it without.
func exported(mem, vec *bolt.Bucket, mk []byte, vectors bool, dims int, salvage memory.Salvage) (*memory.Memory, error) {
	m, err := getMemory(mem, mk)
	if err != nil && salvage != nil && errors.Is(err, errRecord) {
		salvage(string(mk), false, err)
		return nil, nil
	}
	if err != nil || m == nil || !vectors || dims == 0 {
		return m, err
	}
	if v := vec.Get(mk); v != nil {
		if m.Vectors, err = decodeVectors(v, dims); err != nil && salvage != nil {
			salvage(string(mk), true, err)
			m.Vectors = nil // the import embeds it again
		} else if err != nil {
			return nil, err
		}
	}
	return m, nil
}

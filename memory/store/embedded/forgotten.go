package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// The forgotten bucket keeps a mark of each turn deleted by its id or
// with its session (memory.ForgottenTurns), and of each an import brings
// (memory.ForgottenMarks: an export carries them), under the turn's
// session key (sessionKey): namespace 0x1f session 0x1f turn -> {id, key,
// hash}, JSON. No text is kept. A turn put at a marked position takes the
// mark's place (Put); deleting the namespace, or the session with
// Reimport, deletes its marks. The bucket is made by the first delete (or
// import) that marks: a store written before it has none.
var bucketForgot = []byte("forgotten")

// forgotMark is what the forgotten bucket keeps of a turn.
type forgotMark struct {
	ID   string `json:"id"`
	Key  string `json:"key,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// markForgotten marks each of victims, deleted by their ids, as forgotten.
func markForgotten(tx *bolt.Tx, victims []memory.Memory) error {
	b, err := tx.CreateBucketIfNotExists(bucketForgot)
	if err != nil {
		return err
	}
	for _, m := range victims {
		v, err := json.Marshal(forgotMark{ID: m.ID, Key: m.Key, Hash: m.Hash})
		if err != nil {
			return err
		}
		if err := b.Put(sessionKey(m.Namespace, m.SessionID, m.Turn), v); err != nil {
			return err
		}
	}
	return nil
}

// unmark deletes the marks of the turns ms are put at.
func unmark(tx *bolt.Tx, ms []memory.Memory) error {
	b := tx.Bucket(bucketForgot)
	if b == nil {
		return nil
	}
	for _, m := range ms {
		if err := b.Delete(sessionKey(m.Namespace, m.SessionID, m.Turn)); err != nil {
			return err
		}
	}
	return nil
}

// dropMarks deletes the marks whose keys start with prefix: a session's
// (sessionPrefix) or a namespace's (its name and 0x1f).
func dropMarks(tx *bolt.Tx, prefix []byte) error {
	b := tx.Bucket(bucketForgot)
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// ForgottenTurns returns the marks of a session's forgotten turns (by
// their ids or with their session, or imported with an export), in turn
// order.
func (s *Store) ForgottenTurns(ctx context.Context, ns, session string) ([]memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []memory.Memory
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketForgot)
		if b == nil {
			return nil
		}
		prefix := sessionPrefix(ns, session)
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(k) != len(prefix)+4 {
				continue // a session whose id starts with this one's and 0x1f
			}
			out = append(out, s.markAt(ns, session, k, v))
		}
		return nil
	})
	return out, err
}

// markAt is the mark of the forgotten bucket at key k, value v, of the
// session's: a damaged one is its position alone.
func (s *Store) markAt(ns, session string, k, v []byte) memory.Memory {
	mk, err := readMark(v)
	if err != nil {
		// its position stays taken; what it matched is lost, so a resend
		// by content or message id could store the turn again: said, and
		// agentmem check reports it
		s.log.Warn("a mark of a forgotten turn is damaged: a resend of its session may store that turn again (agentmem check reports the damage)", "namespace", ns, "session", session, "turn", turnOf(k), "err", err)
		mk = forgotMark{ID: memory.MemoryID(session, turnOf(k))}
	}
	return memory.Memory{ID: mk.ID, Namespace: ns, SessionID: session, Turn: turnOf(k), Key: mk.Key, Hash: mk.Hash}
}

var _ memory.ForgottenMarks = (*Store)(nil)

// ExportForgotten hands out the marks of ns ("" for all), one session at
// a time in namespace, session and turn order: the forgotten bucket's key
// order, read exportBatch marks a transaction, as Export reads memories.
// A damaged mark is handed out as its position alone, as ForgottenTurns
// reads it.
func (s *Store) ExportForgotten(ctx context.Context, ns string, fn func([]memory.Memory) error) error {
	var prefix, last []byte
	if ns != "" {
		prefix = []byte(ns + "\x1f")
	}
	var sess []memory.Memory // the session being read: it may go on in the next batch
	for {
		batch, err := s.marksAfter(ctx, prefix, last)
		if err != nil {
			return err
		}
		for _, m := range batch {
			if len(sess) > 0 && (sess[0].Namespace != m.Namespace || sess[0].SessionID != m.SessionID) {
				if err := fn(sess); err != nil {
					return err
				}
				sess = nil
			}
			sess = append(sess, m)
		}
		if len(batch) < exportBatch {
			break
		}
		m := batch[len(batch)-1]
		last = sessionKey(m.Namespace, m.SessionID, m.Turn)
	}
	if len(sess) > 0 {
		return fn(sess)
	}
	return nil
}

// marksAfter reads up to exportBatch marks whose keys start with prefix,
// after the key last (from the first when nil).
func (s *Store) marksAfter(ctx context.Context, prefix, last []byte) ([]memory.Memory, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []memory.Memory
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketForgot)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		k, v := c.Seek(prefix)
		if last != nil {
			if k, v = c.Seek(last); bytes.Equal(k, last) {
				k, v = c.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < exportBatch; k, v = c.Next() {
			if mns, session, ok := splitSessionKey(k); ok {
				out = append(out, s.markAt(mns, session, k, v))
			}
		}
		return nil
	})
	return out, err
}

// MarkForgotten stores marks of a session's forgotten turns (an import's)
// in one transaction, each replacing the mark at its position; a mark at
// a position that holds a memory is left out: the memory wins.
func (s *Store) MarkForgotten(ctx context.Context, ns, session string, marks []memory.Memory) error {
	if len(marks) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, m := range marks {
		if m.Namespace != ns || m.SessionID != session || m.ID == "" {
			return fmt.Errorf("the mark of turn %d (id %q) is not one of session %s of namespace %s", m.Turn, m.ID, session, ns)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.update(func(tx *bolt.Tx) error {
		sess := tx.Bucket(bucketSession)
		free := slices.DeleteFunc(slices.Clone(marks), func(m memory.Memory) bool {
			return sess.Get(sessionKey(ns, session, m.Turn)) != nil
		})
		return markForgotten(tx, free)
	})
	if err != nil {
		return fmt.Errorf("marking %d turns of session %s of namespace %s forgotten: %w", len(marks), session, ns, err)
	}
	return nil
}

// readMark decodes a mark of the forgotten bucket.
func readMark(v []byte) (forgotMark, error) {
	var mk forgotMark
	if err := json.Unmarshal(v, &mk); err != nil {
		return forgotMark{}, err
	}
	if mk.ID == "" {
		return forgotMark{}, errors.New("it names no memory id")
	}
	return mk, nil
}

// checkMarks verifies each mark of the forgotten bucket (nil in a store
// that has none): its key is a turn's session key, its value decodes, and
// no stored memory holds its position (sess).
func checkMarks(r *Report, forgot, sess *bolt.Bucket) {
	if forgot == nil {
		return
	}
	forgot.ForEach(func(k, v []byte) error {
		r.Marks++
		ns, session, ok := splitSessionKey(k)
		switch _, err := readMark(v); {
		case !ok:
			r.record("malformed mark of a forgotten turn %q", k)
		case err != nil:
			r.record("the mark of forgotten turn %d of session %q of namespace %q is damaged (%v): a resend of the session may store that turn again", turnOf(k), session, ns, err)
		case sess.Get(k) != nil:
			r.record("turn %d of session %q of namespace %q is both stored and marked forgotten", turnOf(k), session, ns)
		}
		return nil
	})
}

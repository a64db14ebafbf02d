package embedded

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// Delete removes what sel selects from the records, the index and RAM; a
// namespace left without memories loses its index.
func (s *Store) Delete(ctx context.Context, sel memory.Selector) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready(ctx, sel.Namespace); err != nil {
		return 0, err
	}
	if err := s.flushText(sel.Namespace); err != nil {
		return 0, err
	}
	var keys []string
	var seq uint64
	deleted := 0
	emptied := false  // the namespace holds no memory any more
	rerecord := false // nor the store: it records its recipe anew
	var ids = map[string]bool{}
	err := s.update(func(tx *bolt.Tx) error {
		mem, vec, sess := tx.Bucket(bucketMem), tx.Bucket(bucketVec), tx.Bucket(bucketSession)
		victims, err := selected(mem, sess, sel, ids)
		if err != nil {
			return err
		}
		if err := forgetMarks(tx, sel, victims); err != nil {
			return err
		}
		deleted = len(victims)
		if deleted == 0 {
			return nil
		}
		keys = keysOf(victims)
		if err := deleteRecords(tx, mem, vec, sess, victims, ids); err != nil {
			return err
		}
		if seq, err = s.journal(tx, keys, true); err != nil {
			return err
		}
		emptied, rerecord, err = s.forgetIfEmptied(tx, mem, sel.Namespace)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("deleting: %w", err)
	}
	if deleted == 0 {
		return 0, nil
	}
	if rerecord {
		s.recipe = s.wantRecipe
	}
	s.seq = seq
	if emptied {
		// its index goes with it (a crash first: the next open removes it)
		err = s.dropText(sel.Namespace)
	} else {
		err = s.unindex(ctx, sel.Namespace, seq, keys)
	}
	if err != nil {
		return 0, err
	}
	s.vecRemove(sel.Namespace, slices.Collect(maps.Keys(ids)))
	return deleted, nil
}

// selected is the memories of mem that sel selects: a namespace's all, a
// session's (by its entries in sess), or those of sel.IDs, each once
// (noted in ids).
func selected(mem, sess *bolt.Bucket, sel memory.Selector, ids map[string]bool) ([]memory.Memory, error) {
	var victims []memory.Memory
	collect := func(raw []byte) error {
		m, err := decode(raw)
		if err != nil {
			return err
		}
		victims = append(victims, m)
		return nil
	}
	switch {
	case sel.All:
		prefix := []byte(sel.Namespace + "\x1f")
		c := mem.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if err := collect(v); err != nil {
				return nil, err
			}
		}
	case sel.SessionID != "":
		prefix := sessionPrefix(sel.Namespace, sel.SessionID)
		c := sess.Cursor()
		for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+4; k, id = c.Next() {
			if raw := mem.Get([]byte(key(sel.Namespace, string(id)))); raw != nil {
				if err := collect(raw); err != nil {
					return nil, err
				}
			}
		}
	default:
		for _, id := range sel.IDs {
			if raw := mem.Get([]byte(key(sel.Namespace, id))); raw != nil && !ids[id] {
				ids[id] = true
				if err := collect(raw); err != nil {
					return nil, err
				}
			}
		}
	}
	return victims, nil
}

// forgetMarks marks the victims of a delete by ids or by session as
// forgotten, and drops the marks of a namespace deleted whole, or of a
// session deleted with Reimport (even one that holds no memory any more,
// only marks).
func forgetMarks(tx *bolt.Tx, sel memory.Selector, victims []memory.Memory) error {
	switch {
	case sel.All:
		return dropMarks(tx, []byte(sel.Namespace+"\x1f"))
	case sel.SessionID != "" && sel.Reimport:
		return dropMarks(tx, sessionPrefix(sel.Namespace, sel.SessionID))
	case len(victims) > 0:
		return markForgotten(tx, victims)
	}
	return nil
}

// deleteRecords deletes each of victims' records from tx: its memory,
// vectors, session entry, pending mark and client key; it notes their ids
// in ids.
func deleteRecords(tx *bolt.Tx, mem, vec, sess *bolt.Bucket, victims []memory.Memory, ids map[string]bool) error {
	for _, m := range victims {
		k := []byte(key(m.Namespace, m.ID))
		ids[m.ID] = true
		for _, del := range []func() error{
			func() error { return mem.Delete(k) },
			func() error { return vec.Delete(k) },
			func() error { return sess.Delete(sessionKey(m.Namespace, m.SessionID, m.Turn)) },
			func() error { return unmarkPending(tx, k) },
			func() error { return deleteClientKey(tx, m) },
		} {
			if err := del(); err != nil {
				return err
			}
		}
	}
	return nil
}

// forgetIfEmptied forgets namespace ns's text index in tx when a delete
// left ns without memories in mem (emptied); and when it left the store
// without any, whose recipe is not the one wanted, records that recipe
// for the memories it takes next (rerecord).
func (s *Store) forgetIfEmptied(tx *bolt.Tx, mem *bolt.Bucket, ns string) (emptied, rerecord bool, err error) {
	if emptied = isEmpty(mem, ns); !emptied {
		return false, false, nil
	}
	if err := forgetText(tx, ns); err != nil {
		return true, false, err
	}
	// a store left without memories holds no vectors of an earlier
	// recipe: the memories it takes next are of this one
	if first, _ := mem.Cursor().First(); first == nil && s.embedderID != "" && s.recipe != s.wantRecipe {
		return true, true, tx.Bucket(bucketMeta).Put(keyRecipe, []byte(s.wantRecipe))
	}
	return true, false, nil
}

// isEmpty reports whether namespace ns holds no memory in mem.
func isEmpty(mem *bolt.Bucket, ns string) bool {
	prefix := []byte(ns + "\x1f")
	k, _ := mem.Cursor().Seek(prefix)
	return k == nil || !bytes.HasPrefix(k, prefix)
}

// unindex applies the delete journalled as seq, which changed the documents
// of keys, to ns's index: they are derived at its next flush, after any
// written before (flushIndex), so a document put and then deleted before
// a flush is not indexed, and the index never records seq before holding
// the entries pending before it.
func (s *Store) unindex(ctx context.Context, ns string, seq uint64, keys []string) error {
	return s.stage(ctx, seq, keys, false)
}

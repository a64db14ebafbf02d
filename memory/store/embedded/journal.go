package embedded

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"
)

// entry is one journalled write: the keys it stored or deleted. The index
// is brought up to date by re-reading those keys from the records.
type entry struct {
	Keys []string `json:"keys"`
}

func seqKey(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

// journal appends an entry in tx and returns its sequence number.
func (s *Store) journal(tx *bolt.Tx, keys []string) (uint64, error) {
	v, err := json.Marshal(entry{Keys: keys})
	if err != nil {
		return 0, err
	}
	n := s.seq + 1
	if err := tx.Bucket(bucketMeta).Put(keyLastSeq, seqKey(n)); err != nil {
		return 0, err
	}
	return n, tx.Bucket(bucketJournal).Put(seqKey(n), v)
}

// indexedSeq is the last journal entry whose effect the index has persisted.
func (s *Store) indexedSeq() (uint64, error) {
	v, err := s.index.GetInternal(keySeq)
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

// errJournal is an unreadable journal entry: the index is then rebuilt
// from the records, which the journal only points into.
var errJournal = errors.New("the journal holds an unreadable entry")

// replay applies to the index every journal entry it had not persisted, then
// drops the entries it had (what the index read back at open is on disk)
// that no vector snapshot needs (see snapshot.go).
func (s *Store) replay(ctx context.Context) error {
	done, err := s.indexedSeq()
	if err != nil {
		return err
	}
	s.seq = max(s.seq, done)
	b := s.index.NewBatch()
	var last uint64
	n := 0
	err = s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketJournal).Cursor()
		for k, v := c.Seek(seqKey(done + 1)); k != nil; k, v = c.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var e entry
			if len(k) != 8 {
				return fmt.Errorf("%w: a key of %d bytes", errJournal, len(k))
			}
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("%w: entry %d: %v", errJournal, seqOf(k), err)
			}
			docs, dels, err := derive(tx, e.Keys)
			if err != nil {
				return err
			}
			for key, d := range docs {
				if err := b.Index(key, d); err != nil {
					return err
				}
			}
			for _, key := range dels {
				b.Delete(key)
			}
			n += len(e.Keys)
			last = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if last > 0 {
		b.SetInternal(keySeq, seqKey(last))
		if err := s.index.Batch(b); err != nil {
			return err
		}
		s.log.Info("index caught up from journal", "entries", last-done, "documents", n)
	}
	done = min(done, s.vecFloor())
	return s.update(func(tx *bolt.Tx) error { return trim(tx, done) })
}

// flushLocked sends the pending batch to the index, with the documents of
// the keys written since the last flush, derived now from the records: a
// document that many writes touched (a session's page as its turns are
// appended one by one, a turn and its neighbours) is derived and analysed
// once per flush, not once per write. The records are committed and s.mu
// keeps writers out, so they are what the journal entries up to s.seq
// made. Callers hold s.mu.
func (s *Store) flushLocked() error {
	if s.npend == 0 {
		return nil
	}
	b, keys := s.queue(), slices.Sorted(maps.Keys(s.dirty))
	s.pending, s.npend, s.dirty = nil, 0, nil
	// On an error the records and journal are durable; the next Open
	// replays them.
	var docs map[string]any
	var dels []string
	if err := s.view(func(tx *bolt.Tx) error {
		var err error
		docs, dels, err = derive(tx, keys)
		return err
	}); err != nil {
		return fmt.Errorf("indexing: deriving the documents: %w", err)
	}
	for _, k := range keys {
		if d, ok := docs[k]; ok {
			if err := b.Index(k, d); err != nil {
				return fmt.Errorf("indexing %q: %w", k, err)
			}
		}
	}
	for _, k := range dels {
		b.Delete(k)
	}
	if err := s.index.Batch(b); err != nil {
		return fmt.Errorf("indexing: %w", err)
	}
	return nil
}

// markDirty notes keys whose documents the next flush derives.
func (s *Store) markDirty(keys []string) {
	if s.dirty == nil {
		s.dirty = make(map[string]bool, flushAt)
	}
	for _, k := range keys {
		s.dirty[k] = true
	}
	s.npend = len(s.dirty)
}

func (s *Store) queue() *bleve.Batch {
	if s.pending == nil {
		s.pending = s.index.NewBatch()
	}
	return s.pending
}

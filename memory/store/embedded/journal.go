package embedded

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

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

// journal appends an entry in tx and returns its sequence number. When
// text is set, the entry changes the text documents of its keys'
// namespaces, whose indexes must apply it (see text.go).
func (s *Store) journal(tx *bolt.Tx, keys []string, text bool) (uint64, error) {
	v, _ := json.Marshal(entry{Keys: keys}) // strings always encode
	n := s.seq + 1
	if err := tx.Bucket(bucketMeta).Put(keyLastSeq, seqKey(n)); err != nil {
		return 0, err
	}
	if text {
		if err := markText(tx, n, keys); err != nil {
			return 0, err
		}
	}
	return n, tx.Bucket(bucketJournal).Put(seqKey(n), v)
}

// errJournal is an unreadable journal entry: the indexes it may concern are
// then rebuilt from the records, which the journal only points into.
var errJournal = errors.New("the journal holds an unreadable entry")

// replay applies to each index of lagging (namespace: the last entry it
// applied) the journal entries after that one that concern its namespace.
func (s *Store) replay(ctx context.Context, lagging map[string]uint64) error {
	if len(lagging) == 0 {
		return nil
	}
	from := uint64(math.MaxUint64)
	for _, q := range lagging {
		from = min(from, q)
	}
	batches := map[string]*bleve.Batch{}
	var last uint64
	n := 0
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketJournal).Cursor()
		for k, v := c.Seek(seqKey(from + 1)); k != nil; k, v = c.Next() {
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
			last = seqOf(k)
			for ns, keys := range byNamespace(e.Keys) {
				if q, ok := lagging[ns]; !ok || last <= q {
					continue
				}
				if batches[ns] == nil {
					batches[ns] = s.texts[ns].idx.NewBatch()
				}
				if err := s.applyTo(tx, batches[ns], keys); err != nil {
					return err
				}
				n += len(keys)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for ns, b := range batches {
		b.SetInternal(keySeq, seqKey(last))
		if err := s.texts[ns].idx.Batch(b); err != nil {
			return err
		}
		s.texts[ns].q = last
	}
	if len(batches) > 0 {
		s.log.Info("text indexes caught up from the journal", "namespaces", len(batches), "entries", last-from, "documents", n)
	}
	return nil
}

// byNamespace groups index keys by their namespace.
func byNamespace(keys []string) map[string][]string {
	out := map[string][]string{}
	for _, k := range keys {
		ns, _ := splitKey(k)
		out[ns] = append(out[ns], k)
	}
	return out
}

// applyTo adds to b the documents of keys as the records in tx make them.
func (s *Store) applyTo(tx *bolt.Tx, b *bleve.Batch, keys []string) error {
	docs, dels, err := derive(tx, keys)
	if err != nil {
		return err
	}
	for k, d := range docs {
		if err := b.Index(k, d); err != nil {
			return err
		}
	}
	for _, k := range dels {
		b.Delete(k)
	}
	return nil
}

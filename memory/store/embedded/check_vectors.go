package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory/store/embedded/vectors"
)

// checkSnapshots verifies the vector snapshots against the records in db,
// as the next open would use them and beyond: the manifest is this
// store's, each snapshot it names is usable (the same conditions as
// loadSnapshots), intact (vectors.Load's checksums and structure, then
// vectors' Check of every row and inverted list), and holds exactly the
// vectors of its namespace's records, bit for bit, but for the memories
// the journal wrote or deleted after it (the open re-reads those). A
// snapshot that passes its checksums but not the rest was written from a
// file changed while it was mapped: no open would notice it.
func checkSnapshots(ctx context.Context, dir string, db *bolt.DB, r *Report) {
	sdir := filepath.Join(dir, snapDir)
	raw, err := os.ReadFile(filepath.Join(sdir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var mf manifest
	if err == nil {
		err = json.Unmarshal(raw, &mf)
	}
	var storeID, embedderID string
	var dims int
	var at journalAt
	if err := db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		storeID, embedderID = string(meta.Get(keyStoreID)), string(meta.Get(keyEmbedder))
		dims, _ = strconv.Atoi(string(meta.Get(keyDims)))
		at = journalOf(tx, 0)
		return nil
	}); err != nil {
		r.snapshot("%s cannot be read: %v", dir, err)
		return
	}
	if why := mf.foreign(err, storeID, embedderID, dims); why != "" {
		r.snapshot("%s is not used (%s): the next open rebuilds every snapshot from the records", filepath.Join(sdir, manifestName), why)
		return
	}
	for _, ns := range slices.Sorted(maps.Keys(mf.Namespaces)) {
		if ctx.Err() != nil {
			return
		}
		e := mf.Namespaces[ns]
		x, why := at.load(sdir, ns, e, snapTagOf(storeID, embedderID, dims, ns), dims)
		if why != "" {
			r.snapshot("namespace %q: its snapshot %s is not used (%s): the next open rebuilds it from the records", ns, filepath.Join(sdir, e.File), why)
			continue
		}
		before := len(r.Snapshots)
		for err := range x.Check() {
			r.snapshot("namespace %q: %v", ns, err)
			if len(r.Snapshots) > maxProblems {
				break
			}
		}
		if err := db.View(func(tx *bolt.Tx) error {
			return compareSnapshot(ctx, tx, ns, e.Through, embedderID, dims, x, r)
		}); err != nil {
			r.snapshot("namespace %q: comparing its snapshot with the records: %v", ns, err)
		}
		if len(r.Snapshots) == before {
			r.Snapshotted++
			r.SnapshotWindows += x.Rows()
		}
		x.Release()
	}
}

// compareSnapshot compares x, namespace ns's snapshot, with the records
// in tx, leaving out the memories the journal names after through.
func compareSnapshot(ctx context.Context, tx *bolt.Tx, ns string, through uint64, embedderID string, dims int, x *vectors.Index, r *Report) error {
	later, err := journalKeys(tx, ns, through)
	if err != nil {
		return err
	}
	mem, vec := tx.Bucket(bucketMem), tx.Bucket(bucketVec)
	prefix := []byte(key(ns, ""))
	c := mem.Cursor()
	n := 0
	for k, v := c.Seek(prefix); k != nil && len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if later[string(k)] {
			continue
		}
		m, err := decode(v)
		if err != nil {
			return fmt.Errorf("record %q: %w", k, err)
		}
		sess, date, got, held := x.Memory(m.ID)
		var want [][]float32
		if raw := vec.Get(k); raw != nil && m.Embedder == embedderID {
			if want, err = decodeVectors(raw, dims); err != nil {
				return fmt.Errorf("memory %q: %w", m.ID, err)
			}
		}
		switch {
		case len(want) == 0 && held:
			r.snapshot("namespace %q: the snapshot holds vectors of memory %q, whose record has none of this embedder", ns, m.ID)
		case len(want) > 0 && !held:
			r.snapshot("namespace %q: the snapshot lacks memory %q", ns, m.ID)
		case !held:
		case !slices.EqualFunc(got, want, slices.Equal):
			r.snapshot("namespace %q: the snapshot's vectors of memory %q are not its record's", ns, m.ID)
		case sess != m.SessionID || date != m.SessionDate.UnixNano():
			r.snapshot("namespace %q: the snapshot gives memory %q session %q of %d; its record, session %q of %d", ns, m.ID, sess, date, m.SessionID, m.SessionDate.UnixNano())
		}
		if len(r.Snapshots) > maxProblems {
			return nil
		}
	}
	for id := range x.IDs() {
		if k := key(ns, id); !later[k] && mem.Get([]byte(k)) == nil {
			r.snapshot("namespace %q: the snapshot holds memory %q, which is not stored", ns, id)
			if len(r.Snapshots) > maxProblems {
				return nil
			}
		}
	}
	return nil
}

// journalKeys is the set of namespace ns's memory keys that the journal's
// entries after seq name.
func journalKeys(tx *bolt.Tx, ns string, seq uint64) (map[string]bool, error) {
	keys := map[string]bool{}
	c := tx.Bucket(bucketJournal).Cursor()
	for k, v := c.Seek(seqKey(seq + 1)); k != nil; k, v = c.Next() {
		var e entry
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, fmt.Errorf("journal entry %x: %w", k, err)
		}
		for _, mk := range e.Keys {
			if n, _ := splitKey(mk); n == ns {
				keys[mk] = true
			}
		}
	}
	return keys, nil
}

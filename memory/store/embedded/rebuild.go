package embedded

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory/hybrid"
)

// The text index is derived from the records, so whenever it cannot be
// trusted it is rebuilt from them. Open checks, cheaply, that the index is
// the one these records made and that it is up to date:
//
//   - identity: the records and the index carry the same store id (an index
//     copied from another data directory is not this one's);
//   - sequence: the records' meta remembers the last journal entry written
//     and the last one trimmed; an index that applied fewer than were
//     trimmed is older than the records (restored from a backup), one that
//     applied more is newer (the records were restored);
//   - count: after the journal's replay, the index holds at least one
//     document per memory (memories plus session pages), and none when
//     there are no memories.
//
// A missing index, an empty one, one bleve cannot open, and one built by
// another version of the mapping are rebuilt too. Every rebuild logs why
// and its progress. A store whose records are empty or missing beside an
// index that holds documents is an error, never an empty store.

var (
	// bbolt meta keys
	keyStoreID = []byte("store-id") // random id of this data directory's records
	keyLastSeq = []byte("last-seq") // last journal entry ever written
	keyTrimmed = []byte("trimmed")  // last journal entry trimmed (applied by the index)

	// bleve internal keys (keySeq, in store.go, is the last entry applied)
	keyMapping      = []byte("mapping")
	keyIndexStoreID = []byte("store-id")
)

// mappingDigest names the search kit's current mapping: an index built
// with another one (an older agentmem) is rebuilt from the records.
func mappingDigest() []byte {
	raw, err := json.Marshal(hybrid.LeanMapping())
	if err != nil {
		panic(err)
	}
	// hybrid.DocVersion counts what the JSON does not show: how documents
	// are derived from memories
	sum := sha256.Sum256(append(raw, "v"+strconv.Itoa(hybrid.DocVersion)...))
	return []byte(hex.EncodeToString(sum[:8]))
}

// recordState is what the records say about the index they expect.
type recordState struct {
	id       []byte
	lastSeq  uint64 // 0: unknown (a store written before it was kept)
	trimmed  uint64
	journal  int // entries not yet trimmed
	memories int
}

func (s *Store) recordState() (recordState, error) {
	var rs recordState
	err := s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		rs.id = append([]byte(nil), meta.Get(keyStoreID)...)
		if len(rs.id) == 0 {
			var b [8]byte
			rand.Read(b[:])
			rs.id = []byte(hex.EncodeToString(b[:]))
			if err := meta.Put(keyStoreID, rs.id); err != nil {
				return err
			}
		}
		rs.lastSeq = seqOf(meta.Get(keyLastSeq))
		rs.trimmed = seqOf(meta.Get(keyTrimmed))
		rs.journal = tx.Bucket(bucketJournal).Stats().KeyN
		rs.memories = tx.Bucket(bucketMem).Stats().KeyN
		return nil
	})
	return rs, err
}

func seqOf(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// openIndex opens the text index, replays the journal into it, and rebuilds
// it from the records when it is missing, unreadable, empty, stale, another
// store's, or built with another mapping.
func (s *Store) openIndex(ctx context.Context) error {
	path := filepath.Join(s.dir, "index.bleve")
	rs, err := s.recordState()
	if err != nil {
		return err
	}
	s.seq = max(s.seq, rs.lastSeq)
	idx, err := bleve.OpenUsing(path, scorchConfig())
	created := false
	switch {
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
		idx, err = s.createIndex(path, rs.id)
		if err != nil {
			return fmt.Errorf("creating the text index %s: %w", path, err)
		}
		created = true
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("opening the text index %s: %w", path, err)
	case err != nil:
		if rs.memories == 0 && hasSegments(path) {
			return s.orphanIndex(path, "holds no memories")
		}
		return s.rebuildIndex(ctx, path, rs.id, fmt.Sprintf("the text index cannot be opened (%v)", err), nil)
	}
	s.index = idx
	why, err := s.stale(rs, created)
	if err != nil {
		return fmt.Errorf("reading the text index %s: %w", path, err)
	}
	if why == "" {
		err := s.replay(ctx)
		switch {
		case errors.Is(err, errJournal):
			return s.rebuildIndex(ctx, path, rs.id, err.Error(), nil)
		case err != nil:
			return fmt.Errorf("replaying the journal into the text index %s: %w", path, err)
		}
		n, err := s.index.DocCount()
		if err != nil {
			return fmt.Errorf("reading the text index %s: %w", path, err)
		}
		switch {
		case rs.memories == 0 && n > 0:
			return s.orphanIndex(path, "holds no memories")
		case n < uint64(rs.memories):
			why = fmt.Sprintf("the text index holds %d documents for %d memories", n, rs.memories)
		default:
			return nil
		}
	}
	return s.rebuildIndex(ctx, path, rs.id, why, nil)
}

// stale says why the index just opened cannot be brought up to date from
// the journal, or "" when it can. Checks that read the records before the
// index keep an index that holds documents beside empty records.
func (s *Store) stale(rs recordState, created bool) (string, error) {
	if created {
		if rs.memories > 0 {
			return "the text index is missing", nil
		}
		return "", nil
	}
	n, err := s.index.DocCount()
	if err != nil {
		return "", err
	}
	if rs.memories == 0 && rs.journal == 0 && n > 0 {
		return "", s.orphanIndex(filepath.Join(s.dir, "index.bleve"), "holds no memories")
	}
	built, err := s.index.GetInternal(keyMapping)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(built, mappingDigest()) {
		return "the text index was built by another version", nil
	}
	id, err := s.index.GetInternal(keyIndexStoreID)
	if err != nil {
		return "", err
	}
	switch {
	case len(id) == 0:
		// an index written before ids were kept: adopt it, the other
		// checks still apply
		if err := s.index.SetInternal(keyIndexStoreID, rs.id); err != nil {
			return "", err
		}
	case !bytes.Equal(id, rs.id):
		return "the text index belongs to another data directory", nil
	}
	done, err := s.indexedSeq()
	if err != nil {
		return "", err
	}
	switch {
	case done < rs.trimmed:
		return fmt.Sprintf("the text index is older than the records (it applied journal entry %d, the records trimmed up to %d)", done, rs.trimmed), nil
	case rs.lastSeq > 0 && done > rs.lastSeq:
		return fmt.Sprintf("the text index is newer than the records (it applied journal entry %d, the records wrote up to %d)", done, rs.lastSeq), nil
	}
	return "", nil
}

// orphanIndex is the error for records that are empty beside an index that
// holds documents: the record file was replaced, emptied or lost.
func (s *Store) orphanIndex(path, what string) error {
	return fmt.Errorf("%w: the record file %s %s, but the text index %s holds documents: the record file was deleted, emptied or replaced. Restore it from a backup (agentmem stopped); to start an empty store instead, move %s away",
		ErrDamaged, filepath.Join(s.dir, recordFile), what, path, path)
}

// hasSegments reports whether an index directory holds any segment file,
// which a new, empty index does not.
func hasSegments(path string) bool {
	m, _ := filepath.Glob(filepath.Join(path, "store", "*.zap"))
	return len(m) > 0
}

func (s *Store) createIndex(path string, id []byte) (bleve.Index, error) {
	idx, err := bleve.NewUsing(path, hybrid.LeanMapping(), "scorch", "scorch", scorchConfig())
	if err != nil {
		return nil, err
	}
	b := idx.NewBatch()
	b.SetInternal(keyMapping, mappingDigest())
	b.SetInternal(keyIndexStoreID, id)
	b.SetInternal(keySeq, seqKey(s.seq))
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, err
	}
	return idx, nil
}

// RebuildText replaces the text index with one derived from the records,
// calling progress (when not nil) as it goes; `agentmem reindex` runs it.
func (s *Store) RebuildText(ctx context.Context, progress func(done, total int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushLocked(); err != nil {
		return err
	}
	rs, err := s.recordState()
	if err != nil {
		return err
	}
	return s.rebuildIndex(ctx, filepath.Join(s.dir, "index.bleve"), rs.id, "a rebuild of the text index was asked for", progress)
}

// rebuildIndex replaces the text index with one derived from the records,
// logging why and its progress.
func (s *Store) rebuildIndex(ctx context.Context, path string, id []byte, why string, progress func(done, total int)) error {
	start := time.Now()
	s.log.Warn(why+"; rebuilding it from the records", "index", path)
	if s.index != nil {
		s.index.Close()
		s.index = nil
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("removing the old text index: %w", err)
	}
	idx, err := s.createIndex(path, id)
	if err != nil {
		return fmt.Errorf("creating the text index %s: %w", path, err)
	}
	s.index = idx
	// every memory, and the pages of the sessions' turns
	var keys []string
	err = s.view(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketMem).ForEach(func(k, _ []byte) error {
			keys = append(keys, string(k))
			return nil
		}); err != nil {
			return err
		}
		pages := map[string]bool{}
		return tx.Bucket(bucketSession).ForEach(func(k, _ []byte) error {
			ns, session, ok := splitSessionKey(k)
			if !ok {
				return fmt.Errorf("malformed session key %q", k)
			}
			if pk := pageKey(ns, session, hybrid.PageOf(turnOf(k))); !pages[pk] {
				pages[pk] = true
				keys = append(keys, pk)
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("listing the records: %w", err)
	}
	last := time.Now()
	for start := 0; start < len(keys); start += flushAt {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := keys[start:min(start+flushAt, len(keys))]
		var docs map[string]any
		var dels []string
		if err := s.view(func(tx *bolt.Tx) error {
			var err error
			docs, dels, err = derive(tx, chunk)
			return err
		}); err != nil {
			return err
		}
		b := s.index.NewBatch()
		for k, d := range docs {
			if err := b.Index(k, d); err != nil {
				return err
			}
		}
		for _, k := range dels {
			b.Delete(k)
		}
		if err := s.index.Batch(b); err != nil {
			return fmt.Errorf("rebuilding the text index: %w", err)
		}
		done := start + len(chunk)
		if progress != nil {
			progress(done, len(keys))
		}
		if time.Since(last) > 5*time.Second {
			s.log.Info("rebuilding the text index", "documents", done, "of", len(keys))
			last = time.Now()
		}
	}
	// the index is complete only now: an interrupted rebuild leaves an
	// index whose sequence is behind the records', rebuilt at next open
	b := s.index.NewBatch()
	b.SetInternal(keySeq, seqKey(s.seq))
	if err := s.index.Batch(b); err != nil {
		return fmt.Errorf("rebuilding the text index: %w", err)
	}
	// the journal is trimmed only once the index is on disk (scorch.go)
	if err := persisted(s.index, persistTimeout); err != nil {
		return fmt.Errorf("rebuilding the text index: %w", err)
	}
	// the journal stays back to the vector snapshots (snapshot.go)
	if err := s.update(func(tx *bolt.Tx) error { return trim(tx, min(s.seq, s.vecFloor())) }); err != nil {
		return err
	}
	s.log.Info("text index rebuilt", "documents", len(keys), "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// splitSessionKey is the inverse of sessionKey's namespace and session.
func splitSessionKey(k []byte) (ns, session string, ok bool) {
	i := bytes.IndexByte(k, 0x1f)
	if i < 0 {
		return "", "", false
	}
	j := bytes.IndexByte(k[i+1:], 0x1f)
	if j < 0 {
		return "", "", false
	}
	j += i + 1
	if len(k) != j+5 {
		return "", "", false
	}
	return string(k[:i]), string(k[i+1 : j]), true
}

// trim drops the journal entries up to done, which the index has applied
// and persisted, and remembers done: an index that applied less is stale.
func trim(tx *bolt.Tx, done uint64) error {
	j := tx.Bucket(bucketJournal)
	var old [][]byte
	c := j.Cursor()
	for k, _ := c.First(); k != nil && seqOf(k) <= done; k, _ = c.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	// deleted by key, after the walk: a cursor that deletes as it moves
	// can skip entries
	for _, k := range old {
		if err := j.Delete(k); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bucketMeta)
	if done > seqOf(meta.Get(keyTrimmed)) {
		return meta.Put(keyTrimmed, seqKey(done))
	}
	return nil
}

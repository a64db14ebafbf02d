package embedded

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/store/embedded/vectors"
)

// Vector snapshots. A namespace of at least snapshotMin windows is saved
// as one vectors snapshot file in <data dir>/vectors/, which the next open
// maps (vectors.Load) instead of decoding every record and quantising every
// vector again. vectors/manifest.json lists them: the store they belong to
// (a random id kept in the records' meta bucket, so a snapshot copied from
// another data dir is not taken for this one's), the embedder and
// dimensions, and per namespace its file, the journal sequence it was
// saved at (its stamp, also in the file's header) and the sequence up to
// which the namespace is known unchanged since (through).
//
// At open a snapshot is used when its manifest entry, tag and stamp agree
// and the journal still holds every entry after its through: those entries'
// memories are re-read from the records and put in the index (or removed),
// so the snapshot is brought up to date. Otherwise (missing, damaged,
// foreign, from another embedder, ahead of the journal, or the journal no
// longer reaching back to it) the snapshot is deleted and the namespace is
// rebuilt from the records. The journal is pruned only back to the oldest
// snapshot's through (see replay); every manifest written advances the
// through of the namespaces unchanged since their snapshot.
//
// Snapshots are written at Close, and during writes when a namespace has
// changed by half its size (at least snapshotMin windows) since its last
// snapshot: the cost of saving stays proportional to what was written, and
// a process that is killed rather than closed re-reads at most that much.
// A file is written whole and renamed into place before the manifest names
// it; a crash in between leaves a stamp that disagrees, so that namespace
// is rebuilt.

// snapshotMin is the number of windows from which a namespace is saved as
// a snapshot: below it, reading the records takes well under a second.
var snapshotMin = 10_000

// SnapshotMin is the number of vectors from which a namespace is saved as
// a vector snapshot (what check says of a store with none).
func SnapshotMin() int { return snapshotMin }

const (
	snapDir      = "vectors"
	manifestName = "manifest.json"
	manifestVer  = 1
)

type manifest struct {
	Version    int                  `json:"version"`
	Store      string               `json:"store"`
	Embedder   string               `json:"embedder"`
	Dims       int                  `json:"dims"`
	Namespaces map[string]snapEntry `json:"namespaces"`
}

type snapEntry struct {
	File  string `json:"file"`
	Stamp uint64 `json:"stamp"`
	// Through is the journal sequence up to which the namespace is known
	// unchanged since its snapshot: a namespace nobody writes to keeps its
	// file, and the journal need not reach back to its stamp.
	Through uint64 `json:"through"`
}

func snapFile(ns string) string {
	sum := sha256.Sum256([]byte(ns))
	return hex.EncodeToString(sum[:16]) + ".snap"
}

// snapTag is what a namespace's snapshot records as its tag: it names the
// store, the embedder, the dimensions and the namespace.
func (s *Store) snapTag(ns string) string { return snapTagOf(s.vec.storeID, s.embedderID, s.dims, ns) }

func snapTagOf(storeID, embedderID string, dims int, ns string) string {
	sum := sha256.Sum256([]byte(storeID + "\x1f" + embedderID + "\x1f" + strconv.Itoa(dims) + "\x1f" + ns))
	return "agentmem vectors " + hex.EncodeToString(sum[:])
}

// ensureStoreID reads the store's id, creating it on first use.
func (s *Store) ensureStoreID() error {
	return s.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if id := meta.Get(keyStoreID); len(id) > 0 {
			s.vec.storeID = string(id)
			return nil
		}
		var b [16]byte
		rand.Read(b[:])
		s.vec.storeID = hex.EncodeToString(b[:])
		return meta.Put(keyStoreID, []byte(s.vec.storeID))
	})
}

// loadSnapshots loads every usable snapshot into s.vec and brings it up to
// date; it returns the namespaces it loaded.
func (s *Store) loadSnapshots() (map[string]bool, error) {
	if err := s.ensureStoreID(); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.dir, snapDir)
	raw, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, s.dropSnapshots() // files no manifest names, if any
	}
	var mf manifest
	if err == nil {
		err = json.Unmarshal(raw, &mf)
	}
	if why := mf.foreign(err, s.vec.storeID, s.embedderID, s.dims); why != "" {
		s.log.Warn("vector snapshots not used; rebuilding the vector index from the records", "why", why)
		return nil, s.dropSnapshots()
	}
	var span journalAt
	if err := s.view(func(tx *bolt.Tx) error {
		span = journalOf(tx, s.seq)
		return nil
	}); err != nil {
		return nil, err
	}
	start := time.Now()
	covered := map[string]bool{}
	var drop []string
	for ns, e := range mf.Namespaces {
		x, why := span.load(dir, ns, e, s.snapTag(ns), s.dims)
		if why != "" {
			s.log.Warn("vector snapshot not used; rebuilding that namespace from the records", "namespace", ns, "why", why)
			drop = append(drop, ns)
			continue
		}
		s.vec.byNS[ns] = x
		s.vec.stamps[ns], s.vec.through[ns] = e.Stamp, e.Through
		covered[ns] = true
	}
	if len(drop) > 0 {
		// a snapshot not used now must never be used later: the journal
		// moves on without it
		for _, ns := range drop {
			os.Remove(filepath.Join(dir, mf.Namespaces[ns].File))
		}
		if err := s.writeManifest(); err != nil {
			return nil, err
		}
	}
	for _, f := range leftovers(dir, mf) {
		os.Remove(f) // a stop during a save left it
	}
	if err := s.catchUp(span.cur); err != nil {
		return nil, err
	}
	if len(covered) > 0 {
		s.log.Debug("vectors loaded from snapshots", "namespaces", len(covered), "took", time.Since(start).Round(time.Millisecond))
	}
	return covered, nil
}

// foreign says why no snapshot of the manifest (read with err) can be
// used by the store of that id, embedder and dimension ("" when they can).
func (mf *manifest) foreign(err error, storeID, embedderID string, dims int) string {
	switch {
	case err != nil:
		return err.Error()
	case mf.Version != manifestVer:
		return fmt.Sprintf("it is of version %d, this agentmem reads %d", mf.Version, manifestVer)
	case mf.Store != storeID || mf.Embedder != embedderID || mf.Dims != dims:
		return "it belongs to another store or embedder"
	}
	return ""
}

// leftovers lists the files of dir that the manifest mf does not name
// (temporary files of a save a stop interrupted; snapshots of a manifest
// that was lost).
func leftovers(dir string, mf manifest) []string {
	named := map[string]bool{manifestName: true}
	for _, e := range mf.Namespaces {
		named[e.File] = true
	}
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !named[e.Name()] {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// journalAt is where the records are when snapshots are loaded: their
// sequence and the journal's first and last entry (0, 0 when empty).
type journalAt struct{ cur, first, last uint64 }

// journalOf reads where the records are in tx: their sequence is the last
// journal entry ever written, or seq if the store knows a later one (the
// index is opened after the vectors, so it cannot be asked).
func journalOf(tx *bolt.Tx, seq uint64) journalAt {
	j := journalAt{cur: max(seq, seqOf(tx.Bucket(bucketMeta).Get(keyLastSeq)))}
	c := tx.Bucket(bucketJournal).Cursor()
	if k, _ := c.First(); k != nil {
		j.first = binary.BigEndian.Uint64(k)
	}
	if k, _ := c.Last(); k != nil {
		j.last = binary.BigEndian.Uint64(k)
	}
	return j
}

// savedAfterManifest is why a snapshot whose stamp is not the manifest's is
// not used: it was saved, and a stop came before the manifest naming it
// was written (or the manifest is an older copy). No damage: the open
// rebuilds it from the records.
const savedAfterManifest = "its stamp is not the manifest's (a stop between saving it and writing the manifest)"

// load loads namespace ns's snapshot e from dir, or says why it cannot be
// used (then nothing is kept mapped): tag and dims are what the store
// expects of it.
func (j journalAt) load(dir, ns string, e snapEntry, tag string, dims int) (*vectors.Index, string) {
	switch {
	case e.File != snapFile(ns):
		return nil, "the manifest names another file"
	case e.Through < e.Stamp:
		return nil, "the manifest is inconsistent"
	case e.Through > j.cur:
		return nil, "it is ahead of the records"
	case e.Through < j.cur && (j.first == 0 || j.first > e.Through+1 || j.last < j.cur):
		return nil, "the journal no longer reaches back to it"
	}
	path := filepath.Join(dir, e.File)
	x, info, err := vectors.Load(path, vectors.Options{ApproxAt: approxAt})
	why := ""
	switch {
	case err != nil:
		return nil, strings.TrimPrefix(err.Error(), path+": ")
	case info.Tag != tag:
		why = "it was written for another store, embedder or namespace"
	case info.Stamp != e.Stamp:
		why = savedAfterManifest
	case x.Dims() != dims:
		why = "it holds vectors of another dimension"
	}
	if why != "" {
		x.Release()
		return nil, why
	}
	return x, ""
}

// catchUp re-reads, for each loaded snapshot older than cur, the memories
// the journal entries after its through wrote or deleted.
func (s *Store) catchUp(cur uint64) error {
	behind := false
	for _, st := range s.vec.through {
		behind = behind || st < cur
	}
	if !behind {
		return nil
	}
	return s.view(func(tx *bolt.Tx) error {
		todo, err := keysAfter(tx, s.vec.through)
		if err != nil {
			return err
		}
		for key := range todo {
			ns, id := splitKey(key)
			m, ok, err := s.readVectors(tx, []byte(key))
			if err != nil {
				return err
			}
			x := s.vec.byNS[ns]
			if ok {
				if err := x.Add(m.ID, m.SessionID, m.SessionDate.UnixNano(), m.Vectors); err != nil {
					return fmt.Errorf("memory %s: %w", m.ID, err)
				}
			} else {
				x.Remove(id)
			}
			s.vec.unsaved[ns]++
		}
		for ns, x := range s.vec.byNS {
			if x.Len() == 0 {
				delete(s.vec.byNS, ns)
			}
		}
		return nil
	})
}

// keysAfter is the set of memory keys that the journal entries after
// since[ns] name, for the namespaces of since: what a snapshot saved up to
// since[ns] does not reflect.
func keysAfter(tx *bolt.Tx, since map[string]uint64) (map[string]bool, error) {
	keys := map[string]bool{}
	from := uint64(math.MaxUint64)
	for _, st := range since {
		from = min(from, st)
	}
	if from == math.MaxUint64 {
		return keys, nil
	}
	c := tx.Bucket(bucketJournal).Cursor()
	for k, v := c.Seek(seqKey(from + 1)); k != nil; k, v = c.Next() {
		n := binary.BigEndian.Uint64(k)
		var e entry
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, fmt.Errorf("journal entry %d: %w", n, err)
		}
		for _, key := range e.Keys {
			ns, _ := splitKey(key)
			if st, ok := since[ns]; ok && n > st {
				keys[key] = true
			}
		}
	}
	return keys, nil
}

// vecFloor is the oldest journal entry a snapshot on disk may need
// (math.MaxUint64 when there is none).
func (s *Store) vecFloor() uint64 {
	f := uint64(math.MaxUint64)
	if s.vec == nil {
		return f
	}
	for _, st := range s.vec.through {
		f = min(f, st)
	}
	return f
}

// saveDue saves the snapshots of ms's namespaces that have changed by half
// their size since their last one. Callers hold s.mu.
func (s *Store) saveDue(ms []memory.Memory) error {
	due := false
	for _, m := range ms {
		x := s.vec.byNS[m.Namespace]
		if x != nil && x.Rows() >= snapshotMin && s.vec.unsaved[m.Namespace] >= max(snapshotMin, x.Rows()/2) {
			due = true
			break
		}
	}
	if !due {
		return nil
	}
	return s.saveSnapshots(false)
}

// saveSnapshots saves every namespace that changed since its snapshot and
// holds at least snapshotMin windows (all = false: only those changed by
// half their size), drops the snapshots of namespaces that shrank below it
// or are gone, and writes the manifest. Callers hold s.mu.
func (s *Store) saveSnapshots(all bool) error {
	if s.vec == nil || s.dims == 0 || s.vec.storeID == "" {
		return nil
	}
	dir := filepath.Join(s.dir, snapDir)
	changed := false
	var gone []string
	for ns, n := range s.vec.unsaved {
		x := s.vec.byNS[ns]
		switch {
		case x != nil && x.Rows() >= snapshotMin:
			if !all && n < max(snapshotMin, x.Rows()/2) {
				continue
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("saving vectors: %w", err)
			}
			start := time.Now()
			if err := x.Save(filepath.Join(dir, snapFile(ns)), s.seq, s.snapTag(ns)); err != nil {
				return err
			}
			s.log.Debug("vector snapshot saved", "namespace", ns, "windows", x.Rows(), "took", time.Since(start).Round(time.Millisecond))
			s.vec.stamps[ns], s.vec.through[ns] = s.seq, s.seq
			delete(s.vec.unsaved, ns)
			changed = true
		case all:
			if _, ok := s.vec.stamps[ns]; ok {
				delete(s.vec.stamps, ns)
				delete(s.vec.through, ns)
				gone = append(gone, ns)
				changed = true
			}
			delete(s.vec.unsaved, ns)
		}
	}
	if !changed && !all {
		return nil
	}
	// the namespaces unchanged since their snapshot are so up to now
	for ns := range s.vec.stamps {
		if _, dirty := s.vec.unsaved[ns]; !dirty && s.vec.through[ns] != s.seq {
			s.vec.through[ns] = s.seq
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if err := s.writeManifest(); err != nil {
		return err
	}
	for _, ns := range gone {
		os.Remove(filepath.Join(dir, snapFile(ns)))
	}
	return nil
}

// writeManifest writes the manifest of s.vec.stamps atomically.
func (s *Store) writeManifest() error {
	dir := filepath.Join(s.dir, snapDir)
	mf := manifest{Version: manifestVer, Store: s.vec.storeID, Embedder: s.embedderID, Dims: s.dims, Namespaces: map[string]snapEntry{}}
	for ns, st := range s.vec.stamps {
		mf.Namespaces[ns] = snapEntry{File: snapFile(ns), Stamp: st, Through: s.vec.through[ns]}
	}
	raw, _ := json.Marshal(mf) // strings and numbers always encode
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the vector manifest: %w", err)
	}
	tmp := filepath.Join(dir, manifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("writing the vector manifest: %w", err)
	}
	_, err = f.Write(raw)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, manifestName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing the vector manifest: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// RebuildVectors replaces the vector side and its snapshots with what the
// records give (no re-embedding), and returns how many memories and
// windows it holds: `agentmem reindex --vectors` runs it, when agentmem
// check finds a snapshot that does not match the records.
func (s *Store) RebuildVectors(ctx context.Context) (memories, windows int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	s.log.Info("rebuilding the vectors from the records, as asked")
	if err := s.dropSnapshots(); err != nil {
		return 0, 0, err
	}
	if err := s.guard(s.loadVectors); err != nil {
		return 0, 0, err
	}
	for _, x := range s.vec.byNS {
		memories, windows = memories+x.Len(), windows+x.Rows()
	}
	return memories, windows, s.saveSnapshots(true)
}

// dropSnapshots removes every snapshot and the manifest.
func (s *Store) dropSnapshots() error {
	s.vec.stamps, s.vec.through = map[string]uint64{}, map[string]uint64{}
	if err := os.RemoveAll(filepath.Join(s.dir, snapDir)); err != nil {
		return fmt.Errorf("removing vector snapshots: %w", err)
	}
	return nil
}

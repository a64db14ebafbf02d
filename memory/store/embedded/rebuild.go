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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory/hybrid"
)

// The text indexes are derived from the records, so whenever one cannot be
// trusted it is rebuilt from them. Open checks, cheaply, that each
// namespace's index is the one these records made and that it is up to
// date:
//
//   - identity: the records and the index carry the same store id (an index
//     copied from another data directory is not this one's), and the index
//     names the namespace whose directory it is in;
//   - sequence: the records' meta remembers the last journal entry written
//     and the last one trimmed, and per namespace the last one that changed
//     its text; an index that lacks an entry of its namespace that was
//     trimmed is older than the records (restored from a backup), one that
//     applied an entry never written is newer (the records were restored);
//   - count: after the journal's replay, the index holds at least one
//     document per memory of its namespace.
//
// A missing index, an empty one, one bleve cannot open, one whose rebuild
// was interrupted, and one built by another version of the mapping are
// rebuilt too, each from its namespace's records only. Every rebuild logs
// why and its progress. A store whose records are empty or missing beside
// an index that holds documents is an error, never an empty store.

var (
	// bbolt meta keys
	keyStoreID = []byte("store-id") // random id of this data directory's records
	keyLastSeq = []byte("last-seq") // last journal entry ever written
	keyTrimmed = []byte("trimmed")  // last journal entry trimmed (applied by every index)

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
	raw = append(raw, "v"+strconv.Itoa(hybrid.DocVersion)...)
	sum := sha256.Sum256(raw)
	return []byte(hex.EncodeToString(sum[:8]))
}

// recordState is what the records say about the indexes they expect.
type recordState struct {
	id      []byte
	lastSeq uint64 // 0: unknown (a store written before it was kept)
	trimmed uint64
	journal int  // entries not yet trimmed
	empty   bool // no memories
	// counts holds the memories of each namespace (their session entries:
	// smaller than the records, so faster to walk), text the last journal
	// entry that changed each namespace's text documents, applied the last
	// one its index had persisted at the last Close (text.go)
	counts        map[string]int
	text, applied map[string]uint64
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
		readRecordState(tx, &rs)
		return nil
	})
	return rs, err
}

// readRecordState fills rs (but its id) from tx.
func readRecordState(tx *bolt.Tx, rs *recordState) {
	meta := tx.Bucket(bucketMeta)
	rs.lastSeq = seqOf(meta.Get(keyLastSeq))
	rs.trimmed = seqOf(meta.Get(keyTrimmed))
	rs.journal = tx.Bucket(bucketJournal).Stats().KeyN
	rs.counts = map[string]int{}
	for _, ns := range namespacesOf(tx) {
		rs.counts[ns] = 0
	}
	rs.empty = len(rs.counts) == 0
	c := tx.Bucket(bucketSession).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if i := bytes.IndexByte(k, 0x1f); i >= 0 {
			if n, ok := rs.counts[string(k[:i])]; ok {
				rs.counts[string(k[:i])] = n + 1
			}
		}
	}
	rs.text, rs.applied = seqs(tx, bucketText), seqs(tx, bucketApplied)
}

// seqs reads a bucket of sequences by namespace.
func seqs(tx *bolt.Tx, name []byte) map[string]uint64 {
	out := map[string]uint64{}
	if b := tx.Bucket(name); b != nil {
		b.ForEach(func(k, v []byte) error {
			out[string(k)] = seqOf(v)
			return nil
		})
	}
	return out
}

// namespaceState is what the records say about ns's index.
func (s *Store) namespaceState(ns string) (recordState, error) {
	rs := recordState{id: s.storeID, counts: map[string]int{}, text: map[string]uint64{}}
	err := s.view(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		rs.lastSeq = seqOf(meta.Get(keyLastSeq))
		rs.trimmed = seqOf(meta.Get(keyTrimmed))
		prefix := []byte(ns + "\x1f")
		c := tx.Bucket(bucketSession).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			rs.counts[ns]++
		}
		if b := tx.Bucket(bucketText); b != nil {
			rs.text[ns] = seqOf(b.Get([]byte(ns)))
		}
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

// openText finds the index of every namespace that holds memories. It
// opens those that may lack journal entries (written since the last Close
// recorded what they had persisted) and brings them up to date from the
// journal, and rebuilds from the records each one that is missing or, of
// those opened, unreadable, empty, stale, another store's or another
// namespace's, or built with another mapping; the others are checked at
// their first use (see check). A data directory of the single-index layout
// is rebuilt per namespace. Then it trims the journal back to what every
// index (and vector snapshot) has persisted.
func (s *Store) openText(ctx context.Context) error {
	rs, err := s.recordState()
	if err != nil {
		return err
	}
	s.seq = max(s.seq, rs.lastSeq)
	s.storeID = rs.id
	s.texts = map[string]*textIndex{}
	if err := s.removeStrays(rs); err != nil {
		return err
	}
	if legacy := filepath.Join(s.dir, legacyIndex); exists(legacy) {
		s.log.Warn("the text index is one index of every namespace (an older layout); rebuilding it from the records, one index per namespace", "index", legacy, "namespaces", len(rs.counts))
		return s.rebuildAll(ctx, nil)
	}
	lagging := map[string]uint64{} // namespace: the entry its index applied
	stale := map[string]string{}   // namespace: why it is rebuilt
	for _, ns := range slices.Sorted(maps.Keys(rs.counts)) {
		t := &textIndex{ns: ns, path: textPath(s.dir, ns)}
		s.texts[ns] = t
		switch {
		case !exists(t.path):
			stale[ns] = "the text index is missing"
		case rs.text[ns] > rs.applied[ns]:
			q, why, err := s.openChecked(t, rs)
			switch {
			case err != nil:
				return err
			case why != "":
				stale[ns] = why
			case q < rs.text[ns]:
				lagging[ns] = q
			}
		}
	}
	err = s.replay(ctx, lagging)
	switch {
	case errors.Is(err, errJournal):
		for ns := range lagging {
			stale[ns] = err.Error()
			delete(lagging, ns)
		}
	case err != nil:
		return fmt.Errorf("replaying the journal into the text indexes: %w", err)
	}
	if err := s.countDocuments(rs, stale); err != nil {
		return err
	}
	if err := s.rebuildStale(ctx, stale); err != nil {
		return err
	}
	// what the indexes read back at open is on disk
	floor := min(s.seq, s.vecFloor())
	for ns, q := range lagging {
		if stale[ns] == "" {
			floor = min(floor, q)
		}
	}
	if err := s.update(func(tx *bolt.Tx) error { return trim(tx, floor) }); err != nil {
		return err
	}
	return s.evict(nil)
}

// check opens t's index at its first use since Open, brings it up to date
// from the journal, and rebuilds it from the records when it is unreadable,
// empty, stale, another store's or another namespace's, or built with
// another mapping, as Open does for the indexes it opens. Callers hold s.mu.
func (s *Store) check(ctx context.Context, t *textIndex) error {
	rs, err := s.namespaceState(t.ns)
	if err != nil {
		return err
	}
	q, why, err := s.openChecked(t, rs)
	if err != nil {
		return err
	}
	if why == "" && q < rs.text[t.ns] {
		err := s.replay(ctx, map[string]uint64{t.ns: q})
		switch {
		case errors.Is(err, errJournal):
			why = err.Error()
		case err != nil:
			return fmt.Errorf("replaying the journal into the text index %s: %w", t.path, err)
		}
	}
	stale := map[string]string{}
	if why != "" {
		stale[t.ns] = why
	} else if err := s.countDocuments(rs, stale); err != nil {
		return err
	}
	return s.rebuildStale(ctx, stale)
}

// openChecked opens t's index and says why it cannot be brought up to date
// from the journal ("" when it can), with the entry it applied; it leaves
// the index open only when it can.
func (s *Store) openChecked(t *textIndex, rs recordState) (uint64, string, error) {
	idx, err := openIndex(t.path, scorchConfig())
	switch {
	case errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
		return 0, "the text index is missing", nil
	case errors.Is(err, fs.ErrPermission):
		return 0, "", fmt.Errorf("opening the text index %s: %w", t.path, err)
	case err != nil:
		return 0, fmt.Sprintf("the text index cannot be opened (%v)", err), nil
	}
	why, q, err := textProblem(idx, t.ns, rs)
	if err != nil || why != "" {
		idx.Close()
		if err != nil {
			return 0, "", fmt.Errorf("reading the text index %s: %w", t.path, err)
		}
		return 0, why, nil
	}
	t.idx, t.q, t.checked = idx, q, true
	// the journal's replay (after an unclean stop) must not meet damage:
	// a batch on a damaged segment can fail or panic, and Open with it.
	// Every unchecked segment is checked before it, however large; an
	// index with nothing to replay is checked at its first use
	// (verifySegments)
	if q < rs.text[t.ns] {
		todo, _ := s.unchecked(t)
		if why := s.verifyFiles(todo, nil); why != "" {
			idx.Close()
			t.idx, t.checked = nil, false
			return 0, "the text index is damaged (" + why + ")", nil
		}
	}
	return q, "", nil
}

// textProblem says why idx cannot serve as ns's index in the store rs
// describes, even after the journal's replay ("" when it can), and returns
// the last journal entry it applied. Open and Check share it.
//
// otherVersion is its answer for an index built by an agentmem that derives
// documents otherwise (mappingDigest): no damage, and rebuilt at its first
// use.
const otherVersion = "the text index was built by another version of agentmem, which derives its documents otherwise"

func textProblem(idx bleve.Index, ns string, rs recordState) (string, uint64, error) {
	var vals [4][]byte
	for i, k := range [][]byte{keyMapping, keyIndexStoreID, keyNamespace, keySeq} {
		v, err := idx.GetInternal(k)
		if err != nil {
			return "", 0, err
		}
		vals[i] = v
	}
	built, id, holds, q := vals[0], vals[1], string(vals[2]), seqOf(vals[3])
	switch {
	case len(built) == 0:
		return "the text index is incomplete (its rebuild was interrupted)", q, nil
	case !bytes.Equal(built, mappingDigest()):
		return otherVersion, q, nil
	case !bytes.Equal(id, rs.id):
		return "the text index belongs to another data directory", q, nil
	case holds != ns:
		return fmt.Sprintf("the text index holds namespace %q, not %q", holds, ns), q, nil
	case rs.lastSeq > 0 && q > rs.lastSeq:
		return fmt.Sprintf("the text index is newer than the records (it applied journal entry %d, the records wrote up to %d)", q, rs.lastSeq), q, nil
	case q < rs.text[ns] && q < rs.trimmed:
		return fmt.Sprintf("the text index is older than the records (it applied journal entry %d, the records trimmed up to %d)", q, rs.trimmed), q, nil
	}
	return "", q, nil
}

// countDocuments marks stale each open index of rs's namespaces that,
// after the journal's replay, holds fewer documents than its namespace
// holds memories.
func (s *Store) countDocuments(rs recordState, stale map[string]string) error {
	for ns, want := range rs.counts {
		t := s.texts[ns]
		if t == nil || t.idx == nil {
			continue
		}
		n, err := t.idx.DocCount()
		if err != nil {
			return fmt.Errorf("reading the text index %s: %w", t.path, err)
		}
		if n < uint64(want) {
			stale[ns] = fmt.Sprintf("the text index holds %d documents for %d memories", n, want)
		}
	}
	return nil
}

// removeStrays removes the indexes of namespaces that hold no memories
// (left by a delete interrupted before it removed its namespace's index),
// unless the records hold none at all beside an index with documents: the
// record file was then lost or replaced, which is an error.
func (s *Store) removeStrays(rs recordState) error {
	keep := map[string]bool{}
	for ns := range rs.counts {
		keep[filepath.Base(textPath(s.dir, ns))] = true
	}
	dirs, _ := os.ReadDir(filepath.Join(s.dir, textDir))
	paths := []string{filepath.Join(s.dir, legacyIndex)}
	for _, d := range dirs {
		if !keep[d.Name()] {
			paths = append(paths, filepath.Join(s.dir, textDir, d.Name()))
		}
	}
	for i, path := range paths {
		if rs.empty && rs.journal == 0 && holdsDocuments(path) {
			return s.orphanIndex(path, "holds no memories")
		}
		if i > 0 {
			s.log.Warn("removing the text index of a namespace that holds no memories", "index", path)
			if err := os.RemoveAll(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsDocuments reports whether the index at path holds documents, or
// cannot be opened but has segments.
func holdsDocuments(path string) bool {
	if !hasSegments(path) {
		return false
	}
	idx, err := openIndex(path, map[string]any{"read_only": true})
	if err != nil {
		return true
	}
	defer idx.Close()
	n, err := idx.DocCount()
	return err != nil || n > 0
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// orphanIndex is the error for records that are empty beside an index that
// holds documents: the record file was replaced, emptied or lost.
func (s *Store) orphanIndex(path, what string) error {
	return fmt.Errorf("%w: the record file %s %s, but the text index %s holds documents: the record file was deleted, emptied or replaced. Restore it from a backup (agentmem stopped); to start an empty store instead, move %s away",
		ErrDamaged, filepath.Join(s.dir, recordFile), what, path, filepath.Join(s.dir, textDir))
}

// hasSegments reports whether an index directory holds any segment file,
// which a new, empty index does not.
func hasSegments(path string) bool {
	m, _ := filepath.Glob(filepath.Join(path, "store", "*.zap"))
	return len(m) > 0
}

// anyHasSegments reports whether any text index in the store directory dir
// (of either layout) holds a segment file.
func anyHasSegments(dir string) bool {
	if hasSegments(filepath.Join(dir, legacyIndex)) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, textDir, "*", "store", "*.zap"))
	return len(m) > 0
}

// RebuildText replaces every text index with one derived from the records,
// calling progress (when not nil) as it goes; `agentmem reindex` runs it.
func (s *Store) RebuildText(ctx context.Context, progress func(done, total int)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushLocked(); err != nil {
		return err
	}
	s.log.Info("rebuilding the text indexes from the records, as asked")
	return s.rebuildAll(ctx, progress)
}

// rebuildAll rebuilds the index of every namespace holding memories,
// removes every other index (and one of the older single-index layout),
// and trims the journal.
func (s *Store) rebuildAll(ctx context.Context, progress func(done, total int)) error {
	var names []string
	if err := s.view(func(tx *bolt.Tx) error {
		names = namespacesOf(tx)
		return nil
	}); err != nil {
		return err
	}
	if err := s.rebuild(ctx, names, progress); err != nil {
		return err
	}
	for ns := range s.texts {
		if !slices.Contains(names, ns) {
			if err := s.dropText(ns); err != nil {
				return err
			}
		}
	}
	keep := map[string]bool{}
	for _, ns := range names {
		keep[filepath.Base(textPath(s.dir, ns))] = true
	}
	dirs, _ := os.ReadDir(filepath.Join(s.dir, textDir))
	s.checksDone()
	for _, d := range dirs {
		if !keep[d.Name()] {
			if err := os.RemoveAll(filepath.Join(s.dir, textDir, d.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(s.dir, legacyIndex)); err != nil {
		return fmt.Errorf("removing the text index of the older layout: %w", err)
	}
	// the journal stays back to the vector snapshots (snapshot.go)
	return s.update(func(tx *bolt.Tx) error { return trim(tx, min(s.seq, s.vecFloor())) })
}

// rebuildStale rebuilds the indexes of stale (namespace: why), saying why.
func (s *Store) rebuildStale(ctx context.Context, stale map[string]string) error {
	if len(stale) == 0 {
		return nil
	}
	byWhy := map[string][]string{}
	for ns, why := range stale {
		byWhy[why] = append(byWhy[why], ns)
	}
	for _, why := range slices.Sorted(maps.Keys(byWhy)) {
		names := byWhy[why]
		slices.Sort(names)
		shown := names[:min(len(names), 5)]
		s.log.Warn(why+"; rebuilding it from the records", "namespaces", len(names), "first", shown)
	}
	return s.rebuild(ctx, slices.Sorted(maps.Keys(stale)), nil)
}

// namespacesOf lists the namespaces that hold memories, seeking from one
// to the next.
func namespacesOf(tx *bolt.Tx) []string {
	var out []string
	c := tx.Bucket(bucketMem).Cursor()
	for k, _ := c.First(); k != nil; {
		ns, _ := splitKey(string(k))
		out = append(out, ns)
		k, _ = c.Seek([]byte(ns + "\x20")) // past every key of ns (ns 0x1f id)
	}
	return out
}

// namespaceKeys lists the index keys the records of ns make: its memories'.
func namespaceKeys(tx *bolt.Tx, ns string) []string {
	prefix := []byte(ns + "\x1f")
	var keys []string
	c := tx.Bucket(bucketMem).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, string(k))
	}
	return keys
}

// rebuild replaces the indexes of names with ones derived from the
// records, logging its progress every 5 s.
func (s *Store) rebuild(ctx context.Context, names []string, progress func(done, total int)) error {
	start := time.Now()
	keys := make([][]string, len(names))
	total := 0
	if err := s.view(func(tx *bolt.Tx) error {
		for i, ns := range names {
			keys[i] = namespaceKeys(tx, ns)
			total += len(keys[i])
		}
		return nil
	}); err != nil {
		return fmt.Errorf("listing the records: %w", err)
	}
	done, last := 0, time.Now()
	report := func(n int) {
		done += n
		if progress != nil {
			progress(done, total)
		}
		if time.Since(last) > 5*time.Second {
			s.log.Info("rebuilding the text indexes", "documents", done, "of", total)
			last = time.Now()
		}
	}
	for i, ns := range names {
		if err := s.rebuildNamespace(ctx, ns, keys[i], report); err != nil {
			return err
		}
	}
	s.log.Info("text index rebuilt", "namespaces", len(names), "documents", total, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// rebuildNamespace replaces ns's index with one holding the documents of
// keys. The index records its mapping only once complete: an interrupted
// rebuild is rebuilt at the next open.
func (s *Store) rebuildNamespace(ctx context.Context, ns string, keys []string, report func(int)) (err error) {
	t := s.texts[ns]
	if t == nil {
		t = &textIndex{ns: ns, path: textPath(s.dir, ns)}
		s.texts[ns] = t
	}
	if t.idx != nil {
		t.idx.Close()
	}
	s.npend -= len(t.dirty)
	t.idx, t.dirty, t.checked, t.q = nil, nil, false, 0
	s.checksDone()
	if err := os.RemoveAll(t.path); err != nil {
		return fmt.Errorf("removing the old text index: %w", err)
	}
	if len(keys) == 0 {
		delete(s.texts, ns)
		return nil
	}
	idx, err := s.createText(ns, t.path, 0, false)
	if err != nil {
		return err
	}
	t.idx = idx
	t.used.Store(s.clock.Add(1))
	defer func() {
		if err != nil {
			// an index rebuilt part way (cancelled, a failed batch) must
			// not serve searches as if whole: closed, it is checked and
			// rebuilt again at its next use (it records no mapping yet)
			idx.Close()
			t.idx, t.checked = nil, false
		}
	}()
	for start := 0; start < len(keys); start += flushAt {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := keys[start:min(start+flushAt, len(keys))]
		b := idx.NewBatch()
		if err := s.view(func(tx *bolt.Tx) error { return s.applyTo(tx, b, chunk) }); err != nil {
			return err
		}
		if err := idx.Batch(b); err != nil {
			return fmt.Errorf("rebuilding the text index %s: %w", t.path, err)
		}
		report(len(chunk))
	}
	b := idx.NewBatch()
	b.SetInternal(keySeq, seqKey(s.seq))
	b.SetInternal(keyMapping, mappingDigest())
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("rebuilding the text index %s: %w", t.path, err)
	}
	// the journal is trimmed only once the index is on disk (scorch.go)
	if err := persisted(idx, t.path, persistTimeout); err != nil {
		return fmt.Errorf("rebuilding the text index %s: %w", t.path, err)
	}
	t.checked, t.q = true, s.seq
	return s.evict(t)
}

// splitSessionKey is the inverse of sessionKey's namespace and session.
func splitSessionKey(k []byte) (ns, session string, ok bool) {
	n, rest, ok := bytes.Cut(k, []byte{0x1f})
	if !ok {
		return "", "", false
	}
	sess, turn, ok := bytes.Cut(rest, []byte{0x1f})
	if !ok || len(turn) != 4 {
		return "", "", false
	}
	return string(n), string(sess), true
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

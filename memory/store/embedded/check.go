package embedded

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"agentmem/memory"
	"agentmem/memory/internal/boltfile"
)

// Report is what Check found in a store's directory.
type Report struct {
	Memories, Sessions, Vectors int
	// Marks counts the marks of forgotten turns (forgotten.go), each
	// checked: readable, and at a turn the store does not hold.
	Marks int
	// Recipe is the recipe recorded for the vectors (Options.Recipe; ""
	// when none was).
	Recipe string
	// Indexes counts the namespaces' text indexes, IndexDocuments their
	// documents; Lagging, the indexes the journal has entries for that
	// they have not applied (the next open applies them: a crash since the
	// last write).
	Indexes, IndexDocuments, Lagging int
	// Outdated counts the indexes built by another version of agentmem,
	// which its first use rebuilds from the records: no damage, and their
	// documents are not counted.
	Outdated int
	// Pending counts the memories stored before their vectors were made
	// (a long remember): the next server embeds them.
	Pending int
	// Reembedded counts the memories embedded by another embedder than the
	// store's: an interrupted `agentmem reindex` (the store records its new
	// embedder once every memory has it), which running it again
	// finishes. No damage; vector search leaves them out until then.
	Reembedded int
	// ReembeddedTo describes the embedder of one of them: the one to
	// reindex with again.
	ReembeddedTo string
	// LackWindows counts, in a store whose recorded recipe is the current
	// one (memory.Recipe), the memories with fewer vectors than it gives
	// them (memory.LacksSentenceWindows): an earlier agentmem wrote them
	// after the store was upgraded. No damage; a reindex gives them theirs.
	LackWindows int
	// Records lists damage to the record file: only a backup repairs it.
	Records []string
	// Index lists problems of the text indexes, which are derived from the
	// records: `agentmem reindex --text` (or opening the store, for what
	// its cheap checks see) rebuilds it.
	Index []string
	// Snapshotted counts the namespaces whose vector snapshot was found
	// intact and equal to the records, SnapshotWindows their windows.
	Snapshotted, SnapshotWindows int
	// SnapshotsStale counts the snapshots saved after the manifest was
	// last written (a stop between the two), and SnapshotLeftovers the
	// files of vectors/ no manifest names (a stop during a save): the next
	// open rebuilds the first from the records and removes the second. No
	// damage.
	SnapshotsStale, SnapshotLeftovers int
	// Snapshots lists problems of the vector snapshots, which are derived
	// from the records too: `agentmem reindex --vectors` rebuilds them
	// (the next open rebuilds, by itself, a snapshot it cannot use; not
	// one whose checksums hold over wrong vectors).
	Snapshots []string
}

// OK reports whether Check found nothing wrong.
func (r *Report) OK() bool { return len(r.Records) == 0 && len(r.Index) == 0 && len(r.Snapshots) == 0 }

// maxProblems bounds each list of a report: a badly damaged file could
// otherwise give one line per record.
const maxProblems = 50

// MoreProblems ends a report's list that was cut at maxProblems.
const MoreProblems = "… (more problems not listed)"

func (r *Report) record(format string, args ...any) { addProblem(&r.Records, format, args) }
func (r *Report) index(format string, args ...any)  { addProblem(&r.Index, format, args) }
func (r *Report) snapshot(format string, args ...any) {
	addProblem(&r.Snapshots, format, args)
}

func addProblem(list *[]string, format string, args []any) {
	if len(*list) < maxProblems {
		*list = append(*list, fmt.Sprintf(format, args...))
	} else if len(*list) == maxProblems {
		*list = append(*list, MoreProblems)
	}
}

// Check verifies the store in dir without changing it: the record file's
// structure (bbolt's own consistency check), every record (it decodes, its
// key is its namespace and id, its session entry and vectors agree with
// it), and each namespace's text index (it opens, it is this store's and
// this namespace's and up to date, and it holds exactly one document per
// memory of the namespace; no other index is left), and each namespace's
// vector snapshot (checkSnapshots). It
// returns an error only when it cannot check at all (the store is in use).
func Check(ctx context.Context, dir string) (*Report, error) {
	return check(ctx, dir, true)
}

// CheckRecords is Check of the record file alone (what a reindex, which
// rebuilds the indexes from it, needs to trust).
func CheckRecords(ctx context.Context, dir string) (*Report, error) {
	return check(ctx, dir, false)
}

func check(ctx context.Context, dir string, indexes bool) (*Report, error) {
	r := &Report{}
	path := filepath.Join(dir, recordFile)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.record("%s is missing", path)
	case err != nil:
		return nil, err
	case fi.Size() == 0:
		r.record("%s is empty", path)
	}
	if len(r.Records) > 0 {
		if anyHasSegments(dir) {
			r.record("the text indexes beside it hold documents: the memories were there")
		}
		return r, nil
	}
	db, err := openReadOnly(path)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: stop the agentmem server using %s, or let the command that holds it (an import, a reindex) finish, then check again", memory.ErrInUse, dir)
	}
	if err != nil {
		r.record("%s cannot be opened: %v", path, err)
		return r, nil
	}
	defer closeQuietly(db)
	var expect map[string]bool
	var rs recordState
	var sums recordSums
	if indexes {
		sums = snapshotted(dir) // what the snapshots are compared with
	}
	boltfile.Guard(func() {
		if err := db.View(func(tx *bolt.Tx) error {
			var err error
			expect, rs, err = checkRecords(ctx, tx, path, r, sums)
			return err
		}); err != nil {
			r.record("%s: %v", path, err)
		}
	}, func(p any) { r.record("%s is damaged: reading it failed (%v)", path, p) })
	if len(r.Records) > 0 || !indexes {
		return r, ctx.Err()
	}
	checkIndexes(ctx, dir, expect, rs, r)
	checkSnapshots(ctx, dir, db, sums, r)
	return r, ctx.Err()
}

func openReadOnly(path string) (db *bolt.DB, err error) {
	var file *os.File
	boltfile.Guard(func() {
		db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second, PreLoadFreelist: true, OpenFile: boltfile.KeepFile(&file)})
	}, func(p any) {
		boltfile.Release(file)
		err = fmt.Errorf("%v", p)
	})
	if err == nil {
		var why string
		boltfile.Guard(func() { why, err = boltfile.Truncated(db, path) }, func(p any) { err = fmt.Errorf("%v", p) })
		if err == nil && why != "" {
			err = errors.New(why)
		}
		if err != nil {
			closeQuietly(db)
			boltfile.Release(file)
			db = nil
		}
	}
	if db != nil {
		files.Store(db, file)
	}
	return db, err
}

// checkRecords verifies the record file in tx and returns the index keys
// its records imply.
func checkRecords(ctx context.Context, tx *bolt.Tx, path string, r *Report, sums recordSums) (map[string]bool, recordState, error) {
	var rs recordState
	for err := range tx.Check() {
		r.record("%s: %v", path, err)
	}
	if len(r.Records) > 0 {
		return nil, rs, nil
	}
	buckets := map[string]*bolt.Bucket{}
	for _, b := range [][]byte{bucketMeta, bucketMem, bucketVec, bucketSession, bucketJournal} {
		buckets[string(b)] = tx.Bucket(b)
		if buckets[string(b)] == nil {
			r.record("%s has no %q bucket", path, b)
		}
	}
	if len(r.Records) > 0 {
		return nil, rs, nil
	}
	meta, mem, vec, sess := buckets["meta"], buckets["mem"], buckets["vec"], buckets["session"]
	pending := tx.Bucket(bucketPending) // nil in an older store's
	embedderID := string(meta.Get(keyEmbedder))
	dims, _ := strconv.Atoi(string(meta.Get(keyDims)))
	r.Recipe = string(meta.Get(keyRecipe))
	rs.id = append([]byte(nil), meta.Get(keyStoreID)...)
	readRecordState(tx, &rs)
	expect, err := checkMemories(ctx, r, mem, vec, sess, pending, sums, embedderID, dims)
	if err != nil {
		return nil, rs, err
	}
	if err := checkSessions(r, mem, sess); err != nil {
		return nil, rs, err
	}
	checkMarks(r, tx.Bucket(bucketForgot), sess)
	if err := checkOrphans(r, mem, tx.Bucket(bucketPending), &r.Pending, "pending vectors"); err != nil {
		return nil, rs, err
	}
	if err := checkOrphans(r, mem, vec, &r.Vectors, "vectors"); err != nil {
		return nil, rs, err
	}
	err = checkJournal(r, buckets["journal"], rs.lastSeq)
	return expect, rs, err
}

// checkMemories verifies each record of mem (it decodes, its key is its
// namespace and id, its session entry in sess names it, its vectors in vec
// agree with it: checkStoredVectors), counting them in r, adds each to
// sums, and returns the index keys they imply. It stops at ctx's end.
func checkMemories(ctx context.Context, r *Report, mem, vec, sess, pending *bolt.Bucket, sums recordSums, embedderID string, dims int) (map[string]bool, error) {
	expect := map[string]bool{}
	n := 0
	err := mem.ForEach(func(k, v []byte) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.Memories++
		m, err := decode(v)
		if err != nil {
			r.record("record %q: %v", k, err)
			return nil
		}
		if string(k) != key(m.Namespace, m.ID) {
			r.record("record %q holds memory %q of namespace %q", k, m.ID, m.Namespace)
			return nil
		}
		expect[string(k)] = true
		if id := sess.Get(sessionKey(m.Namespace, m.SessionID, m.Turn)); string(id) != m.ID {
			r.record("memory %q of namespace %q: its session entry (session %q, turn %d) names %q", m.ID, m.Namespace, m.SessionID, m.Turn, id)
		}
		raw := vec.Get(k)
		sums.add(m, raw, m.Embedder == embedderID)
		checkStoredVectors(r, k, m, raw, pending, embedderID, dims)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return expect, nil
}

// checkStoredVectors verifies raw, the vectors of memory m (of key k):
// that they are there exactly when it names an embedder, and decode where
// that is the store's (embedderID, of dims dimensions); it counts in r
// the memories of another embedder (an interrupted reindex) and those
// that lack the current recipe's sentence windows.
func checkStoredVectors(r *Report, k []byte, m memory.Memory, raw []byte, pending *bolt.Bucket, embedderID string, dims int) {
	switch {
	case m.Embedder == "" && raw != nil:
		r.record("memory %q of namespace %q has vectors but no embedder", m.ID, m.Namespace)
	case m.Embedder != "" && raw == nil:
		r.record("memory %q of namespace %q has no vectors", m.ID, m.Namespace)
	case m.Embedder != embedderID && (m.Embedder != "" || pending == nil || pending.Get(k) == nil):
		// by the new embedder of an interrupted reindex (none: the
		// vectors dropped), not waiting for the store's
		r.Reembedded++
		r.ReembeddedTo = cmp.Or(m.Embedder, "none")
		if len(raw)%4 != 0 {
			r.record("memory %q of namespace %q: its vectors are %d bytes, not float32 values", m.ID, m.Namespace, len(raw))
		}
	case raw != nil:
		vs, err := decodeVectors(raw, dims)
		if err != nil {
			r.record("memory %q of namespace %q: %v", m.ID, m.Namespace, err)
			break
		}
		m.Vectors = vs
		if r.Recipe == memory.Recipe && memory.LacksSentenceWindows(m) {
			r.LackWindows++
		}
	}
}

// checkSessions verifies each session entry of sess: that it names a
// stored memory of mem, of its session and turn; it counts the sessions
// in r.
func checkSessions(r *Report, mem, sess *bolt.Bucket) error {
	sessions := map[string]bool{}
	err := sess.ForEach(func(k, id []byte) error {
		ns, session, ok := splitSessionKey(k)
		if !ok {
			r.record("malformed session entry %q", k)
			return nil
		}
		sessions[ns+"\x1f"+session] = true
		raw := mem.Get([]byte(key(ns, string(id))))
		if raw == nil {
			r.record("session %q of namespace %q, turn %d, names memory %q, which is not stored", session, ns, turnOf(k), id)
			return nil
		}
		if m, err := decode(raw); err == nil && (m.SessionID != session || m.Turn != turnOf(k)) {
			r.record("session %q of namespace %q, turn %d, names memory %q, which is turn %d of session %q", session, ns, turnOf(k), id, m.Turn, m.SessionID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Sessions = len(sessions)
	return nil
}

// checkOrphans counts in n the entries of b (nil: none) keyed by a
// memory's key, and records those whose memory mem does not hold.
func checkOrphans(r *Report, mem, b *bolt.Bucket, n *int, what string) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, _ []byte) error {
		*n++
		if mem.Get(k) == nil {
			r.record("%s %q belong to no memory", what, k)
		}
		return nil
	})
}

// checkJournal verifies that each entry of journal reads, and none is past
// lastSeq, the last one written (0: unknown).
func checkJournal(r *Report, journal *bolt.Bucket, lastSeq uint64) error {
	return journal.ForEach(func(k, v []byte) error {
		var e entry
		if len(k) != 8 || json.Unmarshal(v, &e) != nil {
			r.record("journal entry %x cannot be read", k)
		} else if s := seqOf(k); lastSeq > 0 && s > lastSeq {
			r.record("journal entry %d is past the last one written (%d)", s, lastSeq)
		}
		return nil
	})
}

// checkIndexes verifies the text index of each namespace that expect (the
// index keys the records make) names, and that no other index is left.
func checkIndexes(ctx context.Context, dir string, expect map[string]bool, rs recordState, r *Report) {
	if legacy := filepath.Join(dir, legacyIndex); exists(legacy) {
		r.index("the text index %s is of the older layout (one index of every namespace): the next start rebuilds it per namespace", legacy)
	}
	byNS := map[string]map[string]bool{}
	for k := range expect {
		ns, _ := splitKey(k)
		if byNS[ns] == nil {
			byNS[ns] = map[string]bool{}
		}
		byNS[ns][k] = true
	}
	known := map[string]bool{}
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		path := textPath(dir, ns)
		known[filepath.Base(path)] = true
		checkIndex(ctx, path, ns, byNS[ns], rs, r)
	}
	dirs, _ := os.ReadDir(filepath.Join(dir, textDir))
	for _, d := range dirs {
		if !known[d.Name()] {
			r.index("the text index %s belongs to no namespace holding memories", filepath.Join(dir, textDir, d.Name()))
		}
	}
}

// checkIndex verifies the text index at path of namespace ns against the
// keys its records imply.
func checkIndex(ctx context.Context, path, ns string, expect map[string]bool, rs recordState, r *Report) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		r.index("namespace %q: the text index %s is missing", ns, path)
		return
	}
	var idx bleve.Index
	var err error
	boltfile.Guard(func() {
		idx, err = bleve.OpenUsing(path, map[string]any{"read_only": true})
	}, func(p any) { err = fmt.Errorf("%v", p) })
	if err != nil {
		r.index("namespace %q: the text index %s cannot be opened: %v", ns, path, err)
		return
	}
	defer idx.Close()
	r.Indexes++
	checkSegments(path, ns, liveSegments(idx), r)
	boltfile.Guard(func() { checkIndexContents(ctx, idx, path, ns, expect, rs, r) },
		func(p any) { r.index("namespace %q: the text index %s cannot be read: %v", ns, path, p) })
}

// checkSegments verifies each segment file of the index at path that
// live names (its open snapshot's; every one when live is nil) against
// the CRC-32 its footer ends with (zap writes the checksum of every byte
// before it; bleve never reads it back), so that a changed byte anywhere
// in a segment is found, where opening and counting documents read only
// its footer and dictionaries. A file no snapshot names (left by a kill
// during a merge, or being written) is not the index's.
func checkSegments(path, ns string, live map[string]bool, r *Report) {
	files, _ := filepath.Glob(filepath.Join(path, "store", "*.zap"))
	for _, f := range files {
		if live != nil && !live[filepath.Base(f)] {
			continue
		}
		if err := segmentIntact(f); err != nil {
			r.index("namespace %q: the text index segment %s is damaged: %v", ns, f, err)
		}
	}
}

// liveSegments names the segment files of idx's current snapshot, or is
// nil when that cannot be told (not scorch, or not readable).
func liveSegments(idx bleve.Index) (live map[string]bool) {
	if idx == nil {
		return nil
	}
	boltfile.Guard(func() {
		adv, err := idx.Advanced()
		if err != nil {
			return
		}
		r, err := adv.Reader()
		if err != nil {
			return
		}
		defer r.Close()
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			return
		}
		live = map[string]bool{}
		for _, ss := range snap.Segments() {
			if p, ok := ss.Segment().(segment.PersistedSegment); ok {
				live[filepath.Base(p.Path())] = true
			}
		}
	}, func(any) { live = nil })
	return live
}

func segmentIntact(path string) error { return segmentIntactUnless(path, nil) }

// errStopped ends a check of a segment cut short by its stop channel.
var errStopped = errors.New("stopped")

// segmentIntactUnless is segmentIntact, stopping with errStopped once stop
// is closed (a background check when the store closes).
func segmentIntactUnless(path string, stop <-chan struct{}) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < 4 {
		return fmt.Errorf("%d bytes, shorter than its checksum", fi.Size())
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, stoppable{io.NewSectionReader(f, 0, fi.Size()-4), stop}); err != nil {
		return err
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], fi.Size()-4); err != nil {
		return err
	}
	if got, want := h.Sum32(), binary.BigEndian.Uint32(tail[:]); got != want {
		return fmt.Errorf("its checksum does not match (CRC-32 %08x, its footer says %08x)", got, want)
	}
	return nil
}

// checkIndexContents compares the documents of ns's text index idx (at
// path) with the ones its records make (expect), counting and reporting
// in r what differs.
func checkIndexContents(ctx context.Context, idx bleve.Index, path, ns string, expect map[string]bool, rs recordState, r *Report) {
	if !indexComparable(idx, path, ns, rs, r) {
		return
	}
	ai, err := idx.Advanced()
	if err != nil {
		r.index("the text index %s: %v", path, err)
		return
	}
	rd, err := ai.Reader()
	if err != nil {
		r.index("the text index %s: %v", path, err)
		return
	}
	defer rd.Close()
	ids, err := rd.DocIDReaderAll()
	if err != nil {
		r.index("the text index %s: %v", path, err)
		return
	}
	defer ids.Close()
	seen := make(map[string]bool, len(expect))
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return
		}
		iid, err := ids.Next()
		if err != nil {
			r.index("the text index %s: %v", path, err)
			return
		}
		if iid == nil {
			break
		}
		k, err := rd.ExternalID(iid)
		if err != nil {
			r.index("the text index %s: %v", path, err)
			return
		}
		r.IndexDocuments++
		seen[k] = true
		if !expect[k] {
			r.index("namespace %q: the text index holds a document %q that no record makes", ns, k)
		}
	}
	if missing := countMissing(expect, seen); missing > 0 {
		r.index("namespace %q: the text index lacks %d of the %d documents the records make", ns, missing, len(expect))
	}
}

// indexComparable says whether ns's text index idx can be compared with
// its records: one that a problem (textProblem) or another version of
// agentmem left, or that journal entries are still to reach, is counted
// in r instead.
func indexComparable(idx bleve.Index, path, ns string, rs recordState, r *Report) bool {
	why, done, err := textProblem(idx, ns, rs)
	switch {
	case err != nil:
		r.index("namespace %q: the text index %s: %v", ns, path, err)
		return false
	case why == otherVersion:
		r.Outdated++
		return false
	case why != "":
		r.index("namespace %q: %s (%s)", ns, why, path)
		return false
	case done < rs.text[ns]:
		// journal entries not yet applied: the next open applies them, so
		// the documents may differ until then
		r.Lagging++
		return false
	}
	return true
}

// countMissing counts the keys of expect that seen lacks.
func countMissing(expect, seen map[string]bool) int {
	missing := 0
	for k := range expect {
		if !seen[k] {
			missing++
		}
	}
	return missing
}

// stoppable reads r until stop is closed.
type stoppable struct {
	r    io.Reader
	stop <-chan struct{}
}

func (s stoppable) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		return 0, errStopped
	default:
		return s.r.Read(p)
	}
}

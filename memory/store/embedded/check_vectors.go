package embedded

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
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
func checkSnapshots(ctx context.Context, dir string, db *bolt.DB, sums recordSums, r *Report) {
	sdir := filepath.Join(dir, snapDir)
	raw, err := os.ReadFile(filepath.Join(sdir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		r.SnapshotLeftovers = len(leftovers(sdir, manifest{}))
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
	r.SnapshotLeftovers = len(leftovers(sdir, mf))
	for _, ns := range slices.Sorted(maps.Keys(mf.Namespaces)) {
		if ctx.Err() != nil {
			return
		}
		e := mf.Namespaces[ns]
		x, why := at.load(sdir, ns, e, snapTagOf(storeID, embedderID, dims, ns), dims)
		switch why {
		case "":
		case savedAfterManifest:
			r.SnapshotsStale++
			continue
		default:
			r.snapshot("namespace %q: its snapshot %s is not used (%s): the next open rebuilds it from the records", ns, filepath.Join(sdir, e.File), why)
			continue
		}
		p := &problems{r: r, ns: ns}
		for err := range x.Check() {
			if !p.add("%v", err) {
				break
			}
		}
		if err := db.View(func(tx *bolt.Tx) error {
			return compareSnapshot(ctx, tx, e.Through, sums[ns], x, p)
		}); err != nil {
			p.add("comparing its snapshot with the records: %v", err)
		}
		if p.n == 0 {
			r.Snapshotted++
			r.SnapshotWindows += x.Rows()
		}
		x.Release()
	}
}

// problems adds one namespace's snapshot problems to a report, counting
// them.
type problems struct {
	r  *Report
	ns string
	n  int
}

// add reports a problem; false once the report's list is full.
func (p *problems) add(format string, args ...any) bool {
	p.n++
	p.r.snapshot("namespace %q: "+format, append([]any{p.ns}, args...)...)
	return len(p.r.Snapshots) <= maxProblems
}

// recordSum is what the snapshot check compares of a memory's record: a
// hash of the bytes of its vectors (0 when it has none of the store's
// embedder: vector search reads nothing of it) and one of its session and
// date. The records are read once, by the records' check, which fills
// them: read again beside a snapshot, at a million memories, the two
// files did not fit the page cache together (check took 375 s).
type recordSum struct{ vectors, meta uint64 }

// recordSums holds them by namespace and id, for the namespaces it was
// made with (nil: none).
type recordSums map[string]map[string]recordSum

// snapshotted makes the recordSums of the namespaces the manifest of the
// store in dir names (nil when it names none, or cannot be read).
func snapshotted(dir string) recordSums {
	raw, err := os.ReadFile(filepath.Join(dir, snapDir, manifestName))
	var mf manifest
	if err != nil || json.Unmarshal(raw, &mf) != nil || len(mf.Namespaces) == 0 {
		return nil
	}
	rs := recordSums{}
	for ns := range mf.Namespaces {
		rs[ns] = map[string]recordSum{}
	}
	return rs
}

var sumSeed = maphash.MakeSeed()

// add records m's sums; vecs is its stored vectors, ours whether they are
// the store's embedder's.
func (rs recordSums) add(m memory.Memory, vecs []byte, ours bool) {
	byID := rs[m.Namespace]
	if byID == nil {
		return // no snapshot of that namespace to compare
	}
	s := recordSum{meta: metaSum(m.SessionID, m.SessionDate.UnixNano())}
	if ours && len(vecs) > 0 {
		var h maphash.Hash
		h.SetSeed(sumSeed)
		h.Write(vecs)
		s.vectors = h.Sum64() | 1
	}
	byID[m.ID] = s
}

func metaSum(session string, date int64) uint64 {
	var h maphash.Hash
	h.SetSeed(sumSeed)
	h.WriteString(session)
	h.Write(binary.LittleEndian.AppendUint64(nil, uint64(date)))
	return h.Sum64()
}

// windowsSum hashes windows as the records store them: their float32
// values, little-endian, one after the other (snapshots are only used on
// little-endian CPUs).
func windowsSum(ws [][]float32) uint64 {
	var h maphash.Hash
	h.SetSeed(sumSeed)
	for _, w := range ws {
		h.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 4*len(w)))
	}
	return h.Sum64() | 1
}

// compareSnapshot compares x, namespace ns's snapshot, with its records'
// sums (tx reads a record again only to name what differs), leaving out
// the memories the journal names after through.
func compareSnapshot(ctx context.Context, tx *bolt.Tx, through uint64, sums map[string]recordSum, x *vectors.Index, p *problems) error {
	ns := p.ns
	later, err := keysAfter(tx, map[string]uint64{ns: through})
	if err != nil {
		return err
	}
	n := 0
	for id := range x.IDs() {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if later[key(ns, id)] {
			continue
		}
		sum, stored := sums[id]
		sess, date, ws, _ := x.Memory(id)
		ok := true
		switch {
		case !stored:
			ok = p.add("the snapshot holds memory %q, which is not stored", id)
		case sum.vectors == 0:
			ok = p.add("the snapshot holds vectors of memory %q, whose record has none of this embedder", id)
		case windowsSum(ws) != sum.vectors:
			ok = p.add("the snapshot's vectors of memory %q are not its record's", id)
		case metaSum(sess, date) != sum.meta:
			m, err := decode(tx.Bucket(bucketMem).Get([]byte(key(ns, id))))
			if err != nil {
				return fmt.Errorf("record of memory %q: %w", id, err)
			}
			ok = p.add("the snapshot gives memory %q session %q of %s; its record, session %q of %s", id, sess, nanoTime(date), m.SessionID, nanoTime(m.SessionDate.UnixNano()))
		}
		if !ok {
			return nil
		}
	}
	var lacking []string
	for id, sum := range sums {
		if sum.vectors != 0 && !later[key(ns, id)] {
			if _, _, _, held := x.Memory(id); !held {
				lacking = append(lacking, id)
			}
		}
	}
	slices.Sort(lacking)
	for _, id := range lacking {
		if !p.add("the snapshot lacks memory %q", id) {
			return nil
		}
	}
	return nil
}

// nanoTime formats Unix nanoseconds as a date and time.
func nanoTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

package embedded

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory/hybrid"
	"agentmem/memory/internal/boltfile"
)

// The text side is one bleve index per namespace, in text/<hash of the
// namespace>/ of the data directory: BM25's statistics (the document
// count, how many documents hold a word, field lengths) are then the
// namespace's own, so no namespace's scores or order depend on, or reveal,
// what another holds. Each index records, as bleve internal values, the
// namespace it holds (checked when opened: the directory name is a hash,
// never the name itself), the store it belongs to, the mapping it was
// built with, and the last journal entry it applied.
//
// The records remember, per namespace, the last journal entry that changed
// its text documents (bucketText, written in the entry's transaction), and
// the last one its index was known, at the last Close, to have persisted
// (bucketApplied). An index that applied the former is up to date however
// old its own sequence is: a namespace nobody writes to never holds the
// journal back. One that may not have (a crash since it was written) is
// opened at Open and brought up to date from the journal, or rebuilt from
// the records when the journal no longer reaches back to it.
//
// The other indexes are opened at their first use, and checked then (see
// use); at most maxOpen stay open, the least recently used being closed
// (scorch holds three goroutines and a file per segment for each open
// index; opening one takes about 1.5 ms). A namespace emptied by a delete
// loses its index; the first write to a namespace creates it.

const (
	textDir = "text"
	// legacyIndex is the single index of every namespace that data
	// directories held before; Open rebuilds it per namespace.
	legacyIndex = "index.bleve"
)

var (
	// bucketText maps a namespace to the last journal entry that changed
	// its text documents, bucketApplied to the last one its index had
	// persisted at the last Close.
	bucketText    = []byte("text")
	bucketApplied = []byte("text-applied")

	// keyNamespace is the bleve internal key naming the namespace an
	// index holds.
	keyNamespace = []byte("namespace")
)

// maxOpen is how many text indexes stay open at most.
var maxOpen = 64

// textIndex is the text index of one namespace, with the keys whose
// documents its next flush derives.
type textIndex struct {
	ns, path string
	idx      bleve.Index             // nil while closed
	checked  bool                    // checked against the records since Open
	q        uint64                  // the last journal entry it is known to have persisted
	dirty    map[string]bool         // keys whose documents the next flush derives
	used     atomic.Uint64           // when it was last used (Store.clock)
	rebuilds uint64                  // rebuilt after a failed search since Open (repairText)
	damage   atomic.Pointer[damaged] // what a background check of its segments found (verify.go)
}

// textPath is the directory of ns's index in the store directory dir.
func textPath(dir, ns string) string {
	sum := sha256.Sum256([]byte(ns))
	return filepath.Join(dir, textDir, hex.EncodeToString(sum[:16]))
}

// createText creates ns's index at path. A complete one (an empty index is
// all of a namespace before its first write) records its mapping and that
// it applied every journal entry up to seq; a rebuild records them once it
// is done (rebuildNamespace).
func (s *Store) createText(ns, path string, seq uint64, complete bool) (bleve.Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	idx, err := bleve.NewUsing(path, hybrid.LeanMapping(), "scorch", "scorch", scorchConfig())
	if err != nil {
		return nil, fmt.Errorf("creating the text index %s: %w", path, err)
	}
	b := idx.NewBatch()
	b.SetInternal(keyIndexStoreID, s.storeID)
	b.SetInternal(keyNamespace, []byte(ns))
	if complete {
		b.SetInternal(keyMapping, mappingDigest())
		b.SetInternal(keySeq, seqKey(seq))
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("creating the text index %s: %w", path, err)
	}
	return idx, nil
}

// openIndex opens the bleve index at path. A damaged index can make
// bleve panic or fault while it opens (its bbolt root file: "invalid
// freelist page"), holding the store's lock: that is returned as an
// error, so the index is rebuilt from the records, as one that fails to
// open is. The damaged root file stays open (bleve never returned it);
// the rebuild writes a new one in its place.
func openIndex(path string, config map[string]any) (idx bleve.Index, err error) {
	// the root file of an open that panicked keeps its lock: without a
	// timeout, opening it again would wait for it forever, holding s.mu
	config = maps.Clone(config)
	config["bolt_timeout"] = "2s"
	boltfile.Guard(func() { idx, err = bleve.OpenUsing(path, config) },
		func(p any) { idx, err = nil, fmt.Errorf("the text index %s is damaged: %v", path, p) })
	return idx, err
}

// textFor returns ns's index, open, creating it (as having applied every
// entry before seq) for a namespace's first write. Callers hold s.mu.
func (s *Store) textFor(ctx context.Context, ns string, seq uint64) (*textIndex, error) {
	if t := s.texts[ns]; t != nil {
		return t, s.use(ctx, t)
	}
	t := &textIndex{ns: ns, path: textPath(s.dir, ns), checked: true, q: seq - 1}
	idx, err := s.createText(ns, t.path, seq-1, true)
	if err != nil {
		return nil, err
	}
	t.idx = idx
	t.used.Store(s.clock.Add(1))
	s.texts[ns] = t
	return t, s.evict(t)
}

// use opens t's index if it is closed, checking it at its first use since
// Open (see check), and closes the least recently used others beyond
// maxOpen. Callers hold s.mu.
func (s *Store) use(ctx context.Context, t *textIndex) error {
	t.used.Store(s.clock.Add(1))
	if t.idx != nil {
		return nil
	}
	if t.checked {
		idx, err := openIndex(t.path, scorchConfig())
		if err == nil {
			t.idx = idx
			if err := s.verifySegments(ctx, t); err != nil {
				return err
			}
			return s.evict(t)
		}
		t.checked = false // gone since: checked again, so rebuilt
	}
	if err := s.check(ctx, t); err != nil {
		return err
	}
	if err := s.verifySegments(ctx, t); err != nil {
		return err
	}
	return s.evict(t)
}

// ready opens ns's index, if it has one (see use), before a write to ns
// is journalled. The first use since Open checks an index against the
// records' last entry that changed its namespace's text; once the write
// has replaced that entry with its own, an index that applied every
// earlier entry would look older than a journal trimmed since (trims
// follow vector snapshots too) and be rebuilt for nothing. Callers hold
// s.mu.
func (s *Store) ready(ctx context.Context, ns string) error {
	if t := s.texts[ns]; t != nil {
		return s.use(ctx, t)
	}
	return nil
}

// evict closes the least recently used open indexes but keep while more
// than maxOpen are open, flushing their noted documents first. Callers hold
// s.mu.
func (s *Store) evict(keep *textIndex) error {
	var open []*textIndex
	for _, t := range s.texts {
		if t.idx != nil && t != keep {
			open = append(open, t)
		}
	}
	excess := len(open) - maxOpen
	if keep != nil && keep.idx != nil {
		excess++
	}
	if excess <= 0 {
		return nil
	}
	slices.SortFunc(open, func(a, b *textIndex) int { return cmp.Compare(a.used.Load(), b.used.Load()) })
	for _, t := range open[:excess] {
		if err := s.flushIndex(t); err != nil {
			return err
		}
		if t.idx == nil {
			continue // closed by the rebuild of a damaged one (flushIndex)
		}
		t.persist(s.log)
		err := t.idx.Close()
		t.idx = nil
		if err != nil {
			return fmt.Errorf("closing the text index %s: %w", t.path, err)
		}
	}
	return nil
}

// stage notes the index keys whose documents a journal entry (seq)
// changed, in the indexes of their namespaces; the next flush derives each
// noted document once from the records (flushIndex), however many writes
// touched it (a session's page as its turns are appended one by one). An
// index is created for a namespace that has none when create is set (a
// write; a delete has nothing to remove from a namespace without one).
// Callers hold s.mu.
func (s *Store) stage(ctx context.Context, seq uint64, keys []string, create bool) error {
	byNS := byNamespace(keys)
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		t := s.texts[ns]
		var err error
		switch {
		case t != nil:
			err = s.use(ctx, t)
		case create:
			t, err = s.textFor(ctx, ns, seq)
		default:
			continue // no index to delete from
		}
		if err != nil {
			return err
		}
		if t.dirty == nil {
			t.dirty = make(map[string]bool, len(byNS[ns]))
		}
		before := len(t.dirty)
		for _, k := range byNS[ns] {
			t.dirty[k] = true
		}
		s.npend += len(t.dirty) - before
	}
	return nil
}

// flushIndex sends t's index a batch of the documents of the keys noted
// since the last flush, derived now from the committed
// records (s.mu keeps writers out, so they are what the journal entries up
// to s.seq made). It records in the batch s.seq, the store's last journal
// entry: every entry up to it that changed t's namespace is in the batch
// or was before it. Recording the store's entry rather than the
// namespace's own keeps an index whose batch is persisted after a journal
// trim from looking older than the trim (batches reach the disk after they
// return, scorch.go). Callers hold s.mu.
func (s *Store) flushIndex(t *textIndex) error {
	if len(t.dirty) == 0 {
		return nil
	}
	b, keys := t.idx.NewBatch(), slices.Sorted(maps.Keys(t.dirty))
	s.npend -= len(keys)
	t.dirty = nil
	// on an error the records and journal are durable; the next Open
	// replays them
	if err := s.view(func(tx *bolt.Tx) error { return s.applyTo(tx, b, keys) }); err != nil {
		return fmt.Errorf("indexing namespace %q: deriving the documents: %w", t.ns, err)
	}
	b.SetInternal(keySeq, seqKey(s.seq))
	// damage that no search reads (a segment's dictionary of document ids)
	// can make bleve panic as it adds the batch: read turns that into an
	// indexDamage, and a segment failing its checksum has the index
	// rebuilt from the records, which hold the batch's memories too
	var err error
	d := t.damageOf() // found by a background check (verify.go)
	if d == nil {
		err = t.read(context.Background(), func() error { return t.idx.Batch(b) })
	}
	switch {
	case d != nil || errors.As(err, &d) && d.checksum:
		if err := s.rebuildStale(context.Background(), map[string]string{t.ns: d.Error()}); err != nil {
			return fmt.Errorf("indexing namespace %q: %w; rebuilding it: %v", t.ns, d, err)
		}
		t.rebuilds++
	case errors.As(err, &d):
		return fmt.Errorf("indexing namespace %q: %w", t.ns, d.err)
	case err != nil:
		return fmt.Errorf("indexing namespace %q: %w", t.ns, err)
	}
	t.q = s.seq
	return nil
}

// persist waits until t's index holds on disk what it was sent (batches
// return before, scorch.go). If it does not, t is not recorded as applied
// at Close (closeText), so its next use checks it against the journal.
func (t *textIndex) persist(log *slog.Logger) {
	if err := persisted(t.idx, t.path, persistTimeout); err != nil {
		log.Warn("writing a text index to disk; its next use replays the journal", "namespace", t.ns, "err", err)
		t.checked = false
	}
}

// flushLocked flushes every index with noted documents. Callers hold s.mu.
func (s *Store) flushLocked() error {
	if s.npend == 0 {
		return nil
	}
	for _, ns := range slices.Sorted(maps.Keys(s.texts)) {
		if err := s.flushIndex(s.texts[ns]); err != nil {
			return err
		}
	}
	s.npend = 0
	return nil
}

// flushText flushes ns.s index. Callers hold s.mu.
func (s *Store) flushText(ns string) error {
	t := s.texts[ns]
	if t == nil {
		return nil
	}
	return s.flushIndex(t)
}

// readText returns ns's index (nil when the namespace holds nothing), open
// and with what was written to it flushed, with s.mu read-locked until
// unlock is called.
func (s *Store) readText(ctx context.Context, ns string) (t *textIndex, unlock func(), err error) {
	ready := false
	for {
		s.mu.RLock()
		t := s.texts[ns]
		if t == nil || t.idx != nil && (len(t.dirty) == 0 || ready) {
			if t != nil {
				if d := t.damageOf(); d != nil {
					s.mu.RUnlock()
					return nil, nil, d // Search rebuilds it
				}
				t.used.Store(s.clock.Add(1))
			}
			return t, s.mu.RUnlock, nil
		}
		s.mu.RUnlock()
		// opening or flushing it needs the write lock; another writer may
		// come in between, so its writes may wait for the next search
		// deferred: a panic below (a damaged index) must not leave the
		// store locked for every call after it
		err := func() error {
			s.mu.Lock()
			defer s.mu.Unlock()
			if err := s.use(ctx, t); err != nil {
				return err
			}
			return s.flushText(ns)
		}()
		if err != nil {
			return nil, nil, err
		}
		ready = true
	}
}

// dropText removes ns's index: its namespace holds no memory any more.
// Callers hold s.mu.
func (s *Store) dropText(ns string) error {
	t := s.texts[ns]
	if t == nil {
		return nil
	}
	s.npend -= len(t.dirty)
	delete(s.texts, ns)
	if t.idx != nil {
		t.idx.Close()
	}
	s.checksDone()
	if err := os.RemoveAll(t.path); err != nil {
		return fmt.Errorf("removing the text index %s of emptied namespace %q: %w", t.path, ns, err)
	}
	return nil
}

// closeText records what each index has persisted (bucketApplied), so
// that the next Open opens none it need not, and closes them. Callers
// flushed them.
func (s *Store) closeText() error {
	for _, t := range s.texts {
		if t.idx != nil {
			t.persist(s.log)
		}
	}
	err := s.update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketApplied)
		if err != nil {
			return err
		}
		for ns, t := range s.texts {
			if t.checked && t.q > 0 {
				if err := b.Put([]byte(ns), seqKey(t.q)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	for _, t := range s.texts {
		if t.idx != nil {
			err = errors.Join(err, t.idx.Close())
			t.idx = nil
		}
	}
	s.texts = nil
	return err
}

// markText records in tx that entry seq changed the text documents of the
// namespaces of keys.
func markText(tx *bolt.Tx, seq uint64, keys []string) error {
	b, err := tx.CreateBucketIfNotExists(bucketText)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, k := range keys {
		ns, _ := splitKey(k)
		if done[ns] {
			continue
		}
		done[ns] = true
		if err := b.Put([]byte(ns), seqKey(seq)); err != nil {
			return err
		}
	}
	return nil
}

// forgetText drops what the records say of ns's index, in the transaction
// that deleted ns's last memory.
func forgetText(tx *bolt.Tx, ns string) error {
	for _, name := range [][]byte{bucketText, bucketApplied} {
		if b := tx.Bucket(name); b != nil {
			if err := b.Delete([]byte(ns)); err != nil {
				return err
			}
		}
	}
	return nil
}

package embedded

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory/hybrid"
)

// The text side is one bleve index per namespace, in text/<hash of the
// namespace>/ of the data directory: BM25's statistics (the document
// count, how many documents hold a word, field lengths) are then the
// namespace's own, so no namespace's scores or order depend on, or reveal,
// what another holds. Each index records, as bleve internal values, the
// namespace it holds (checked at open: the directory name is a hash, never
// the name itself), the store it belongs to, the mapping it was built with,
// and the last journal entry it applied.
//
// The records remember, per namespace, the last journal entry that changed
// its text documents (bucketText, written in the entry's transaction). An
// index that applied that entry is up to date however old its own sequence
// is: a namespace nobody writes to never holds the journal back. One that
// did not is brought up to date from the journal at open, or rebuilt from
// the records when the journal no longer reaches back to it.
//
// Every index of a namespace holding memories is opened at Open and stays
// open (scorch: three goroutines and a file per segment each; 300
// namespaces open in about 0.4 s). A namespace emptied by a delete loses
// its index; the first write to a namespace creates it.

const (
	textDir = "text"
	// legacyIndex is the single index of every namespace that data
	// directories held before; Open rebuilds it per namespace.
	legacyIndex = "index.bleve"
)

// bucketText maps a namespace to the last journal entry that changed its
// text documents.
var bucketText = []byte("text")

// keyNamespace is the bleve internal key naming the namespace an index holds.
var keyNamespace = []byte("namespace")

// textIndex is the text index of one namespace, with the documents queued
// for its next batch.
type textIndex struct {
	ns      string
	path    string
	idx     bleve.Index
	pending *bleve.Batch
	npend   int
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
func (s *Store) createText(ns, path string, storeID []byte, seq uint64, complete bool) (*textIndex, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	idx, err := bleve.NewUsing(path, hybrid.IndexMapping(), "scorch", "scorch", nil)
	if err != nil {
		return nil, fmt.Errorf("creating the text index %s: %w", path, err)
	}
	b := idx.NewBatch()
	b.SetInternal(keyIndexStoreID, storeID)
	b.SetInternal(keyNamespace, []byte(ns))
	if complete {
		b.SetInternal(keyMapping, mappingDigest())
		b.SetInternal(keySeq, seqKey(seq))
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("creating the text index %s: %w", path, err)
	}
	return &textIndex{ns: ns, path: path, idx: idx}, nil
}

// textFor returns ns's index, creating it (as having applied every entry
// before seq) for a namespace's first write. Callers hold s.mu.
func (s *Store) textFor(ns string, seq uint64) (*textIndex, error) {
	if t := s.texts[ns]; t != nil {
		return t, nil
	}
	t, err := s.createText(ns, textPath(s.dir, ns), s.storeID, seq-1, true)
	if err != nil {
		return nil, err
	}
	s.texts[ns] = t
	return t, nil
}

// stage queues the documents of a journal entry (seq) in the batches of
// their namespaces' indexes. Callers hold s.mu.
func (s *Store) stage(seq uint64, keys []string, docs map[string]any, dels []string) error {
	for _, k := range keys {
		d, ok := docs[k]
		if !ok {
			continue
		}
		ns, _ := splitKey(k)
		t, err := s.textFor(ns, seq)
		if err != nil {
			return err
		}
		if err := t.queue(seq).Index(k, d); err != nil {
			return fmt.Errorf("indexing %q: %w", k, err)
		}
		t.npend++
		s.npend++
	}
	for _, k := range dels {
		ns, _ := splitKey(k)
		if t := s.texts[ns]; t != nil {
			t.queue(seq).Delete(k)
			t.npend++
			s.npend++
		}
	}
	return nil
}

// queue is the batch of documents waiting for t's index; it records seq
// as the last journal entry applied.
func (t *textIndex) queue(seq uint64) *bleve.Batch {
	if t.pending == nil {
		t.pending = t.idx.NewBatch()
	}
	t.pending.SetInternal(keySeq, seqKey(seq))
	return t.pending
}

// flush sends t's pending batch to its index.
func (t *textIndex) flush() error {
	if t.pending == nil {
		return nil
	}
	b := t.pending
	t.pending, t.npend = nil, 0
	if err := t.idx.Batch(b); err != nil {
		// the records and journal are durable; the next Open replays them
		return fmt.Errorf("indexing namespace %q: %w", t.ns, err)
	}
	return nil
}

// flushLocked sends every pending batch to its index. Callers hold s.mu.
func (s *Store) flushLocked() error {
	if s.npend == 0 {
		return nil
	}
	for _, ns := range s.textNames() {
		t := s.texts[ns]
		s.npend -= t.npend
		if err := t.flush(); err != nil {
			return err
		}
	}
	s.npend = 0
	return nil
}

// flushText sends ns's pending batch to its index. Callers hold s.mu.
func (s *Store) flushText(ns string) error {
	t := s.texts[ns]
	if t == nil {
		return nil
	}
	s.npend -= t.npend
	return t.flush()
}

// textNames lists the namespaces with an index, sorted.
func (s *Store) textNames() []string {
	names := make([]string, 0, len(s.texts))
	for ns := range s.texts {
		names = append(names, ns)
	}
	slices.Sort(names)
	return names
}

// dropText removes ns's index: its namespace holds no memory any more.
// Callers hold s.mu.
func (s *Store) dropText(ns string) error {
	t := s.texts[ns]
	if t == nil {
		return nil
	}
	s.npend -= t.npend
	delete(s.texts, ns)
	t.idx.Close()
	if err := os.RemoveAll(t.path); err != nil {
		return fmt.Errorf("removing the text index %s of emptied namespace %q: %w", t.path, ns, err)
	}
	return nil
}

// closeText closes every index.
func (s *Store) closeText() error {
	var first error
	for _, t := range s.texts {
		if err := t.idx.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.texts = nil
	return first
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

// appliedSeq is the last journal entry idx applied.
func appliedSeq(idx bleve.Index) (uint64, error) {
	v, err := idx.GetInternal(keySeq)
	if err != nil || len(v) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(v), nil
}

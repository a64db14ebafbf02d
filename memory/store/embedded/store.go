// Package embedded is the zero-setup store: memory records in a bbolt file,
// their text in a bleve (scorch) index per namespace with BM25 scoring, and
// their vectors in RAM per namespace (package vectors: int8 scan, exact
// re-score, snapshots). Everything lives in one data directory:
//
//	memories.db          the records, the journal (bbolt): the source of truth
//	text/<hash of ns>/   the text index of namespace ns (text.go)
//	vectors/             the vector snapshots (snapshot.go)
//
// Why bbolt for the records: a single-file, pure-Go, ACID key/value store
// with fsync'd transactions is exactly what "an acknowledged remember
// survives kill -9" needs, without cgo; SQLite's query language would be
// unused, since bleve does the searching.
//
// The bbolt file is the source of truth. Every write also appends to a
// journal in the same transaction; each namespace's bleve index records the
// last journal entry it applied (in the same batch as the documents), and
// Open replays whatever an index had not persisted when the process died.
package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/store/embedded/maxscore"
)

var (
	bucketMeta    = []byte("meta")
	bucketMem     = []byte("mem")
	bucketVec     = []byte("vec")
	bucketSession = []byte("session")
	bucketJournal = []byte("journal")

	keyEmbedder = []byte("embedder")
	keyDims     = []byte("dims")
	keyRecipe   = []byte("recipe") // absent in stores made before it was kept
	// keyRecords holds the records' format (codec.go): absent in stores
	// of JSON records (format 1), 2 since records are protobuf
	keyRecords = []byte("records")
	keySeq     = []byte("seq") // bleve internal: last journal entry applied
)

// flushAt is how many pending documents, over every namespace, trigger the
// indexes' batches: bleve indexes batches of about a thousand documents
// much faster than many small ones, so bulk ingest accumulates and a search
// flushes its namespace first.
const flushAt = 1000

// Options configure Open.
type Options struct {
	// EmbedderID and Dims describe the configured embedder ("" and 0 for
	// none). Opening a store that holds memories embedded otherwise fails
	// with memory.ErrEmbedderMismatch, unless SkipEmbedderCheck is set (for
	// reindex).
	EmbedderID        string
	Dims              int
	SkipEmbedderCheck bool
	// Recipe names how the vectors are made beyond the embedder's ID
	// (memory.Recipe). It is recorded with the embedder when the store is
	// empty and when Reindex re-embeds it; Recipe reports the recorded one,
	// so that a store of memories embedded by an earlier recipe can say
	// so. The vectors of every recipe are of the embedder's space: a store
	// of another opens as it is.
	Recipe string
	// NoSync skips fsync on each write: much faster bulk ingest, at the risk
	// of losing the last writes in a power cut (not in a process crash).
	NoSync bool
	// TextCache is the most the text indexes keep of their common words'
	// postings decoded in memory, in bytes, for fast recall in large
	// namespaces (maxscore.SetDecodedBytes). It is process-wide: the last
	// store opened with it sets it. 0: the process's as it is
	// (maxscore.DefaultDecodedBytes, 512 MB, unless set); negative: none.
	TextCache int64
	Logger    *slog.Logger
}

// Store is the embedded memory.Store.
type Store struct {
	dir     string
	db      *bolt.DB
	storeID []byte // the records' id, which every index records
	log     *slog.Logger

	// mu orders writers against each other and against flushes; vec,
	// texts and their noted documents are guarded by it.
	mu    sync.RWMutex
	vec   *vecSide              // the vector side (vectors.go)
	texts map[string]*textIndex // the text index of each namespace (text.go)
	npend int                   // documents noted in all texts, not yet flushed
	seq   uint64                // last journal entry written
	clock atomic.Uint64         // orders the texts' uses (text.go: evict)

	embedderID string
	dims       int
	recipe     string // recorded (keyRecipe)
	wantRecipe string // Options.Recipe

	damage   atomic.Pointer[error] // set once a use of the record file panicked (damage.go)
	verified verifier              // the segment files found intact (verify.go)
	closed   bool
}

var (
	_ memory.Store           = (*Store)(nil)
	_ memory.QuickSessionIDs = (*Store)(nil)
)

// Open opens or creates the store in dir.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.TextCache != 0 {
		maxscore.SetDecodedBytes(opts.TextCache) // negative: none
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	db, err := openRecords(dir, opts.NoSync) // damage.go
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, db: db, log: opts.Logger, wantRecipe: opts.Recipe}
	s.verified.stop = make(chan struct{})
	if err := s.guard(func() error { return s.init(ctx, opts) }); err != nil {
		closeQuietly(db)
		s.stopVerifying()
		s.closeText()
		s.vec.release()
		return nil, err
	}
	return s, nil
}

func (s *Store) init(ctx context.Context, opts Options) error {
	err := s.update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketMem, bucketVec, bucketSession, bucketJournal} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		storedID := string(meta.Get(keyEmbedder))
		storedDims, _ := strconv.Atoi(string(meta.Get(keyDims)))
		// a cursor, not Stats: Stats reads every page (0.07 s at 100k memories)
		first, _ := tx.Bucket(bucketMem).Cursor().First()
		empty := first == nil
		if !empty && !opts.SkipEmbedderCheck && (storedID != opts.EmbedderID || storedDims != opts.Dims) {
			return fmt.Errorf("%w: it holds vectors of %s, and this server is configured with %s; run `agentmem reindex` with the new embedder to re-embed every memory in place, or start with the old one",
				memory.ErrEmbedderMismatch, describe(storedID, storedDims), describe(opts.EmbedderID, opts.Dims))
		}
		if err := recordsFormat(meta); err != nil {
			return err
		}
		if k, _ := tx.Bucket(bucketJournal).Cursor().Last(); k != nil {
			s.seq = binary.BigEndian.Uint64(k)
		}
		if empty {
			s.embedderID, s.dims = opts.EmbedderID, opts.Dims
			// no record to index the client ids of: every put indexes its
			// own (indexClientKeys is for stores made before the keys)
			if err := meta.Put(keyMarker, []byte("1")); err != nil {
				return err
			}
			var err error
			s.recipe, err = putMeta(meta, opts.EmbedderID, opts.Dims, opts.Recipe)
			return err
		}
		s.embedderID, s.dims, s.recipe = storedID, storedDims, string(meta.Get(keyRecipe))
		return nil
	})
	if err != nil {
		return err
	}
	// vectors first: the journal is trimmed only back to their snapshots
	if err := s.loadVectors(); err != nil {
		return err
	}
	// opens the indexes, replays the journal, rebuilds the stale (rebuild.go)
	return s.openText(ctx)
}

// recordsFormat refuses a record file of a later format than this
// version writes, and marks an older one as holding this version's
// records from now on (it reads both).
func recordsFormat(meta *bolt.Bucket) error {
	stored := 1
	if v := meta.Get(keyRecords); v != nil {
		stored, _ = strconv.Atoi(string(v))
	}
	switch {
	case stored > formatRecords:
		return fmt.Errorf("%w: its records are of format %d, and this agentmem reads formats 1 to %d; run a newer agentmem, or `agentmem export` with the newer one and `agentmem import` the file into an empty data directory with this one",
			ErrNewerFormat, stored, formatRecords)
	case stored < formatRecords:
		return meta.Put(keyRecords, []byte(strconv.Itoa(formatRecords)))
	}
	return nil
}

func describe(id string, dims int) string {
	if id == "" {
		return "no embedder (--embedder none)"
	}
	return fmt.Sprintf("%s (%d dimensions)", id, dims)
}

// putMeta records the embedder (id, dims) and, with one, recipe (no
// vectors, no recipe); it returns the recipe recorded.
func putMeta(meta *bolt.Bucket, id string, dims int, recipe string) (string, error) {
	if id == "" {
		recipe = ""
	}
	if err := meta.Put(keyEmbedder, []byte(id)); err != nil {
		return "", err
	}
	if err := meta.Put(keyRecipe, []byte(recipe)); err != nil {
		return "", err
	}
	return recipe, meta.Put(keyDims, []byte(strconv.Itoa(dims)))
}

// Recipe reports the recipe the stored vectors were made by (Options.Recipe;
// "" in a store made before recipes were recorded).
func (s *Store) Recipe() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.recipe
}

// Embedder reports the embedder the stored vectors were made with.
func (s *Store) Embedder() (string, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.embedderID, s.dims
}

// Close flushes pending index work and closes the files.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.stopVerifying()
	err := s.flushLocked()
	if err := s.saveSnapshots(true); err != nil {
		// the records are intact; the next open reads them instead
		s.log.Warn("saving the vector snapshots", "err", err)
	}
	s.vec.release()
	if cerr := s.closeText(); err == nil {
		err = cerr
	}
	forgetFile(s.db, false) // damage.go
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// key is a memory's key in every bucket and its document id in the index:
// ids are unique within a namespace only.
func key(ns, id string) string { return ns + "\x1f" + id }

func splitKey(k string) (ns, id string) {
	if ns, id, ok := strings.Cut(k, "\x1f"); ok {
		return ns, id
	}
	return "", k
}

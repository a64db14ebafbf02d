// Package cache keeps embeddings in a bbolt file so that text already
// embedded — on re-ingest, reindex, or a repeated query — costs a disk
// read instead of a model call.
package cache

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"agentmem/memory/embedder"
	"agentmem/memory/internal/boltfile"
)

// rootBucket holds one nested bucket per embedder ID. The format version is
// in its name so that a future format simply starts a fresh cache.
var rootBucket = []byte("embeddings/v1")

// Key kinds. Embed and EmbedDocuments of a DocumentEmbedder give different
// vectors for the same text (one cut-off vector versus all windows), so
// they are kept apart.
const (
	kindVector  = 'v'
	kindWindows = 'w'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Embedder is a embedder.Embedder (and embedder.DocumentEmbedder) that answers
// from the cache and passes only misses to the embedder it wraps. It is
// safe for concurrent use; two goroutines missing the same text at once
// may both embed it.
type Embedder struct {
	db     *bolt.DB
	e      embedder.Embedder
	bucket []byte
	dims   int

	hits, misses, errs atomic.Int64
	broken             atomic.Pointer[error] // set once a read or write found the file damaged

	// OnDamage, when set (before the first call), is told once that the
	// file turned out damaged in use: from then on the cache is bypassed.
	OnDamage func(error)
}

var (
	_ embedder.Embedder         = (*Embedder)(nil)
	_ embedder.DocumentEmbedder = (*Embedder)(nil)
)

// Stats counts cache use since Open. Every input text is either a hit,
// answered without the wrapped embedder (from the file, or as a repeat of
// another text in the same call), or a miss, sent to the wrapped
// embedder; so Misses is exactly the number of texts the model embedded.
// Errors counts failed reads and writes of the file; they degrade to
// misses and lost writes rather than failing the call.
type Stats struct {
	Hits, Misses, Errors int64
}

// ErrLocked is returned by Open when another process holds the cache file.
var ErrLocked = errors.New("cache file is locked")

// ErrDamaged is returned by Open when the cache file is not a whole bbolt
// file (truncated, overwritten): being only a cache, it can be moved
// away and started anew (Discard).
var ErrDamaged = errors.New("the embedding cache file is damaged")

// guarded runs fn, turning a panic or a memory fault in it (bbolt reading
// a damaged or truncated file it has mapped) into an error.
func guarded(fn func() error) (err error) {
	boltfile.Guard(func() { err = fn() }, func(p any) { err = fmt.Errorf("%w (%v)", ErrDamaged, p) })
	return err
}

// Discard moves the damaged cache file at path to path+".damaged"
// (replacing an earlier one), so that Open starts a new one there, and
// returns where it went.
func Discard(path string) (string, error) {
	to := path + ".damaged"
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("embedding cache: moving the damaged %s away: %w", path, err)
	}
	return to, nil
}

// Open opens (creating if needed) the cache file at path for embedder e.
// Entries are keyed by e.ID(), so one file can serve several embedders
// without mixing their vectors. The file is locked while open; a second
// Open of the same file waits half a second and then fails.
func Open(path string, e embedder.Embedder) (*Embedder, error) {
	if e == nil {
		return nil, errors.New("embedding cache: nil embedder")
	}
	id, dims := e.ID(), e.Dims()
	if id == "" || dims <= 0 {
		return nil, fmt.Errorf("embedding cache: embedder %q reports %d dims; need an ID and known dims", id, dims)
	}
	var file *os.File
	var db *bolt.DB
	err := guarded(func() (err error) {
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 500 * time.Millisecond, PreLoadFreelist: true, OpenFile: boltfile.KeepFile(&file)})
		return err
	})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("embedding cache: open %s: file is locked (another process using it?): %w", path, ErrLocked)
	case errors.Is(err, ErrDamaged):
		boltfile.Release(file) // bbolt panicked with it open, and locked
		return nil, fmt.Errorf("embedding cache: open %s: %w", path, err)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch),
		err != nil && strings.Contains(err.Error(), "file size too small"):
		// bbolt's complaints about the content
		return nil, fmt.Errorf("embedding cache: open %s: %w (%v)", path, ErrDamaged, err)
	case err != nil:
		// the system's (permissions, locks, memory): the file may be whole
		return nil, fmt.Errorf("embedding cache: open %s: %w", path, err)
	}
	c := &Embedder{db: db, e: e, bucket: []byte(id), dims: dims}
	err = guarded(func() error {
		// a truncated file: reading its pages past its end would fault
		if why, err := boltfile.Truncated(db, path); err != nil || why != "" {
			return fmt.Errorf("%w (%s)", ErrDamaged, cmp.Or(why, fmt.Sprint(err)))
		}
		return db.Update(func(tx *bolt.Tx) error {
			root, err := tx.CreateBucketIfNotExists(rootBucket)
			if err != nil {
				return err
			}
			_, err = root.CreateBucketIfNotExists(c.bucket)
			return err
		})
	})
	if err != nil {
		guarded(db.Close)
		return nil, fmt.Errorf("embedding cache: open %s: %w", path, err)
	}
	return c, nil
}

// view and update run a transaction of the cache, unless it is found
// damaged: then (once) OnDamage is told and every later call embeds
// without it.
func (c *Embedder) view(fn func(*bolt.Tx) error) error {
	return c.use(func() error { return c.db.View(fn) })
}

func (c *Embedder) update(fn func(*bolt.Tx) error) error {
	return c.use(func() error { return c.db.Update(fn) })
}

func (c *Embedder) use(fn func() error) error {
	if p := c.broken.Load(); p != nil {
		return *p
	}
	err := guarded(fn)
	if errors.Is(err, ErrDamaged) && c.broken.CompareAndSwap(nil, &err) && c.OnDamage != nil {
		c.OnDamage(err)
	}
	return err
}

// Damaged is the damage a read or write met in use (OnDamage), or nil.
func (c *Embedder) Damaged() error {
	if p := c.broken.Load(); p != nil {
		return *p
	}
	return nil
}

// Close closes the file, not the wrapped embedder.
func (c *Embedder) Close() error { return guarded(c.db.Close) }

// ID is the wrapped embedder's: cached vectors are the same vectors.
func (c *Embedder) ID() string { return c.e.ID() }

// Dims is the wrapped embedder's.
func (c *Embedder) Dims() int { return c.dims }

// Stats returns the counters since Open.
func (c *Embedder) Stats() Stats {
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Errors: c.errs.Load()}
}

// Embed returns one vector per text, embedding only the texts not cached.
func (c *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ws, err := c.lookup(ctx, texts, kindVector, c.embedOne)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(ws))
	for i, w := range ws {
		out[i] = w[0]
	}
	return out, nil
}

// EmbedDocuments returns the window vectors of each text, as the wrapped
// embedder's EmbedDocuments would, or its single vector if it has no
// windows; in that case the entries are shared with Embed.
func (c *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error) {
	d, ok := c.e.(embedder.DocumentEmbedder)
	if !ok {
		return c.lookup(ctx, texts, kindVector, c.embedOne)
	}
	return c.lookup(ctx, texts, kindWindows, d.EmbedDocuments)
}

// embedOne embeds miss with the wrapped embedder's Embed, each vector as
// the one window of its text.
func (c *Embedder) embedOne(ctx context.Context, miss []string) ([][][]float32, error) {
	return embedder.EmbedOne(ctx, c.e, miss)
}

// lookup answers texts from the cache, calls embed once with the distinct
// misses in order of first appearance, and stores what it returns.
func (c *Embedder) lookup(ctx context.Context, texts []string, kind byte,
	embed func(context.Context, []string) ([][][]float32, error)) ([][][]float32, error) {
	out := make([][][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	keys := keysOf(texts, kind)
	c.read(keys, kind, out)

	if !slices.ContainsFunc(out, func(ws [][]float32) bool { return ws == nil }) {
		c.hits.Add(int64(len(texts)))
		return out, nil
	}

	miss, missKeys, at := distinctMisses(texts, keys, out)
	c.hits.Add(int64(len(texts) - len(miss)))

	got, err := embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	if err := c.checkEmbedded(got, len(miss), kind); err != nil {
		return nil, err
	}
	c.misses.Add(int64(len(miss)))

	used := make([]bool, len(miss))
	for i, j := range at {
		if j < 0 {
			continue
		}
		if used[j] {
			// A repeat gets its own copy so callers may modify results.
			out[i] = cloneWindows(got[j])
		} else {
			out[i], used[j] = got[j], true
		}
	}

	c.write(missKeys, got)
	return out, nil
}

// keysOf is the key of each text, of kind.
func keysOf(texts []string, kind byte) [][]byte {
	keys := make([][]byte, len(texts))
	buf := make([]byte, 0, len(texts)*keySize) // one allocation for all keys
	for i, t := range texts {
		buf = appendKey(buf, kind, t)
		keys[i] = buf[len(buf)-keySize:]
	}
	return keys
}

// read sets out[i] to the cached windows of keys[i], nil where none are
// (or they do not decode); a failed read counts as an error and leaves
// every text a miss.
func (c *Embedder) read(keys [][]byte, kind byte, out [][][]float32) {
	err := c.view(func(tx *bolt.Tx) error {
		b := c.bucketIn(tx)
		if b == nil {
			return errors.New("bucket missing")
		}
		for i, k := range keys {
			// A bad value decodes to nil and is embedded again, which
			// also overwrites it.
			out[i] = decode(b.Get(k), c.dims, kind)
		}
		return nil
	})
	if err != nil {
		c.errs.Add(1)
	}
}

// distinctMisses is the texts out has no windows for, each once, in order
// of first appearance, with their keys, and for each text the index of
// its miss (-1: none).
func distinctMisses(texts []string, keys [][]byte, out [][][]float32) (miss []string, missKeys [][]byte, at []int) {
	first := make(map[string]int)
	at = make([]int, len(texts))
	for i := range texts {
		at[i] = -1
		if out[i] != nil {
			continue
		}
		j, seen := first[string(keys[i])]
		if !seen {
			j = len(miss)
			first[string(keys[i])] = j
			miss = append(miss, texts[i])
			missKeys = append(missKeys, keys[i])
		}
		at[i] = j
	}
	return miss, missKeys, at
}

// checkEmbedded checks what the wrapped embedder returned for n texts:
// one result a text, of one vector for kindVector, every vector of the
// cache's dimensions.
func (c *Embedder) checkEmbedded(got [][][]float32, n int, kind byte) error {
	if len(got) != n {
		return fmt.Errorf("embedding cache: %s returned %d results for %d texts", c.e.ID(), len(got), n)
	}
	for _, ws := range got {
		if kind == kindVector && len(ws) != 1 {
			return fmt.Errorf("embedding cache: %s returned %d vectors for one text", c.e.ID(), len(ws))
		}
		for _, v := range ws {
			if len(v) != c.dims {
				return fmt.Errorf("embedding cache: %s returned a %d-dim vector, want %d", c.e.ID(), len(v), c.dims)
			}
		}
	}
	return nil
}

// write stores got under keys. The vectors are good whether or not they
// can be stored; a full or read-only disk should slow things down, not
// stop them: a failed write counts as an error only.
func (c *Embedder) write(keys [][]byte, got [][][]float32) {
	err := c.update(func(tx *bolt.Tx) error {
		b := c.bucketIn(tx)
		if b == nil {
			return errors.New("bucket missing")
		}
		for j, k := range keys {
			if err := b.Put(k, encode(got[j])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		c.errs.Add(1)
	}
}

func (c *Embedder) bucketIn(tx *bolt.Tx) *bolt.Bucket {
	root := tx.Bucket(rootBucket)
	if root == nil {
		return nil
	}
	return root.Bucket(c.bucket)
}

func cloneWindows(ws [][]float32) [][]float32 {
	out := make([][]float32, len(ws))
	for i, v := range ws {
		out[i] = slices.Clone(v)
	}
	return out
}

// keySize is the length of a key: the kind byte, then the SHA-256 of the
// text. Keys are fixed-size whatever the text length, and the text itself
// is not kept on disk.
const keySize = 1 + sha256.Size

func appendKey(b []byte, kind byte, text string) []byte {
	sum := sha256.Sum256([]byte(text))
	return append(append(b, kind), sum[:]...)
}

// encode lays out windows as: uvarint window count, the vectors as
// little-endian float32s, CRC-32C of all that. The checksum turns a torn
// or bit-flipped value into a miss instead of a wrong vector.
func encode(ws [][]float32) []byte {
	n := 0
	for _, v := range ws {
		n += 4 * len(v)
	}
	b := make([]byte, 0, binary.MaxVarintLen64+n+4)
	b = binary.AppendUvarint(b, uint64(len(ws)))
	for _, v := range ws {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decode reverses encode, copying out of b (which bbolt owns). It returns
// nil for anything malformed: wrong length, bad checksum, or not exactly
// one vector for kindVector.
func decode(b []byte, dims int, kind byte) [][]float32 {
	if len(b) < 5 {
		return nil
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil
	}
	count, n := binary.Uvarint(body)
	if n <= 0 || (kind == kindVector && count != 1) {
		return nil
	}
	body = body[n:]
	if len(body)%(4*dims) != 0 || uint64(len(body)/(4*dims)) != count {
		return nil
	}
	flat := make([]float32, int(count)*dims)
	for i := range flat {
		flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
	}
	ws := make([][]float32, count)
	for i := range ws {
		ws[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	return ws
}

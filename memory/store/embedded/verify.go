package embedded

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2"
)

// Damage in a segment where neither opening nor a search looks for it can
// still change what a search finds without any error: 64 bytes inverted in
// a segment's table of fields made every search of its namespace find
// nothing (TestDamagedSegmentRebuilt). So each segment file an index is
// opened with is checked once against the CRC-32 its footer ends with, as
// `agentmem check` does, the first time this process opens it: at once
// when the index's unchecked segments are small (up to verifyNow: a few
// milliseconds, paid at the namespace's first use, under the store's
// lock), in the background when they are large (a million memories are
// 0.9 GB: 0.24 s read from the page cache, 1.7 s from disk), so that the
// first recall does not wait for them; and all of them, at once, before
// the journal is replayed into an index after an unclean stop
// (openChecked). A segment failing its checksum has the index rebuilt from
// the records: at once, or at the index's next search or flush.

// verifyNow is how many bytes of unchecked segments are checked before a
// first use returns; more are checked in the background. A variable for
// tests.
var verifyNow int64 = 16 << 20

// verifyOff turns the checks off (tests of what stands behind them).
var verifyOff bool

// verifier remembers the segment files found intact (by path, size and
// modification time: segments are never changed in place, and a rebuild
// may reuse a name) and runs the background checks.
type verifier struct {
	mu   sync.Mutex
	done map[segmentFile]bool
	wg   sync.WaitGroup
	stop chan struct{} // closed by Close
}

type segmentFile struct {
	path string
	size int64
	mod  int64
}

// damaged is what a background check found wrong with one open index.
type damaged struct {
	idx bleve.Index
	why string
}

// verifySegments checks t's open index's segments not yet found intact
// (see above), and rebuilds the index at once when one of those checked
// before it returns fails. Callers hold s.mu.
func (s *Store) verifySegments(ctx context.Context, t *textIndex) error {
	if t.idx == nil {
		return nil
	}
	todo, size := s.unchecked(t)
	if size > verifyNow {
		s.verified.wg.Add(1)
		go s.verifyLater(t, t.idx, todo)
		return nil
	}
	why := s.verifyFiles(todo, nil)
	if why == "" {
		return nil
	}
	why = "the text index is damaged (" + why + ")"
	if err := s.rebuildStale(ctx, map[string]string{t.ns: why}); err != nil {
		return fmt.Errorf("namespace %q: %s; rebuilding it: %w", t.ns, why, err)
	}
	t.rebuilds++
	return nil
}

// unchecked lists the live segment files of t's index not yet found intact,
// with their size in all (none while the checks are off).
func (s *Store) unchecked(t *textIndex) ([]segmentFile, int64) {
	if verifyOff {
		return nil, 0
	}
	live := liveSegments(t.idx)
	s.verified.mu.Lock()
	defer s.verified.mu.Unlock()
	var todo []segmentFile
	var size int64
	for _, name := range slices.Sorted(maps.Keys(live)) {
		p := filepath.Join(t.path, "store", name)
		fi, err := os.Stat(p)
		if err != nil {
			continue // merged away since
		}
		f := segmentFile{p, fi.Size(), fi.ModTime().UnixNano()}
		if !s.verified.done[f] {
			todo = append(todo, f)
			size += f.size
		}
	}
	return todo, size
}

// verifyFiles checks files against their checksums and says what is
// damaged ("" when they are intact), remembering those found intact. It
// stops early, with "", once stop is closed.
func (s *Store) verifyFiles(files []segmentFile, stop <-chan struct{}) string {
	for _, f := range files {
		err := segmentIntactUnless(f.path, stop) // errStopped at its first read once stop is closed
		switch {
		case errors.Is(err, errStopped):
			return ""
		case errors.Is(err, fs.ErrNotExist):
			continue // merged away since
		case err != nil:
			return fmt.Sprintf("its segment %s: %v", f.path, err)
		}
		s.verified.mu.Lock()
		if s.verified.done == nil {
			s.verified.done = map[segmentFile]bool{}
		}
		s.verified.done[f] = true
		s.verified.mu.Unlock()
	}
	return ""
}

// verifyLater checks files in the background and, when one fails, notes
// the damage on t for idx, which t's next use answers with a rebuild
// (damageOf).
func (s *Store) verifyLater(t *textIndex, idx bleve.Index, files []segmentFile) {
	defer s.verified.wg.Done()
	if why := s.verifyFiles(files, s.verified.stop); why != "" {
		s.log.Warn("the text index is damaged ("+why+"); rebuilding it from the records at its next use", "namespace", t.ns)
		t.damage.Store(&damaged{idx: idx, why: why})
	}
}

// damageOf is the damage a background check found in t's open index, as a
// search's failure on it would be (Search and flushIndex rebuild it: a
// write's memories reach the index at its next flush), or nil. Callers
// hold s.mu, at least to read.
func (t *textIndex) damageOf() *indexDamage {
	d := t.damage.Load()
	if d == nil || t.idx == nil || d.idx != t.idx {
		return nil
	}
	return &indexDamage{ns: t.ns, why: d.why, checksum: true, gen: t.rebuilds, err: errors.New("found by a check of its segments' checksums")}
}

// checksDone waits for the background checks, before an index's files are
// removed: a check may hold one open, which Windows would not let be
// removed. The checks never take s.mu, which callers may hold.
func (s *Store) checksDone() { s.verified.wg.Wait() }

// stopVerifying ends the background checks and waits for them.
func (s *Store) stopVerifying() {
	if s.verified.stop != nil {
		close(s.verified.stop)
	}
	s.verified.wg.Wait()
}

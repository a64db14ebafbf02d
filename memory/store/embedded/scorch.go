package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"agentmem/memory/internal/boltfile"
)

// scorchConfig is how the text index runs bleve's scorch engine.
//
// unsafe_batch: a batch returns once its documents are searchable, without
// waiting until bleve has written them to disk (by default every batch
// waits for its own segment file and bleve's root file to be written and
// fsync'd). The records are the source of truth: bleve persists the
// journal position a batch carries (keySeq) with that batch's documents,
// and Open replays the journal from the position the index persisted, so
// what a crash takes from the index comes back from the records
// (TestKillLoop, FuzzJournalReplay). What needs the index on disk waits for
// it explicitly (persisted): a rebuild before it trims the journal, and
// Close, so that the next Open has nothing to replay. Meanwhile bleve's
// persister merges the segments that piled up in memory before writing
// them, which makes fewer, larger files to merge later.
//
// asyncErrorCallbackName: bleve's persister retries a write that failed
// (a full disk) without end, and says so only to this callback; persisted
// reads what it said, so that waiting for the index ends at the failure,
// not at persistTimeout.
func scorchConfig() map[string]any {
	return map[string]any{"unsafe_batch": true, "asyncErrorCallbackName": asyncErrors}
}

// asyncErrors names the callback that notes bleve's background errors.
const asyncErrors = "agentmem"

// persistFailure is the last error bleve's persister met for an index's
// path, and when.
type persistFailure struct {
	err error
	at  time.Time
}

// persistFailures holds a persistFailure by the scorch path it came from
// (the index's directory and "store").
var persistFailures sync.Map

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrors] = func(err error, path string) {
		if errors.Is(err, scorch.ErrPersist) {
			persistFailures.Store(path, persistFailure{err, time.Now()})
		}
	}
}

// forgetFailures drops the failures noted for the index in dir.
func forgetFailures(dir string) {
	persistFailures.Range(func(k, _ any) bool {
		if p := k.(string); p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) {
			persistFailures.Delete(k)
		}
		return true
	})
}

// failedSince is the error bleve's persister met writing the index in dir
// since t, if any.
func failedSince(dir string, t time.Time) error {
	var found error
	persistFailures.Range(func(k, v any) bool {
		f := v.(persistFailure)
		if p := k.(string); (p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))) && !f.at.Before(t) {
			found = f.err
			return false
		}
		return true
	})
	return found
}

// persistTimeout bounds how long Close waits for the index to be on disk;
// past it, the next Open replays what was not.
const persistTimeout = 2 * time.Minute

// persisted waits until everything sent to the index so far is on disk: it
// sends an empty batch (a new index snapshot that holds everything before
// it) and waits for bleve to have persisted it.
func persisted(idx bleve.Index, dir string, timeout time.Duration) error {
	done := make(chan error, 1)
	b := idx.NewBatch()
	b.SetPersistedCallback(func(err error) {
		select {
		case done <- err:
		default:
		}
	})
	// a damaged segment can make bleve panic as it adds a batch (its
	// dictionary of document ids, which no search reads): an error here, and
	// the next use of the index meets the damage again
	var err error
	boltfile.Guard(func() { err = idx.Batch(b) }, func(p any) { err = fmt.Errorf("the text index %s is damaged: %v", dir, p) })
	if err != nil {
		return err
	}
	start := time.Now()
	deadline := time.After(timeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err == nil { // what failed before is written now
				forgetFailures(dir)
			}
			return err
		case <-deadline:
			return fmt.Errorf("the text index was not written to disk within %s", timeout)
		case <-tick.C:
			// a write that failed is retried without end (a full disk):
			// the next open replays the journal, once there is room
			if err := failedSince(dir, start); err != nil {
				if diskFull(err) { // it names the error by its message
					return fmt.Errorf("%w: the text index %s cannot be written (%v); the records hold everything, and the index is made again from them once there is room", ErrDiskFull, dir, err)
				}
				return fmt.Errorf("the text index %s cannot be written: %w", dir, err)
			}
			// removed while in use (a user clearing it for a rebuild):
			// bleve retries writing into it forever; the next open
			// rebuilds it from the records, so there is nothing to wait for
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the text index %s was removed while in use", dir)
			}
		}
	}
}

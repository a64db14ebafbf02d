package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"

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
func scorchConfig() map[string]any {
	return map[string]any{"unsafe_batch": true}
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
	deadline := time.After(timeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-deadline:
			return fmt.Errorf("the text index was not written to disk within %s", timeout)
		case <-tick.C:
			// removed while in use (a user clearing it for a rebuild):
			// bleve retries writing into it forever; the next open
			// rebuilds it from the records, so there is nothing to wait for
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the text index %s was removed while in use", dir)
			}
		}
	}
}

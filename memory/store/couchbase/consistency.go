package couchbase

import (
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"
)

// tokenTTL is how long a write's token bounds later searches. The index
// catches up in seconds; forgetting a token after a while keeps the request
// small and drops vBucket UUIDs that a failover has since replaced.
const tokenTTL = 10 * time.Minute

// tokens holds the newest mutation token per vBucket of this Store's
// writes, so that a search sees every memory this Store has acknowledged
// (read-your-writes). gocb's MutationState keeps every token it is given
// and sends the last one per vBucket, which under concurrent writes need
// not be the newest; hence this map.
type tokens struct {
	mu   sync.Mutex
	byVB map[uint64]stamped
}

type stamped struct {
	tok gocb.MutationToken
	at  time.Time
}

func (t *tokens) add(now time.Time, ts ...gocb.MutationToken) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byVB == nil {
		t.byVB = map[uint64]stamped{}
	}
	for _, tok := range ts {
		if tok.BucketName() == "" {
			continue // the zero token of an operation that returned none
		}
		vb := tok.PartitionID()
		old, ok := t.byVB[vb]
		if !ok || old.tok.PartitionUUID() != tok.PartitionUUID() || old.tok.SequenceNumber() <= tok.SequenceNumber() {
			t.byVB[vb] = stamped{tok, now}
		}
	}
}

// state is what a search must be consistent with at now, nil for nothing.
func (t *tokens) state(now time.Time) *gocb.MutationState {
	t.mu.Lock()
	defer t.mu.Unlock()
	var live []gocb.MutationToken
	for vb, s := range t.byVB {
		if now.Sub(s.at) > tokenTTL {
			delete(t.byVB, vb)
			continue
		}
		live = append(live, s.tok)
	}
	if len(live) == 0 {
		return nil
	}
	return gocb.NewMutationState(live...)
}

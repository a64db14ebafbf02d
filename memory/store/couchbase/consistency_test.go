package couchbase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v10"
)

func token(vb uint16, uuid, seq uint64) gocb.MutationToken {
	var ms gocb.MutationState
	ms.Internal().Add("agentmem", gocbcore.MutationToken{VbID: vb, VbUUID: gocbcore.VbUUID(uuid), SeqNo: gocbcore.SeqNo(seq)})
	return ms.Internal().Tokens()[0]
}

func TestTokens(t *testing.T) {
	now := time.Now()
	var tk tokens
	if tk.state(now) != nil {
		t.Fatal("state without writes")
	}
	// Concurrent writes may report an older token last: the newest stays.
	tk.add(now, token(1, 7, 10), token(2, 7, 5))
	tk.add(now, token(1, 7, 9), gocb.MutationToken{})
	tk.add(now.Add(-tokenTTL-time.Second), token(3, 7, 1))
	got := map[uint64]uint64{}
	for _, tok := range tk.state(now).Internal().Tokens() {
		got[tok.PartitionID()] = tok.SequenceNumber()
	}
	want := map[uint64]uint64{1: 10, 2: 5}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tokens %v, want %v (newest per vBucket, expired and empty ones dropped)", got, want)
	}
	// After a failover the vBucket has a new UUID: its token replaces the old.
	tk.add(now, token(1, 8, 3))
	for _, tok := range tk.state(now).Internal().Tokens() {
		if tok.PartitionID() == 1 && (tok.PartitionUUID() != 8 || tok.SequenceNumber() != 3) {
			t.Errorf("vBucket 1 kept %d/%d after a failover", tok.PartitionUUID(), tok.SequenceNumber())
		}
	}
	if tk.state(now.Add(2*tokenTTL)) != nil {
		t.Error("tokens outlive their TTL")
	}
	if _, err := json.Marshal(tk.state(now)); err != nil {
		t.Errorf("state does not encode: %v", err)
	}
}

func TestParallel(t *testing.T) {
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	var running, peak, done atomic.Int32
	err := parallel(context.Background(), keys, func(string) error {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		done.Add(1)
		return nil
	})
	if err != nil || done.Load() != 100 {
		t.Fatalf("parallel: %v, %d done", err, done.Load())
	}
	if peak.Load() > opsInFlight {
		t.Errorf("%d in flight, limit %d", peak.Load(), opsInFlight)
	}

	boom := errors.New("boom")
	done.Store(0)
	err = parallel(context.Background(), keys, func(k string) error {
		done.Add(1)
		if k == "3" {
			return boom
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if !errors.Is(err, boom) || done.Load() == 100 {
		t.Errorf("err %v after %d calls: want boom, and the rest skipped", err, done.Load())
	}
	err = parallel(context.Background(), []string{"p"}, func(string) error { panic("bad") })
	if err == nil {
		t.Error("a panic did not become an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := parallel(ctx, keys, func(string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

package embedded

import (
	"context"
	"maps"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// Client keys are found without reading the session, in a store written
// before the key index existed too, and only while the memory holds them.
func TestFindKeys(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	date := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	mk := func(session string, turn int, k string) memory.Memory {
		return memory.Memory{ID: memory.MemoryID(session, turn), Namespace: "ns", SessionID: session, SessionDate: date, Turn: turn,
			Role: "user", Text: "yes", Hash: "h", Key: k, Created: date}
	}
	if err := s.Put(ctx, []memory.Memory{mk("s", 0, "m1"), mk("s", 1, "m2"), mk("s", 2, ""), mk("other", 0, "m3")}); err != nil {
		t.Fatal(err)
	}
	// as a store written before the key index: no bucket, no marker
	if err := s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketKeys); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Delete(keyMarker)
	}); err != nil {
		t.Fatal(err)
	}
	find := func(keys ...string) map[string]string {
		t.Helper()
		got, err := s.FindKeys(ctx, "ns", "s", keys)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := find("m1", "m2", "m3", "nope"), map[string]string{"m1": "s:0", "m2": "s:1"}; !maps.Equal(got, want) {
		t.Errorf("after indexing: %v, want %v", got, want)
	}
	// a deleted memory and a replaced one no longer hold their keys
	if _, err := s.Delete(ctx, memory.Selector{Namespace: "ns", IDs: []string{"s:0"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, []memory.Memory{mk("s", 1, "m9")}); err != nil {
		t.Fatal(err)
	}
	if got, want := find("m1", "m2", "m9"), map[string]string{"m9": "s:1"}; !maps.Equal(got, want) {
		t.Errorf("after a delete and a replacement: %v, want %v", got, want)
	}
}

// A new store has no record whose client id is left to index: it is
// marked indexed when it is made, so its first keyed lookup scans nothing
// (and says nothing of a migration).
func TestNewStoreNeedsNoKeyIndexing(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta).Get(keyMarker) == nil {
			t.Error("a new store is not marked as having its client ids indexed")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

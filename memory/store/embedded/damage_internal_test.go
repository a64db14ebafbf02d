package embedded

import (
	"context"
	"errors"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// A panic while using the record file (what bbolt does on some damage met
// after open) becomes ErrDamaged naming the file, and every later call is
// refused with it rather than run over the damage.
func TestPanicInUseRefusesLaterCalls(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// a panic raised inside bbolt, as its page assertions on a damaged file
	// are (here a nil bucket's Put faults in bbolt's code)
	err = st.view(func(*bolt.Tx) error {
		var b *bolt.Bucket
		return b.Put([]byte("k"), []byte("v"))
	})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "memories.db") {
		t.Fatalf("panic in a transaction: %v", err)
	}
	if _, err := st.Session(ctx, "default", "s"); !errors.Is(err, ErrDamaged) {
		t.Errorf("a read after the damage: %v", err)
	}
	if err := st.Put(ctx, []memory.Memory{{ID: "s:0", Namespace: "default", SessionID: "s", Role: "user", Text: "x"}}); !errors.Is(err, ErrDamaged) {
		t.Errorf("a write after the damage: %v", err)
	}
	if _, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "x", K: 1}); !errors.Is(err, ErrDamaged) {
		t.Errorf("a search after the damage: %v", err)
	}
}

// Closing a store twice is harmless (bleve's Close panics the second time).
func TestCloseTwice(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

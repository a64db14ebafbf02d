package embedded

import (
	"context"
	"errors"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A panic raised in bbolt is damage: guard turns it into ErrDamaged. A
// panic of our own code inside a transaction is a bug, not a damaged file:
// guard lets it go on (the tools' recovery reports it as an internal
// error) and the store keeps serving.
func TestGuardTellsDamageFromBugs(t *testing.T) {
	st, err := Open(context.Background(), t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	func() {
		defer func() {
			if p := recover(); p == nil {
				t.Error("a nil dereference of ours inside a transaction was swallowed by guard")
			}
		}()
		_ = st.view(func(tx *bolt.Tx) error {
			var m map[string]*int
			return errors.New(string(rune(*m["missing"]))) // nil dereference: a bug
		})
	}()
	if d := st.damage.Load(); d != nil {
		t.Fatalf("a bug was recorded as damage: %v", *d)
	}
	if err := st.view(func(*bolt.Tx) error { return nil }); err != nil {
		t.Fatalf("the store refuses calls after a bug: %v", err)
	}

	// a panic raised inside bbolt (a nil bucket's Put faults in bbolt's code)
	err = st.view(func(tx *bolt.Tx) error {
		var b *bolt.Bucket
		_ = b.Put([]byte("k"), []byte("v")) // panics inside bbolt (nil bucket)
		return nil
	})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("a panic in bbolt gave %v, want ErrDamaged", err)
	}
}

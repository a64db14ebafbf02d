package embedded

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

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

// A fault reading the mapped record file outside bbolt's own code (our
// bytes.IndexByte over a key whose damaged length reaches past the file's
// end, as readRecordState does) is damage too, not a bug: ErrDamaged, never
// a second panic.
func TestGuardFaultOutsideBolt(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// the file shrinks under its mapping: reading a mapped page past its
	// new end faults (SIGBUS), as a read through a damaged key's offset does
	path := filepath.Join(dir, recordFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(path, raw, 0o600)
	page := st.db.Info().PageSize
	if err := os.Truncate(path, int64(len(raw)/2)); err != nil {
		t.Fatal(err)
	}
	err = st.view(func(tx *bolt.Tx) error {
		data := st.db.Info().Data // the mapping's start, as bbolt reports it
		base := *(*unsafe.Pointer)(unsafe.Pointer(&data))
		key := unsafe.Slice((*byte)(unsafe.Add(base, len(raw)-page)), page)
		_ = bytes.IndexByte(key, 0x1f)
		return nil
	})
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("a fault reading past the record file's end gave %v, want ErrDamaged", err)
	}
}

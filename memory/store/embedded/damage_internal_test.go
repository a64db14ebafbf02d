package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A record whose bytes changed fails an export (ErrDamaged, the store
// fenced); a salvaging export leaves that memory out, names it, and
// writes every other, and the marks of forgotten turns, which a new store
// imports (a fault-injection review: one bad record made the whole
// namespace impossible to export).
func TestExportSalvage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for s := range 3 {
		var ms []memory.Memory
		for n := range 4 {
			id := memory.MemoryID(fmt.Sprintf("s%d", s), n)
			ms = append(ms, memory.Memory{ID: id, Namespace: "default", SessionID: fmt.Sprintf("s%d", s), Turn: n, Role: "user", Text: "turn " + id, Hash: fmt.Sprintf("%032x", 4*s+n), SessionDate: time.Date(2023, 5, 1+s, 0, 0, 0, 0, time.UTC)})
		}
		if err := st.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Delete(ctx, memory.Selector{Namespace: "default", IDs: []string{"s2:1"}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// a byte of one record changed on disk after a clean stop
	bad := key("default", "s1:2")
	db, err := bolt.Open(filepath.Join(dir, recordFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMem)
		raw := append([]byte(nil), b.Get([]byte(bad))...)
		raw[len(raw)/2] ^= 0x40
		return b.Put([]byte(bad), raw)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// service opens the store in dir under a memory service
	service := func(dir string) (*memory.Service, func()) {
		t.Helper()
		st, err := Open(ctx, dir, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := memory.New(memory.Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		return svc, func() { svc.Close(); st.Close() }
	}
	export := func(salvage bool) (string, memory.ExportResult, error) {
		svc, done := service(dir)
		defer done()
		var b strings.Builder
		res, err := svc.Export(ctx, &b, memory.ExportOptions{Salvage: salvage})
		return b.String(), res, err
	}
	if _, _, err := export(false); !errors.Is(err, ErrDamaged) {
		t.Fatalf("an export of a damaged record: %v, want ErrDamaged", err)
	}
	file, res, err := export(true)
	if err != nil || res.Memories != 10 || res.Marks != 1 || len(res.Damaged) != 1 || res.Damaged[0] != bad || strings.Contains(file, `"id":"s1:2"`) || !strings.Contains(file, `{"forgotten":{"namespace":"default","session_id":"s2","turn":1,`) {
		t.Fatalf("salvage: %+v, %v\n%s", res, err, file)
	}
	svc, done := service(t.TempDir())
	defer done()
	got, err := svc.Import(ctx, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }, memory.ImportOptions{})
	if err != nil || got.Imported != 10 || got.Marks != 1 {
		t.Fatalf("importing the salvaged file: %+v, %v", got, err)
	}
}

package embedded_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// A damaged mark of a forgotten turn is reported by check; remember goes
// on, its position still taken (a new turn is numbered after it).
func TestDamagedMark(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() (*embedded.Store, *memory.Service) {
		st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := memory.New(memory.Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		return st, svc
	}
	st, svc := open()
	msgs := []memory.Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "my PIN is 4512"}}
	if _, err := svc.Remember(ctx, memory.RememberRequest{SessionID: "s", SessionDate: "2024-03-01", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Forget(ctx, memory.ForgetRequest{IDs: []string{"s:1"}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if rep, err := embedded.Check(ctx, dir); err != nil || len(rep.Records) != 0 || rep.Marks != 1 {
		t.Fatalf("check of a sound store with a mark: %+v, %v", rep, err)
	}
	db, err := bolt.Open(filepath.Join(dir, "memories.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("forgotten"))
		k, _ := b.Cursor().First()
		return b.Put(k, []byte("{\x00garbage"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := embedded.Check(ctx, dir)
	if err != nil || len(rep.Records) != 1 || !strings.Contains(rep.Records[0], `the mark of forgotten turn 1 of session "s" of namespace "default" is damaged`) {
		t.Fatalf("check of a damaged mark: %+v, %v", rep, err)
	}
	st, svc = open()
	defer st.Close()
	res, err := svc.Remember(ctx, memory.RememberRequest{SessionID: "s", Messages: []memory.Message{{Role: "user", Content: "thanks"}}})
	if err != nil || res.IDs[0] != "s:2" {
		t.Fatalf("remember in the session of a damaged mark: %+v, %v; want s:2, after the forgotten turn", res, err)
	}
}

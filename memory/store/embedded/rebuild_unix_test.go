//go:build unix

package embedded_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// An index closed to keep few open (checked before) whose root file is
// damaged meanwhile: its reopening panics inside bleve, keeping the lock
// on the damaged file, and the check that follows opens it again. It is
// rebuilt, not waited for forever with the store locked.
func TestDamagedIndexOfClosedNamespace(t *testing.T) {
	defer embedded.SetMaxOpen(embedded.SetMaxOpen(1))
	dir := t.TempDir()
	st := openStore(t, dir, nil)
	defer st.Close()
	ctx := context.Background()
	for _, ns := range []string{"n0", "n1"} {
		var ms []memory.Memory
		for n := range 5 {
			m := mem(0, n)
			m.Namespace = ns
			ms = append(ms, m)
		}
		if err := st.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	search := func(ns string) (int, error) {
		hits, err := st.Search(ctx, memory.Query{Namespace: ns, Text: "zebra", K: 100, Pool: 100, Fusion: memory.TextOnly})
		return len(hits), err
	}
	for _, ns := range []string{"n0", "n1"} { // n0 is closed again after n1's search
		if n, err := search(ns); n != 5 || err != nil {
			t.Fatalf("%s: %d hits, %v", ns, n, err)
		}
	}
	roots, _ := filepath.Glob(filepath.Join(dir, "text", "*", "store", "root.bolt"))
	var damaged bool
	for _, root := range roots {
		// n0's index: the one whose segments name no n1 memory is not
		// known from outside; damage every index that is closed now
		f, err := os.OpenFile(root, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		if fi.Size() > 8192 && !isLocked(f) {
			f.WriteAt(bytes.Repeat([]byte{0xA5}, int(fi.Size())-8192), 8192)
			damaged = true
		}
		f.Close()
	}
	if !damaged {
		t.Fatal("no closed index to damage")
	}
	done := make(chan struct{})
	var n int
	var err error
	go func() { n, err = search("n0"); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("a search on the damaged index did not return within a minute (the store is locked)")
	}
	if n != 5 || err != nil {
		t.Errorf("n0 after its index was damaged: %d hits, %v", n, err)
	}
}

// isLocked reports whether another open file holds f's lock (bbolt's).
func isLocked(f *os.File) bool {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// Check finds nothing in a healthy store, and names each kind of
// inconsistency between the records, their vectors and the text index.
func TestCheckFindsInconsistencies(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	build := func(t *testing.T) (string, *Store) {
		dir := t.TempDir()
		st, err := Open(ctx, dir, Options{NoSync: true, EmbedderID: "test", Dims: 4})
		if err != nil {
			t.Fatal(err)
		}
		var ms []memory.Memory
		for n := range 40 {
			ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day,
				Turn: n, Role: "user", Text: fmt.Sprintf("turn %d", n), Hash: fmt.Sprint(n), Created: day,
				Embedder: "test", Vectors: [][]float32{{1, 0, 0, 0}}})
		}
		if err := st.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
		return dir, st
	}
	check := func(t *testing.T, dir string) *Report {
		t.Helper()
		r, err := Check(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	dir, st := build(t)
	st.Close()
	r := check(t, dir)
	if !r.OK() || r.Memories != 40 || r.Sessions != 1 || r.Vectors != 40 || r.IndexDocuments != 40 {
		t.Fatalf("healthy store: %+v", r)
	}

	cases := []struct {
		name, want string
		index      bool
		hurt       func(t *testing.T, st *Store)
	}{
		{"index lost a document", "lacks 1 of the 40 documents", true, func(t *testing.T, st *Store) {
			st.indexOf(t, "default").Delete(key("default", "s:3"))
		}},
		{"index holds a stray document", `holds a document "default\x1fghost"`, true, func(t *testing.T, st *Store) {
			st.indexOf(t, "default").Index(key("default", "ghost"), map[string]any{"text": "boo"})
		}},
		{"vectors lost", `memory "s:5" of namespace "default" has no vectors`, false, func(t *testing.T, st *Store) {
			st.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketVec).Delete([]byte(key("default", "s:5"))) })
		}},
		{"vectors of another size", `memory "s:6" of namespace "default": stored vector of 12 bytes`, false, func(t *testing.T, st *Store) {
			st.update(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketVec).Put([]byte(key("default", "s:6")), make([]byte, 12))
			})
		}},
		{"orphan vectors", `vectors "default\x1fnobody" belong to no memory`, false, func(t *testing.T, st *Store) {
			st.update(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketVec).Put([]byte(key("default", "nobody")), make([]byte, 16))
			})
		}},
		{"session entry lost", `session entry (session "s", turn 7) names ""`, false, func(t *testing.T, st *Store) {
			st.update(func(tx *bolt.Tx) error { return tx.Bucket(bucketSession).Delete(sessionKey("default", "s", 7)) })
		}},
		{"record under another key", `record "default\x1fs:8" holds memory "s:9"`, false, func(t *testing.T, st *Store) {
			st.update(func(tx *bolt.Tx) error {
				mem := tx.Bucket(bucketMem)
				return mem.Put([]byte(key("default", "s:8")), mem.Get([]byte(key("default", "s:9"))))
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, st := build(t)
			c.hurt(t, st)
			st.Close()
			r := check(t, dir)
			list := r.Records
			if c.index {
				list = r.Index
			}
			if r.OK() || !strings.Contains(strings.Join(list, "\n"), c.want) {
				t.Errorf("want %q in the %s problems; records %q, index %q", c.want, map[bool]string{true: "index", false: "records"}[c.index], r.Records, r.Index)
			}
		})
	}

	t.Run("index missing", func(t *testing.T) {
		dir, st := build(t)
		st.Close()
		os.RemoveAll(filepath.Join(dir, textDir))
		if r := check(t, dir); len(r.Index) != 1 || !strings.Contains(r.Index[0], "is missing") {
			t.Errorf("index problems %q", r.Index)
		}
	})
	t.Run("a segment's byte changed", func(t *testing.T) {
		dir, st := build(t)
		st.Close()
		files, _ := filepath.Glob(filepath.Join(dir, textDir, "*", "store", "*.zap"))
		if len(files) == 0 {
			t.Fatal("no segment files")
		}
		raw, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		raw[len(raw)/3] ^= 0x10 // inside the postings, which opening and counting never read
		if err := os.WriteFile(files[0], raw, 0o600); err != nil {
			t.Fatal(err)
		}
		r := check(t, dir)
		if len(r.Index) != 1 || !strings.Contains(r.Index[0], "is damaged: its checksum does not match") || len(r.Records) != 0 {
			t.Errorf("index problems %q, records %q", r.Index, r.Records)
		}
	})
	t.Run("in use", func(t *testing.T) {
		dir, st := build(t)
		defer st.Close()
		if _, err := Check(ctx, dir); err == nil || !strings.Contains(err.Error(), "stop the agentmem server") {
			t.Errorf("check of a store in use: %v", err)
		}
	})
}

// Memories stored before their vectors (a long remember) are counted as
// waiting, not reported as damage.
func TestCheckCountsPendingVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openDims4(t, dir)
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for n := range 3 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day,
			Turn: n, Role: "user", Text: fmt.Sprint("long turn ", n)})
	}
	if err := st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Check(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Pending != 3 || r.Vectors != 0 {
		t.Errorf("check = %+v, want OK with 3 pending", r)
	}
}

// After a crash between a write and its index's flush, check counts the
// index as lagging (the journal holds what it lacks: the next open applies
// it) and still says OK; after that open, nothing lags.
func TestCheckCountsLaggingIndexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openLogged(t, dir, nil)
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	put := func(ns string, n int) {
		m := memory.Memory{ID: memory.MemoryID("s", n), Namespace: ns, SessionID: "s", SessionDate: day, Turn: n,
			Role: "user", Text: fmt.Sprint("the okapi ", n), Hash: fmt.Sprint(n), Created: day}
		if err := st.Put(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", 0)
	put("b", 0)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openLogged(t, dir, nil)
	put("a", 1)                   // not flushed: the index has not seen it
	for _, ti := range st.texts { // kill -9
		if ti.idx != nil {
			ti.idx.Close()
		}
	}
	st.db.Close()
	forgetFile(st.db, false)

	r, err := Check(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Lagging != 1 || r.Memories != 3 {
		t.Errorf("after the crash: check = %+v, want OK, 3 memories, 1 index lagging", r)
	}
	st = openLogged(t, dir, nil)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err = Check(ctx, dir); err != nil || !r.OK() || r.Lagging != 0 || r.IndexDocuments != 3 {
		t.Errorf("after an open: check = %+v (%v), want OK, 3 documents, none lagging", r, err)
	}
}

// An index built by another version of agentmem (an upgrade: its
// documents derived otherwise) is no damage: check counts it as outdated
// and passes, and the namespace's first use rebuilds it.
func TestCheckCountsOutdatedIndexes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openLogged(t, dir, nil)
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	for _, ns := range []string{"a", "b"} {
		m := memory.Memory{ID: memory.MemoryID("s", 0), Namespace: ns, SessionID: "s", SessionDate: day,
			Role: "user", Text: "I bought an okapi", Hash: "h", Created: day}
		if err := st.Put(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.indexOf(t, "a").SetInternal(keyMapping, []byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Check(ctx, dir)
	if err != nil || !r.OK() || r.Outdated != 1 || r.IndexDocuments != 1 {
		t.Fatalf("an index of another version: check = %+v (%v), want OK, 1 outdated, 1 document counted", r, err)
	}
	st = openLogged(t, dir, nil)
	if hits, err := st.Search(ctx, memory.Query{Namespace: "a", Text: "buy", K: 10, Fusion: memory.TextOnly}); err != nil || len(hits) != 1 {
		t.Fatalf("the first use: %v %v, want the okapi bought", hits, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err = Check(ctx, dir); err != nil || !r.OK() || r.Outdated != 0 || r.IndexDocuments != 2 {
		t.Errorf("after the first use: check = %+v (%v), want OK, none outdated, 2 documents", r, err)
	}
}

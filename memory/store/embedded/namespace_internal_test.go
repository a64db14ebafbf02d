package embedded

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// nsStore fills dir with namespaces a (3 sessions of 10 turns), b (2 of 10)
// and c (1 of 5), each turn holding the word "zebra", and closes it.
func nsStore(t *testing.T, dir string) {
	t.Helper()
	st := openLogged(t, dir, nil)
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	for _, ns := range []string{"a", "b", "c"} {
		sessions, turns := map[string]int{"a": 3, "b": 2, "c": 1}[ns], map[string]int{"a": 10, "b": 10, "c": 5}[ns]
		for s := range sessions {
			var ms []memory.Memory
			session := fmt.Sprint("s", s)
			for n := range turns {
				ms = append(ms, memory.Memory{ID: memory.MemoryID(session, n), Namespace: ns, SessionID: session, SessionDate: day,
					Turn: n, Role: "user", Text: fmt.Sprintf("the zebra of %s number %d", ns, s*100+n), Hash: fmt.Sprint(n), Created: day})
			}
			if err := st.Put(context.Background(), ms); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

var nsMemories = map[string]int{"a": 30, "b": 20, "c": 5}

func openLogged(t *testing.T, dir string, logs *bytes.Buffer) *Store {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if logs != nil {
		log = slog.New(slog.NewTextHandler(logs, nil))
	}
	st, err := Open(context.Background(), dir, Options{NoSync: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// findsAll checks that BM25 finds every memory of every namespace, and
// that check finds nothing wrong once st is closed.
func findsAll(t *testing.T, dir string, st *Store) {
	t.Helper()
	for ns, want := range nsMemories {
		hits, err := st.Search(context.Background(), memory.Query{Namespace: ns, Text: "zebra", K: 100, Pool: 100, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != want {
			t.Errorf("namespace %s: BM25 finds %d of %d memories", ns, len(hits), want)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Indexes != 3 {
		t.Errorf("check: %d indexes, problems %q", r.Indexes, r.Index)
	}
}

// A data directory of the older layout, one index.bleve of every
// namespace, is rebuilt at open into an index per namespace, saying so,
// and the old index is removed.
func TestLegacyIndexMigrated(t *testing.T) {
	dir := t.TempDir()
	nsStore(t, dir)
	makeLegacy(t, dir)

	var logs bytes.Buffer
	st := openLogged(t, dir, &logs)
	if !strings.Contains(logs.String(), "older layout") || !strings.Contains(logs.String(), "one index per namespace") {
		t.Errorf("no log line about the migration:\n%s", logs.String())
	}
	if exists(filepath.Join(dir, legacyIndex)) {
		t.Error("the index of the older layout is still there")
	}
	findsAll(t, dir, st)
	logs.Reset()
	openLogged(t, dir, &logs).Close()
	if strings.Contains(logs.String(), "rebuilding") {
		t.Errorf("rebuilt again at the next open:\n%s", logs.String())
	}
}

// makeLegacy turns the store in dir into one of the older layout: one
// index of every namespace's documents, as the older agentmem wrote it, and
// records without the per-namespace journal marks.
func makeLegacy(t *testing.T, dir string) {
	t.Helper()
	st := openLogged(t, dir, nil)
	idx, err := bleve.NewUsing(filepath.Join(dir, legacyIndex), hybrid.IndexMapping(), "scorch", "scorch", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := idx.NewBatch()
	err = st.update(func(tx *bolt.Tx) error {
		for _, ns := range namespacesOf(tx) {
			if err := st.applyTo(tx, b, namespaceKeys(tx, ns)); err != nil {
				return err
			}
		}
		return tx.DeleteBucket(bucketText)
	})
	if err != nil {
		t.Fatal(err)
	}
	b.SetInternal(keyMapping, mappingDigest())
	b.SetInternal(keyIndexStoreID, st.storeID)
	b.SetInternal(keySeq, seqKey(st.seq))
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	idx.Close()
	st.Close()
	if err := os.RemoveAll(filepath.Join(dir, textDir)); err != nil {
		t.Fatal(err)
	}
}

// A lost, foreign or stray index is dealt with for its namespace alone:
// the other namespaces' indexes are kept as they are.
func TestNamespaceIndexRebuiltAlone(t *testing.T) {
	cases := []struct {
		name, log string
		rebuilt   []string
		damage    func(t *testing.T, dir string)
	}{
		{"lost", "the text index is missing; rebuilding it", []string{"b"}, func(t *testing.T, dir string) {
			os.RemoveAll(textPath(dir, "b"))
		}},
		{"swapped", `holds namespace \"c\", not \"a\"`, []string{"a", "c"}, func(t *testing.T, dir string) {
			tmp := textPath(dir, "tmp")
			os.Rename(textPath(dir, "a"), tmp)
			os.Rename(textPath(dir, "c"), textPath(dir, "a"))
			os.Rename(tmp, textPath(dir, "c"))
		}},
		{"stray", "removing the text index of a namespace that holds no memories", nil, func(t *testing.T, dir string) {
			if err := os.CopyFS(textPath(dir, "gone"), os.DirFS(textPath(dir, "b"))); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			nsStore(t, dir)
			mark(t, dir)
			c.damage(t, dir)
			var logs bytes.Buffer
			st := openLogged(t, dir, &logs)
			// each index is checked at open or at its first use
			for _, ns := range []string{"a", "b", "c"} {
				v, err := st.indexOf(t, ns).GetInternal([]byte("marker"))
				if err != nil {
					t.Fatal(err)
				}
				rebuilt := strings.Contains(strings.Join(c.rebuilt, ","), ns)
				if (v == nil) != rebuilt {
					t.Errorf("namespace %s: rebuilt %v, want %v", ns, v == nil, rebuilt)
				}
			}
			if !strings.Contains(logs.String(), c.log) {
				t.Errorf("no log line %q:\n%s", c.log, logs.String())
			}
			if exists(textPath(dir, "gone")) {
				t.Error("the stray index is still there")
			}
			findsAll(t, dir, st)
		})
	}
}

// mark leaves a marker in every index of the store in dir, which a rebuild
// does not keep.
func mark(t *testing.T, dir string) {
	t.Helper()
	st := openLogged(t, dir, nil)
	defer st.Close()
	for ns := range st.texts {
		if err := st.indexOf(t, ns).SetInternal([]byte("marker"), []byte("kept")); err != nil {
			t.Fatal(err)
		}
	}
}

// Check verifies each namespace's index on its own, and names the one out
// of step with the records.
func TestCheckNamespaceIndexes(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, want string
		damage     func(t *testing.T, dir string)
	}{
		{"an older copy", `namespace "a": the text index is older than the records`, func(t *testing.T, dir string) {
			old := filepath.Join(t.TempDir(), "old")
			if err := os.CopyFS(old, os.DirFS(textPath(dir, "a"))); err != nil {
				t.Fatal(err)
			}
			st := openLogged(t, dir, nil)
			if _, err := st.Delete(ctx, memory.Selector{Namespace: "a", IDs: []string{"s0:3"}}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			openLogged(t, dir, nil).Close() // trims the journal
			os.RemoveAll(textPath(dir, "a"))
			os.Rename(old, textPath(dir, "a"))
		}},
		{"another namespace's", `namespace "b": the text index holds namespace "c", not "b"`, func(t *testing.T, dir string) {
			os.RemoveAll(textPath(dir, "b"))
			os.CopyFS(textPath(dir, "b"), os.DirFS(textPath(dir, "c")))
		}},
		{"a lost document", `namespace "b": the text index lacks 1 of the 20 documents`, func(t *testing.T, dir string) {
			st := openLogged(t, dir, nil)
			st.indexOf(t, "b").Delete(key("b", "s1:4"))
			st.Close()
		}},
		{"a stray index", "belongs to no namespace holding memories", func(t *testing.T, dir string) {
			os.CopyFS(textPath(dir, "gone"), os.DirFS(textPath(dir, "c")))
		}},
		{"the older layout", "of the older layout", func(t *testing.T, dir string) {
			makeLegacy(t, dir)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			nsStore(t, dir)
			c.damage(t, dir)
			r, err := Check(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Records) > 0 || !strings.Contains(strings.Join(r.Index, "\n"), c.want) {
				t.Errorf("want %q; records %q, index %q", c.want, r.Records, r.Index)
			}
			// the next use repairs it, or, for a lost document, which
			// the cheap checks cannot see, reindex --text
			st := openLogged(t, dir, nil)
			for ns := range nsMemories {
				st.indexOf(t, ns)
			}
			if c.name == "a lost document" {
				if err := st.RebuildText(ctx, nil); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()
			if r, err := Check(ctx, dir); err != nil || !r.OK() {
				t.Errorf("after an open: %v %q", err, r.Index)
			}
		})
	}
	t.Run("a namespace deleted", func(t *testing.T) {
		dir := t.TempDir()
		nsStore(t, dir)
		st := openLogged(t, dir, nil)
		var ids []string
		for n := range 5 {
			ids = append(ids, memory.MemoryID("s0", n))
		}
		if _, err := st.Delete(ctx, memory.Selector{Namespace: "c", IDs: ids}); err != nil {
			t.Fatal(err)
		}
		if exists(textPath(dir, "c")) {
			t.Error("the index of emptied namespace c is still there")
		}
		st.Close()
		if r, err := Check(ctx, dir); err != nil || !r.OK() || r.Indexes != 2 {
			t.Errorf("check: %v %+v", err, r)
		}
	})
}

// At most maxOpen indexes are open, the least recently used being closed;
// after a clean close, Open opens none (each is checked at its first use);
// after a crash, Open opens those written since the last clean close.
func TestTextIndexesOpenedLazily(t *testing.T) {
	defer SetMaxOpen(SetMaxOpen(2))
	ctx := context.Background()
	dir := t.TempDir()
	names := []string{"n0", "n1", "n2", "n3", "n4"}
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	put := func(st *Store, ns string, turn int) {
		t.Helper()
		m := memory.Memory{ID: memory.MemoryID("s", turn), Namespace: ns, SessionID: "s", SessionDate: day, Turn: turn,
			Role: "user", Text: "the okapi of " + ns, Hash: fmt.Sprint(turn), Created: day}
		if err := st.Put(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	open := func(st *Store) (n int) {
		for _, ti := range st.texts {
			if ti.idx != nil {
				n++
			}
		}
		return n
	}
	searchAll := func(st *Store, want int) {
		t.Helper()
		for _, ns := range names {
			hits, err := st.Search(ctx, memory.Query{Namespace: ns, Text: "okapi", K: 10, Fusion: memory.TextOnly})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != want {
				t.Errorf("namespace %s: %d hits, want %d", ns, len(hits), want)
			}
			if n := open(st); n > 2 {
				t.Errorf("%d indexes open", n)
			}
		}
	}
	st := openLogged(t, dir, nil)
	for _, ns := range names {
		put(st, ns, 0)
	}
	for _, ns := range names {
		put(st, ns, 1) // reopens the closed ones, pending batches and all
	}
	searchAll(st, 2)
	st.Close()

	st = openLogged(t, dir, nil)
	if n := open(st); n != 0 {
		t.Errorf("%d indexes opened by an Open after a clean close", n)
	}
	searchAll(st, 2)
	put(st, "n3", 2)
	st.indexOf(t, "n3")
	for _, ti := range st.texts { // kill -9
		if ti.idx != nil {
			ti.idx.Close()
		}
	}
	st.db.Close()
	forgetFile(st.db, false)

	var logs bytes.Buffer
	st = openLogged(t, dir, &logs)
	defer st.Close()
	if n := open(st); n != 1 || st.texts["n3"].idx == nil {
		t.Errorf("after a crash, Open opened %d indexes; want n3's only", n)
	}
	if strings.Contains(logs.String(), "rebuilding") {
		t.Errorf("rebuilt after the crash:\n%s", logs.String())
	}
	hits, err := st.Search(ctx, memory.Query{Namespace: "n3", Text: "okapi", K: 10, Fusion: memory.TextOnly})
	if err != nil || len(hits) != 3 {
		t.Errorf("n3: %d hits (%v), want 3", len(hits), err)
	}
}

// An index built with another mapping (an older agentmem's: until the
// session pages and the neighbours' context were removed, every index
// recorded one of two digests) is rebuilt from the records at its first
// use, and not again.
func TestOtherMappingRebuilds(t *testing.T) {
	dir := t.TempDir()
	st := openLogged(t, dir, nil)
	day0 := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for n, text := range []string{"we adopted a greyhound", "her name is Luna", "the weather was cold"} {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day0,
			Turn: n, Role: "user", Text: text, Hash: fmt.Sprint(n), Created: day0})
	}
	if err := st.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if err := st.indexOf(t, "default").SetInternal(keyMapping, []byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for round, want := range []bool{true, false} {
		var logs bytes.Buffer
		st = openLogged(t, dir, &logs)
		hits, err := st.Search(context.Background(), memory.Query{Namespace: "default", Text: "greyhound", K: 10, Fusion: memory.TextOnly})
		st.Close()
		if err != nil || len(hits) != 1 || hits[0].Memory.ID != "s:0" {
			t.Fatalf("round %d: %v %v, want s:0", round, hits, err)
		}
		if got := strings.Contains(logs.String(), "built by another version"); got != want {
			t.Errorf("round %d: rebuilt %v, want %v:\n%s", round, got, want, logs.String())
		}
	}
}

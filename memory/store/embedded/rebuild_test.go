package embedded_test

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

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

var day0 = time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)

// fill stores sessions×turns memories, each with the common word "zebra"
// and a word of its own, closes the store, and opens and closes it once
// more, which trims the journal: what the index applied is gone from it.
func fill(t *testing.T, dir string, first, sessions, turns int) {
	t.Helper()
	st := openStore(t, dir, nil)
	for s := first; s < first+sessions; s++ {
		var ms []memory.Memory
		for n := range turns {
			ms = append(ms, mem(s, n))
		}
		if err := st.Put(context.Background(), ms); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := openStore(t, dir, nil).Close(); err != nil {
		t.Fatal(err)
	}
}

func mem(s, n int) memory.Memory {
	session := fmt.Sprintf("s%d", s)
	return memory.Memory{
		ID: memory.MemoryID(session, n), Namespace: "default", SessionID: session, SessionDate: day0.AddDate(0, 0, s),
		Turn: n, Role: "user", Text: fmt.Sprintf("the zebra number %d said w%dx%d", s*1000+n, s, n),
		Hash: fmt.Sprintf("h%d", n), Created: day0,
	}
}

func openStore(t *testing.T, dir string, log *slog.Logger) *embedded.Store {
	t.Helper()
	st, err := embedded.Open(context.Background(), dir, embedded.Options{NoSync: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// found is how many memories BM25 finds for "zebra".
func found(t *testing.T, st memory.Store) int {
	t.Helper()
	hits, err := st.Search(context.Background(), memory.Query{Namespace: "default", Text: "zebra", K: 10000, Pool: 10000, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	return len(hits)
}

// A missing, emptied, foreign, older or damaged text index is detected at
// open and rebuilt from the records, with a log line: every memory is found
// by BM25 again.
func TestIndexLossRebuilt(t *testing.T) {
	const sessions, turns = 22, 10
	// the index of namespace "default", the only one
	index := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "text", "*"))
		if len(m) != 1 {
			t.Fatalf("%d text indexes in %s, want 1", len(m), dir)
		}
		return m[0]
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
	}{
		{"deleted", func(t *testing.T, dir string) { os.RemoveAll(index(dir)) }},
		{"all deleted", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "text")) }},
		{"emptied", func(t *testing.T, dir string) {
			path := index(dir)
			os.RemoveAll(path)
			os.Mkdir(path, 0o700)
		}},
		{"segments deleted", func(t *testing.T, dir string) {
			files, _ := filepath.Glob(filepath.Join(index(dir), "store", "*.zap"))
			if len(files) == 0 {
				t.Fatal("no segment files to delete")
			}
			for _, f := range files {
				os.Remove(f)
			}
		}},
		// bleve's own bbolt file damaged: opening it panics inside bleve
		{"root file truncated", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(index(dir), "store", "root.bolt"), 8192); err != nil {
				t.Fatal(err)
			}
		}},
		{"root file overwritten", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(index(dir), "store", "root.bolt"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// every page after the two meta pages
			fi, err := f.Stat()
			if err != nil || fi.Size() <= 8192 {
				t.Fatalf("root file: %v, %v", fi, err)
			}
			if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(fi.Size())-8192), 8192); err != nil {
				t.Fatal(err)
			}
		}},
		{"another store's index", func(t *testing.T, dir string) {
			other := t.TempDir()
			fill(t, other, 0, 1, 1)
			path := index(dir)
			os.RemoveAll(path)
			os.Rename(index(other), path)
		}},
		{"an older copy", func(t *testing.T, dir string) {
			// the index as it was after the first two sessions, restored
			// over one that has seen all of them
			old := t.TempDir()
			os.RemoveAll(old)
			if err := os.CopyFS(old, os.DirFS(index(dir))); err != nil {
				t.Fatal(err)
			}
			fill(t, dir, 2, sessions-2, turns)
			path := index(dir)
			os.RemoveAll(path)
			os.Rename(old, path)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.name == "an older copy" {
				fill(t, dir, 0, 2, turns)
			} else {
				fill(t, dir, 0, sessions, turns)
			}
			c.damage(t, dir)
			var logs bytes.Buffer
			st := openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			if n := found(t, st); n != sessions*turns {
				t.Errorf("BM25 finds %d of %d memories", n, sessions*turns)
			}
			if !strings.Contains(logs.String(), "rebuilding it from the records") {
				t.Errorf("no log line about the rebuild:\n%s", logs.String())
			}
			// and the rebuilt index is not rebuilt again
			st.Close()
			logs.Reset()
			st = openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			if strings.Contains(logs.String(), "rebuilding") {
				t.Errorf("rebuilt again at the next open:\n%s", logs.String())
			}
			defer st.Close()
			if n := found(t, st); n != sessions*turns {
				t.Errorf("after reopening, BM25 finds %d of %d memories", n, sessions*turns)
			}
		})
	}
}

// A segment damaged where opening does not look (64 bytes inverted, at 150
// places across it and every 64 bytes of its last kilobyte, where zap keeps
// its fields' tables) never crashes a search or fails it, and hides no
// memory: its namespace's first use checks the segment against its
// checksum and rebuilds the index from the records (verify.go). Behind
// that check, with it off: a search that meets the damage finds the
// segment failing its checksum and rebuilds; so does a write that meets
// damage only adding a batch reads (the dictionary of document ids), and
// Close never panics on it.
func TestDamagedSegmentRebuilt(t *testing.T) {
	const sessions, turns = 22, 10
	base := t.TempDir()
	st := openStore(t, base, nil)
	for s := range sessions {
		var ms []memory.Memory
		for n := range turns {
			m := mem(s, n)
			m.Speaker = []string{"Caroline", "Nate"}[n%2] // a question naming one reads the speakers
			ms = append(ms, m)
		}
		if err := st.Put(context.Background(), ms); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	openStore(t, base, nil).Close()
	files, _ := filepath.Glob(filepath.Join(base, "text", "*", "store", "*.zap"))
	if len(files) != 1 {
		t.Fatalf("%d segment files, want 1", len(files))
	}
	orig, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(base, files[0])
	var places []int
	for at := 0; at < len(orig)-64; at += len(orig) / 150 {
		places = append(places, at)
	}
	for at := max(0, len(orig)-1024); at < len(orig)-64; at += 64 {
		places = append(places, at)
	}
	damaged := func(at int) string {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		raw := bytes.Clone(orig)
		for i := at; i < at+64; i++ {
			raw[i] ^= 0xFF
		}
		if err := os.WriteFile(filepath.Join(dir, rel), raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	queries := []string{"zebra number said", "w3x4", "number 5005", "What did Caroline say about the zebra?"}
	search := func(st *embedded.Store, q string) ([]memory.Hit, error) {
		return st.Search(context.Background(), memory.Query{Namespace: "default", Text: q, K: 10000, Pool: 10000, Fusion: memory.TextOnly})
	}

	t.Run("checked at first use", func(t *testing.T) {
		for _, at := range places {
			var logs bytes.Buffer
			dir := damaged(at)
			st := openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			for _, q := range queries {
				hits, err := search(st, q)
				switch {
				case err != nil:
					t.Errorf("bytes %d-%d inverted: %q: %v", at, at+64, q, err)
				case q == "zebra number said" && len(hits) != sessions*turns:
					t.Errorf("bytes %d-%d inverted: %q finds %d of %d memories", at, at+64, q, len(hits), sessions*turns)
				}
			}
			// a write after it, and a reopen: nothing lost
			if err := st.Put(context.Background(), []memory.Memory{mem(sessions, 0)}); err != nil {
				t.Errorf("bytes %d-%d inverted: a write: %v", at, at+64, err)
			}
			st.Close()
			st = openStore(t, dir, nil)
			if hits, err := search(st, "zebra number said"); err != nil || len(hits) != sessions*turns+1 {
				t.Errorf("bytes %d-%d inverted: after a write and a reopen, %d of %d memories found (%v)", at, at+64, len(hits), sessions*turns+1, err)
			}
			st.Close()
			// found by the check of the checksums, or before it by the
			// open (a segment bleve cannot load)
			if !strings.Contains(logs.String(), "rebuilding it from the records") {
				t.Errorf("bytes %d-%d inverted: the first use did not find the damage:\n%s", at, at+64, logs.String())
			}
		}
	})

	t.Run("unchecked", func(t *testing.T) {
		defer embedded.SetVerify(embedded.SetVerify(false))
		bySearch, byWrite, byClose := 0, 0, 0
		for _, at := range places {
			dir := damaged(at)
			var logs bytes.Buffer
			st := openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			for _, q := range queries {
				// what a search finds may be short here: no check found
				// the damage before it
				if _, err := search(st, q); err != nil {
					t.Errorf("bytes %d-%d inverted: %q: %v", at, at+64, q, err)
				}
			}
			if strings.Contains(logs.String(), "checksum does not match") {
				bySearch++
			}
			st.Close()
			if strings.Contains(logs.String(), "writing a text index to disk") {
				byClose++
			}
			logs.Reset()
			st = openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
			if err := st.Put(context.Background(), []memory.Memory{mem(sessions, 0)}); err != nil {
				t.Errorf("bytes %d-%d inverted: a write: %v", at, at+64, err)
			}
			if err := st.Close(); err != nil {
				t.Errorf("bytes %d-%d inverted: Close: %v", at, at+64, err)
			}
			if strings.Contains(logs.String(), "is damaged") {
				byWrite++
			}
		}
		if bySearch == 0 || byClose == 0 || byWrite == 0 {
			t.Errorf("a search met the damage in %d copies, Close in %d, a write in %d: the test no longer damages what each reads", bySearch, byClose, byWrite)
		}
		t.Logf("of %d damaged copies, %d were rebuilt by a search, %d by a write; Close met the damage in %d", len(places), bySearch, byWrite, byClose)
	})
}

// The text indexes removed while the store runs (a user clearing them for
// a rebuild): Close does not wait for bleve to write into the removed
// directory (it retries forever), and the next open rebuilds them.
func TestIndexRemovedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	st := openStore(t, dir, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx := context.Background()
	if err := st.Put(ctx, []memory.Memory{mem(0, 0), mem(0, 1)}); err != nil {
		t.Fatal(err)
	}
	if n := found(t, st); n != 2 {
		t.Fatalf("found %d of 2", n)
	}
	// bleve's persister may write a file into a directory as it is
	// removed ("directory not empty"): removed again, as a user would
	var err error
	for range 50 {
		if err = os.RemoveAll(filepath.Join(dir, "text")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, []memory.Memory{mem(1, 0), mem(1, 1)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// bleve may also report its failed write itself; what matters is
	// that Close did not wait out its timeout
	if strings.Contains(logs.String(), "not written to disk within") {
		t.Errorf("Close with the index removed:\n%s", logs.String())
	}
	st = openStore(t, dir, nil)
	defer st.Close()
	if n := found(t, st); n != 4 {
		t.Errorf("after the next open, BM25 finds %d of 4 memories", n)
	}
}

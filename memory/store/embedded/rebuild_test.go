package embedded_test

import (
	"bytes"
	"context"
	"errors"
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
	return openContext(t, dir, log, false)
}

// openContext opens the store in dir with or without context
// (Options.Context).
func openContext(t *testing.T, dir string, log *slog.Logger, withContext bool) *embedded.Store {
	t.Helper()
	st, err := embedded.Open(context.Background(), dir, embedded.Options{NoSync: true, Logger: log, Context: withContext})
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

// Options.Context is part of the index's mapping: a store opened with the
// other choice rebuilds the namespace's index at its first use, and its
// documents are then what that choice makes: a memory found through its
// neighbour's words, and session pages, only with context. A store without
// context refuses the weights that would search them.
func TestContextToggleRebuilds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var ms []memory.Memory
	for n, text := range []string{"we adopted a greyhound", "her name is Luna", "the weather was cold"} {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day0,
			Turn: n, Role: "user", Text: text, Hash: fmt.Sprint(n), Created: day0})
	}
	neighbours := memory.Query{Namespace: "default", Text: "greyhound", K: 10, Fusion: memory.TextOnly, Weights: memory.Weights{Neighbours: 1}}
	ids := func(t *testing.T, st *embedded.Store, q memory.Query) string {
		t.Helper()
		hits, err := st.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Memory.ID)
		}
		return strings.Join(out, " ")
	}
	documents := func(t *testing.T) int {
		t.Helper()
		r, err := embedded.Check(ctx, dir)
		if err != nil || !r.OK() {
			t.Fatalf("check: %v %+v", err, r)
		}
		return r.IndexDocuments
	}

	st := openContext(t, dir, nil, true)
	if err := st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, st, neighbours); got != "s:0 s:1" {
		t.Errorf("with context, weights.neighbours finds %q, want s:0 s:1 (s:1 through its neighbour)", got)
	}
	if got := ids(t, st, memory.Query{Namespace: "default", Text: "greyhound", K: 10, Fusion: memory.TextOnly, Weights: memory.Weights{Session: 1}}); got != "s:0" {
		t.Errorf("with context, weights.session finds %q, want s:0", got)
	}
	st.Close()
	if n := documents(t); n != 4 {
		t.Errorf("with context: %d documents, want 3 memories and 1 page", n)
	}

	for _, withContext := range []bool{false, true} {
		var logs bytes.Buffer
		st = openContext(t, dir, slog.New(slog.NewTextHandler(&logs, nil)), withContext)
		plain := ids(t, st, memory.Query{Namespace: "default", Text: "greyhound", K: 10, Fusion: memory.TextOnly})
		if plain != "s:0" {
			t.Errorf("context %v: %q, want s:0", withContext, plain)
		}
		if !strings.Contains(logs.String(), "the other choice of context") {
			t.Errorf("context %v: the index was not rebuilt at its first use:\n%s", withContext, logs.String())
		}
		for _, w := range []struct {
			field string
			w     memory.Weights
		}{{"weights.neighbours", memory.Weights{Neighbours: 0.5}}, {"weights.session", memory.Weights{Session: 1}}} {
			q := neighbours
			q.Weights = w.w
			_, err := st.Search(ctx, q)
			var fe *memory.FieldError
			switch {
			case withContext && err != nil:
				t.Errorf("context: %s: %v", w.field, err)
			case !withContext && (!errors.As(err, &fe) || fe.Field != w.field || !strings.Contains(fe.Msg, "--index-context")):
				t.Errorf("without context, %s: %v, want a FieldError naming it and --index-context", w.field, err)
			}
		}
		st.Close()
		want := map[bool]int{false: 3, true: 4}[withContext]
		if n := documents(t); n != want {
			t.Errorf("context %v: %d documents, want %d", withContext, n, want)
		}
		// the next open with the same choice does not rebuild
		logs.Reset()
		st = openContext(t, dir, slog.New(slog.NewTextHandler(&logs, nil)), withContext)
		ids(t, st, memory.Query{Namespace: "default", Text: "greyhound", K: 10, Fusion: memory.TextOnly})
		st.Close()
		if strings.Contains(logs.String(), "rebuild") {
			t.Errorf("context %v: rebuilt again:\n%s", withContext, logs.String())
		}
	}
}

package embedded

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

// An index whose unchecked segments are larger than verifyNow is checked
// in the background: the first use does not wait, and the damage found
// (here bytes of the segment's table of fields, which hide every memory
// from a search without an error) has the index rebuilt at its next use,
// search or write. Intact segments are checked once per process.
func TestVerifyInBackground(t *testing.T) {
	defer func(n int64) { verifyNow = n }(verifyNow)
	verifyNow = 0
	ctx := context.Background()
	dir, segment, orig := okapiStore(t)
	found := func(st *Store) int {
		t.Helper()
		hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "okapi", K: 1000, Pool: 1000, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}

	// intact: checked once, in the background, nothing rebuilt
	var logs bytes.Buffer
	st := openLogged(t, dir, &logs)
	if n := found(st); n != 200 {
		t.Fatalf("intact: %d of 200 found", n)
	}
	st.verified.wg.Wait()
	if len(st.verified.done) == 0 || logs.Len() != 0 {
		t.Fatalf("intact: %d segments found intact, logs:\n%s", len(st.verified.done), logs.String())
	}
	st.Close()

	raw := silentDamage(t, dir, segment, orig, 200)
	for _, next := range []string{"search", "write"} {
		t.Run(next, func(t *testing.T) {
			if err := os.WriteFile(segment, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			st := openLogged(t, dir, &logs)
			defer st.Close()
			st.mu.Lock()
			err := st.use(ctx, st.texts["default"]) // the first use: the check starts
			st.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			st.verified.wg.Wait()
			if !strings.Contains(logs.String(), "checksum does not match") || !strings.Contains(logs.String(), "at its next use") {
				t.Fatalf("the background check did not find the damage:\n%s", logs.String())
			}
			want := 200
			if next == "write" {
				if err := st.Put(ctx, []memory.Memory{okapi(200)}); err != nil {
					t.Fatal(err)
				}
				want = 201
			}
			if n := found(st); n != want {
				t.Errorf("after the damage was found: %d of %d found:\n%s", n, want, logs.String())
			}
			if !strings.Contains(logs.String(), "text index rebuilt") {
				t.Errorf("not rebuilt:\n%s", logs.String())
			}
		})
	}
}

// silentDamage is a copy of the segment file orig (at path, in the store
// dir holding want memories of "okapi") with 64 bytes inverted where a
// search, the checks off, finds fewer memories without an error or a
// rebuild: in the segment's table of fields. path is left as orig.
func silentDamage(t *testing.T, dir, path string, orig []byte, want int) []byte {
	t.Helper()
	defer func(off bool) { verifyOff = off }(verifyOff)
	verifyOff = true
	defer os.WriteFile(path, orig, 0o600)
	for at := max(0, len(orig)-1024); at < len(orig)-64; at += 64 {
		b := bytes.Clone(orig)
		for i := at; i < at+64; i++ {
			b[i] ^= 0xFF
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		st := openLogged(t, dir, &logs)
		hits, err := st.Search(context.Background(), memory.Query{Namespace: "default", Text: "okapi", K: 1000, Pool: 1000, Fusion: memory.TextOnly})
		st.Close()
		if err == nil && len(hits) < want && logs.Len() == 0 {
			return b
		}
	}
	t.Fatal("no damage in the segment's last kilobyte hides memories silently: nothing for the check to find")
	return nil
}

// After an unclean stop, Open itself opens the indexes written since the
// last clean close and replays the journal into them: their segments are
// checked before that replay, whatever their size, so the damage is
// rebuilt, not replayed into, nor left to hide memories.
func TestVerifyBeforeReplay(t *testing.T) {
	defer func(n int64) { verifyNow = n }(verifyNow)
	verifyNow = 0 // the first use would check in the background
	ctx := context.Background()
	dir, segment, orig := okapiStore(t)
	raw := silentDamage(t, dir, segment, orig, 200)

	st := openLogged(t, dir, nil)
	if err := st.Put(ctx, []memory.Memory{okapi(200)}); err != nil { // journalled, not flushed
		t.Fatal(err)
	}
	for _, ti := range st.texts { // kill -9
		if ti.idx != nil {
			ti.idx.Close()
		}
	}
	st.db.Close()
	forgetFile(st.db, false)
	if err := os.WriteFile(segment, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	st = openLogged(t, dir, &logs)
	defer st.Close()
	hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "okapi", K: 1000, Pool: 1000, Fusion: memory.TextOnly})
	if err != nil || len(hits) != 201 {
		t.Errorf("after an unclean stop and damage: %d of 201 found (%v):\n%s", len(hits), err, logs.String())
	}
	if !strings.Contains(logs.String(), "checksum does not match") {
		t.Errorf("the damage was not found before the replay:\n%s", logs.String())
	}
}

// okapi is memory n of okapiStore's namespace.
func okapi(n int) memory.Memory {
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	return memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day, Turn: n,
		Role: "user", Text: fmt.Sprintf("the okapi number %d", n), Hash: fmt.Sprint(n), Created: day}
}

// okapiStore is a store dir holding 200 okapi memories in one namespace,
// closed, with its index's one segment file and that file's bytes.
func okapiStore(t *testing.T) (dir, segment string, orig []byte) {
	t.Helper()
	dir = t.TempDir()
	st := openLogged(t, dir, nil)
	var ms []memory.Memory
	for n := range 200 {
		ms = append(ms, okapi(n))
	}
	if err := st.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "text", "*", "store", "*.zap"))
	if len(files) != 1 {
		t.Fatalf("%d segment files, want 1", len(files))
	}
	orig, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return dir, files[0], orig
}

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
	dir := t.TempDir()
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	st := openLogged(t, dir, nil)
	var ms []memory.Memory
	for n := range 200 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day, Turn: n,
			Role: "user", Text: fmt.Sprintf("the okapi number %d", n), Hash: fmt.Sprint(n), Created: day})
	}
	if err := st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
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
	st = openLogged(t, dir, &logs)
	if n := found(st); n != 200 {
		t.Fatalf("intact: %d of 200 found", n)
	}
	st.verified.wg.Wait()
	if len(st.verified.done) == 0 || logs.Len() != 0 {
		t.Fatalf("intact: %d segments found intact, logs:\n%s", len(st.verified.done), logs.String())
	}
	st.Close()

	files, _ := filepath.Glob(filepath.Join(dir, "text", "*", "store", "*.zap"))
	if len(files) != 1 {
		t.Fatalf("%d segment files, want 1", len(files))
	}
	orig, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// damage that hides memories from a search without an error (in the
	// segment's table of fields), found with the checks off
	var raw []byte
	verifyOff = true
	for at := max(0, len(orig)-1024); at < len(orig)-64 && raw == nil; at += 64 {
		b := bytes.Clone(orig)
		for i := at; i < at+64; i++ {
			b[i] ^= 0xFF
		}
		if err := os.WriteFile(files[0], b, 0o600); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		st := openLogged(t, dir, &logs)
		hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "okapi", K: 1000, Pool: 1000, Fusion: memory.TextOnly})
		st.Close()
		if err == nil && len(hits) < 200 && logs.Len() == 0 {
			raw = b
		}
	}
	verifyOff = false
	if raw == nil {
		t.Fatal("no damage in the segment's last kilobyte hides memories silently: nothing for the check to find")
	}
	for _, next := range []string{"search", "write"} {
		t.Run(next, func(t *testing.T) {
			if err := os.WriteFile(files[0], raw, 0o600); err != nil {
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
				m := ms[0]
				m.ID, m.Turn, m.Text = memory.MemoryID("s", 200), 200, "one more okapi"
				if err := st.Put(ctx, []memory.Memory{m}); err != nil {
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

package embedded_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

const pageSize = 4096

// damage is one way a record file can be hurt.
type damage struct {
	name string
	hurt func(t *testing.T, db string)
}

// boltMeta reads the fields of the newer valid-looking meta page that the
// damages aim at: the freelist page and the root bucket's page.
func boltMeta(t *testing.T, raw []byte) (root, freelist, high uint64) {
	t.Helper()
	var best uint64
	for p := range 2 {
		m := raw[p*pageSize+16:]
		if binary.LittleEndian.Uint32(m) != 0xED0CDAED {
			continue
		}
		txid := binary.LittleEndian.Uint64(m[48:])
		if txid >= best {
			best = txid
			root = binary.LittleEndian.Uint64(m[16:])
			freelist = binary.LittleEndian.Uint64(m[32:])
			high = binary.LittleEndian.Uint64(m[40:])
		}
	}
	if high == 0 {
		t.Fatal("no meta page")
	}
	return root, freelist, high
}

func rewrite(t *testing.T, db string, f func(raw []byte) []byte) {
	t.Helper()
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, f(raw), 0o600); err != nil {
		t.Fatal(err)
	}
}

func zeroPage(p uint64) func([]byte) []byte {
	return func(raw []byte) []byte {
		clear(raw[p*pageSize : (p+1)*pageSize])
		return raw
	}
}

// flip inverts the bytes at [off, off+n) of raw.
func flip(raw []byte, off, n int) []byte {
	for i := off; i < off+n && i < len(raw); i++ {
		raw[i] ^= 0xff
	}
	return raw
}

func damages() []damage {
	ds := []damage{
		{"deleted", func(t *testing.T, db string) { os.Remove(db) }},
		{"empty", func(t *testing.T, db string) { os.Truncate(db, 0) }},
		{"truncated to 100 bytes", func(t *testing.T, db string) { os.Truncate(db, 100) }},
		{"truncated to one page", func(t *testing.T, db string) { os.Truncate(db, pageSize) }},
		{"truncated to half", func(t *testing.T, db string) {
			fi, _ := os.Stat(db)
			os.Truncate(db, fi.Size()/2/pageSize*pageSize)
		}},
		{"truncated by one page", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, _, high := boltMeta(t, raw)
				return raw[:(high-1)*pageSize]
			})
		}},
		{"both meta pages zeroed", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte { return zeroPage(1)(zeroPage(0)(raw)) })
		}},
		{"meta page 0 zeroed", func(t *testing.T, db string) { rewrite(t, db, zeroPage(0)) }},
		{"meta magic flipped", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte { return flip(flip(raw, 16, 4), pageSize+16, 4) })
		}},
		{"freelist page zeroed", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, fl, _ := boltMeta(t, raw)
				return zeroPage(fl)(raw)
			})
		}},
		{"freelist page type flipped", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, fl, _ := boltMeta(t, raw)
				return flip(raw, int(fl)*pageSize+8, 2)
			})
		}},
		{"freelist count flipped", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, fl, _ := boltMeta(t, raw)
				return flip(raw, int(fl)*pageSize+10, 2)
			})
		}},
		{"root bucket page zeroed", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				root, _, _ := boltMeta(t, raw)
				return zeroPage(root)(raw)
			})
		}},
		{"root bucket page garbled", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				root, _, _ := boltMeta(t, raw)
				return flip(raw, int(root)*pageSize+16, 64)
			})
		}},
		{"last page zeroed", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, _, high := boltMeta(t, raw)
				return zeroPage(high - 1)(raw)
			})
		}},
		{"middle third zeroed", func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				_, _, high := boltMeta(t, raw)
				for p := high / 3; p < 2*high/3; p++ {
					zeroPage(p)(raw)
				}
				return raw
			})
		}},
	}
	// the id of every leaf page flipped (bbolt asserts that a page read
	// is the one asked for), a page of every bucket in turn
	for p := 2; p < 200; p++ {
		ds = append(ds, damage{fmt.Sprintf("leaf page %d id flipped", p), func(t *testing.T, db string) {
			rewrite(t, db, func(raw []byte) []byte {
				if (p+1)*pageSize <= len(raw) && binary.LittleEndian.Uint16(raw[p*pageSize+8:]) == 0x02 {
					flip(raw, p*pageSize, 8)
				}
				return raw
			})
		}})
	}
	// bytes flipped at several places: page headers and page contents
	for _, frac := range []int{10, 25, 40, 55, 70, 85, 95} {
		for _, at := range []struct {
			name string
			off  int
			n    int
		}{{"header", 0, 16}, {"content", 200, 32}} {
			ds = append(ds, damage{fmt.Sprintf("page at %d%% %s flipped", frac, at.name), func(t *testing.T, db string) {
				rewrite(t, db, func(raw []byte) []byte {
					_, _, high := boltMeta(t, raw)
					p := max(2, int(high)*frac/100)
					return flip(raw, p*pageSize+at.off, at.n)
				})
			}})
		}
	}
	return ds
}

// A damaged record file never panics, faults nor passes for an empty or
// smaller store: opening it, or using it, gives a clear error naming the
// file and what to do; or, where the damage touched nothing in use, every
// memory reads back intact.
func TestDamagedRecordFile(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	fill(t, base, 0, 22, 10)
	var want []memory.Memory
	st := openStore(t, base, nil)
	st.Export(ctx, "", false, func(m memory.Memory) error { want = append(want, m); return nil })
	st.Close()
	if len(want) != 220 {
		t.Fatalf("exported %d of 220", len(want))
	}
	for _, d := range damages() {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			os.RemoveAll(dir)
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "memories.db")
			d.hurt(t, db)
			outcome, lost := useDamaged(t, dir, want)
			t.Log(outcome)
			// agentmem check sees every damage the store refused, and
			// every loss it could not see
			var r *embedded.Report
			guardTest(t, "check", func() {
				var err error
				if r, err = embedded.Check(context.Background(), dir); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("check: records %q; index %q", r.Records, r.Index)
			if (lost || !strings.HasPrefix(outcome, "intact")) && len(r.Records) == 0 {
				t.Errorf("check finds nothing wrong with the records")
			}
		})
	}
}

// useDamaged opens dir and uses it, failing the test on a panic, on an
// unclear error, or on a memory lost or changed without an error. It
// returns what happened.
func useDamaged(t *testing.T, dir string, want []memory.Memory) (outcome string, lost bool) {
	t.Helper()
	ctx := context.Background()
	step := "open"
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v", step, p)
		}
	}()
	clearErr := func(err error) string {
		t.Helper()
		msg := err.Error()
		if !errors.Is(err, embedded.ErrDamaged) || !strings.Contains(msg, "memories.db") || !strings.Contains(msg, "backup") {
			t.Errorf("%s: unclear error (want ErrDamaged naming memories.db and a backup): %v", step, err)
		}
		return step + ": " + msg
	}
	st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
	if err != nil {
		return clearErr(err), false
	}
	defer st.Close()
	// first the reads that once went around the guard (a trial's damaged
	// leaf pages panicked or faulted in them): the guarded reads below
	// would find the damage before them
	step = "session ends"
	for s := range 22 {
		if _, _, err := st.SessionEnds(ctx, "default", fmt.Sprintf("s%d", s), 3); err != nil {
			return clearErr(err), false
		}
	}
	step = "keys"
	if _, err := st.FindKeys(ctx, "default", "s1", []string{"k"}); err != nil {
		return clearErr(err), false
	}
	step = "pending"
	if _, err := st.CountPending(ctx, ""); err != nil {
		return clearErr(err), false
	}
	if _, err := st.PendingVectors(ctx, 10); err != nil {
		return clearErr(err), false
	}
	step = "export"
	var got []memory.Memory
	if err := st.Export(ctx, "", false, func(m memory.Memory) error { got = append(got, m); return nil }); err != nil {
		return clearErr(err), false
	}
	// bbolt keeps no checksums: a flipped byte in a key or a value can
	// pass unseen by the store; check must then see it
	if len(got) != len(want) {
		return fmt.Sprintf("silent: exported %d of %d memories without an error", len(got), len(want)), true
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Text != want[i].Text || !got[i].SessionDate.Equal(want[i].SessionDate) {
			return fmt.Sprintf("silent: memory %d reads back as %s %q, was %s %q", i, got[i].ID, got[i].Text, want[i].ID, want[i].Text), true
		}
	}
	step = "search"
	if n, err := searchAll(st); err != nil {
		return clearErr(err), false
	} else if n != len(want) {
		return fmt.Sprintf("silent: search finds %d of %d memories without an error", n, len(want)), true
	}
	step = "session"
	for s := range 22 {
		ms, err := st.Session(ctx, "default", fmt.Sprintf("s%d", s))
		if err != nil {
			return clearErr(err), false
		}
		if len(ms) != 10 {
			return fmt.Sprintf("silent: session s%d has %d of 10 turns, without an error", s, len(ms)), true
		}
	}
	step = "put"
	if err := st.Put(ctx, []memory.Memory{mem(99, 0)}); err != nil {
		return clearErr(err), false
	}
	step = "delete"
	if _, err := st.Delete(ctx, memory.Selector{Namespace: "default", SessionID: "s3"}); err != nil {
		return clearErr(err), false
	}
	step = "namespaces"
	if _, err := st.Namespaces(ctx); err != nil {
		return clearErr(err), false
	}
	return "intact: the damage touched nothing in use", false
}

func guardTest(t *testing.T, step string, fn func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v", step, p)
		}
	}()
	fn()
}

func searchAll(st memory.Store) (int, error) {
	hits, err := st.Search(context.Background(), memory.Query{Namespace: "default", Text: "zebra", K: 10000, Pool: 10000, Fusion: memory.TextOnly})
	return len(hits), err
}

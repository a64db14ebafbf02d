package embedded_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/memory/store/embedded/vectors"
)

// checkStore runs embedded.Check on the store in dir.
func checkStore(t *testing.T, dir string) *embedded.Report {
	t.Helper()
	r, err := embedded.Check(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Records) > 0 || len(r.Index) > 0 {
		t.Fatalf("records or text index reported damaged: %q %q", r.Records, r.Index)
	}
	return r
}

// snapshotOf is the path of namespace ns's snapshot, as the manifest in
// dir names it.
func snapshotOf(t *testing.T, dir, ns string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "vectors", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mf struct {
		Namespaces map[string]struct{ File string } `json:"namespaces"`
	}
	if err := json.Unmarshal(raw, &mf); err != nil || mf.Namespaces[ns].File == "" {
		t.Fatalf("manifest %s: %v, no file for %q", raw, err, ns)
	}
	return filepath.Join(dir, "vectors", mf.Namespaces[ns].File)
}

// resave loads the snapshot at path, changes it with harm and saves it
// back with its stamp and tag: a snapshot whose checksums hold, as one
// saved from a mapped file changed in place would be.
func resave(t *testing.T, path string, harm func(x *vectors.Index)) {
	t.Helper()
	x, info, err := vectors.Load(path, vectors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Release()
	harm(x)
	if err := x.Save(path, info.Stamp, info.Tag); err != nil {
		t.Fatal(err)
	}
}

// agentmem check verifies each vector snapshot against the records: an
// intact one (also one the journal has moved past) passes; one the next
// open would not use, one damaged, and one whose checksums hold over
// vectors that are not the records' are each named; RebuildVectors mends
// the last, which no open would notice.
func TestCheckVectorSnapshots(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir, r := snapshotted(t, 11)
	rep := checkStore(t, dir)
	if !rep.OK() || rep.Snapshotted != 2 || rep.SnapshotWindows != 250+100 {
		t.Fatalf("an intact store: OK %v, %d snapshots of %d windows (want 2 of 350); problems %q", rep.OK(), rep.Snapshotted, rep.SnapshotWindows, rep.Snapshots)
	}

	// snapshots the journal has moved past: what the open re-reads is not
	// compared
	old := t.TempDir()
	os.CopyFS(old, os.DirFS(filepath.Join(dir, "vectors")))
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 190, 30))
	if _, err := st.Delete(context.Background(), memory.Selector{Namespace: "b", IDs: []string{"s1:1"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	restore := func(from string) {
		os.RemoveAll(filepath.Join(dir, "vectors"))
		if err := os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
	}
	good := t.TempDir()
	os.CopyFS(good, os.DirFS(filepath.Join(dir, "vectors")))
	restore(old)
	if rep := checkStore(t, dir); !rep.OK() || rep.Snapshotted != 2 {
		t.Fatalf("snapshots behind the journal, which the open brings up to date: %d checked, problems %q", rep.Snapshotted, rep.Snapshots)
	}
	restore(good)

	cases := []struct {
		name, want string
		harm       func(a string)
	}{
		{"a window changed", `vectors of memory "s3:4" are not its record's`, func(a string) {
			resave(t, a, func(x *vectors.Index) {
				sess, date, ws, _ := x.Memory("s3:4")
				w := append([]float32(nil), ws[0]...)
				w[0] = -w[0]
				x.Add("s3:4", sess, date, [][]float32{w})
			})
		}},
		{"a memory missing", `lacks memory "s5:5"`, func(a string) {
			resave(t, a, func(x *vectors.Index) { x.Remove("s5:5") })
		}},
		{"a memory not stored", `holds memory "s99:1", which is not stored`, func(a string) {
			resave(t, a, func(x *vectors.Index) {
				_, _, ws, _ := x.Memory("s1:1")
				x.Add("s99:1", "s99", 0, ws)
			})
		}},
		{"another session", `session "s7"`, func(a string) {
			resave(t, a, func(x *vectors.Index) {
				_, date, ws, _ := x.Memory("s2:2")
				x.Add("s2:2", "s7", date, append([][]float32(nil), ws...))
			})
		}},
		{"a byte flipped", "damaged", func(a string) {
			b, _ := os.ReadFile(a)
			b[len(b)/2] ^= 0x40
			os.WriteFile(a, b, 0o600)
		}},
		{"another store's", "another store", func(string) {
			other := t.TempDir()
			st := openVec(t, other, nil)
			put(t, st, mems(rand.New(rand.NewPCG(9, 9)), "a", 0, 200))
			st.Close()
			restore(filepath.Join(other, "vectors"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			restore(good)
			tc.harm(snapshotOf(t, dir, "a"))
			rep := checkStore(t, dir)
			if rep.OK() || !strings.Contains(strings.Join(rep.Snapshots, "\n"), tc.want) {
				t.Fatalf("check found %q; want a problem naming %q", rep.Snapshots, tc.want)
			}
			if tc.name == "a window changed" {
				// its checksums hold: the open uses it as it is, and only
				// a rebuild from the records mends it
				st := openVec(t, dir, nil)
				n, w, err := st.RebuildVectors(context.Background())
				if cerr := st.Close(); err == nil {
					err = cerr
				}
				// a: 220 memories, 275 windows; b: 79, 99; small: 20, 25
				if err != nil || n != 319 || w != 399 {
					t.Fatalf("RebuildVectors: %d memories, %d windows, %v; want 319 and 399", n, w, err)
				}
				if rep := checkStore(t, dir); !rep.OK() || rep.Snapshotted != 2 {
					t.Fatalf("after RebuildVectors: %d checked, problems %q", rep.Snapshotted, rep.Snapshots)
				}
			}
		})
	}
}

// What a stop leaves in vectors/ is no damage: a snapshot saved after the
// manifest was last written and a save's temporary file are counted, not
// reported, and the next open rebuilds the one and removes the other.
func TestCheckSnapshotsAfterAStop(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir, r := snapshotted(t, 13)
	manifest := filepath.Join(dir, "vectors", "manifest.json")
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 200, 20))
	st.Close()
	// the manifest as it was before a's new snapshot: a stop between them
	os.WriteFile(manifest, before, 0o600)
	tmp := snapshotOf(t, dir, "b") + ".tmp123"
	os.WriteFile(tmp, []byte("half a save"), 0o600)
	rep := checkStore(t, dir)
	if !rep.OK() || rep.SnapshotsStale != 1 || rep.SnapshotLeftovers != 1 || rep.Snapshotted != 1 { // b
		t.Fatalf("after a stop: OK %v, stale %d, leftovers %d, intact %d (want true, 1, 1, 1); problems %q", rep.OK(), rep.SnapshotsStale, rep.SnapshotLeftovers, rep.Snapshotted, rep.Snapshots)
	}
	st = openVec(t, dir, nil)
	st.Close()
	if _, err := os.Stat(tmp); err == nil {
		t.Error("the open left the save's temporary file")
	}
	if rep := checkStore(t, dir); !rep.OK() || rep.SnapshotsStale+rep.SnapshotLeftovers != 0 || rep.Snapshotted != 2 {
		t.Fatalf("after an open: stale %d, leftovers %d, intact %d; problems %q", rep.SnapshotsStale, rep.SnapshotLeftovers, rep.Snapshotted, rep.Snapshots)
	}
}

// A store emptied and then given no embedder keeps no snapshot of the
// embedder it had, which check would otherwise report for ever.
func TestSnapshotsDroppedWithoutEmbedder(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir := t.TempDir()
	st := openVec(t, dir, nil)
	put(t, st, mems(rand.New(rand.NewPCG(15, 16)), "a", 0, 100))
	if _, err := st.Delete(context.Background(), memory.Selector{Namespace: "a", All: true}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err := embedded.Open(context.Background(), dir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(context.Background(), []memory.Memory{{ID: "s1:0", Namespace: "a", SessionID: "s1", Role: "user", Text: "no vectors"}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if rep := checkStore(t, dir); !rep.OK() {
		t.Fatalf("a store without an embedder: %q", rep.Snapshots)
	}
	if _, err := os.Stat(filepath.Join(dir, "vectors")); err == nil {
		t.Error("the other embedder's snapshots were kept")
	}
}

// An interrupted reindex leaves memories of the new embedder (or of none)
// among those of the store's: check counts them, no damage, and names the
// embedder; no snapshot keeps their old vectors (the reindex drops the
// snapshots before its first batch, and the close saves none), so the
// next open leaves them out of vector search; a reindex run again
// finishes.
func TestCheckAfterAnInterruptedReindex(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	for _, to := range []string{"new", ""} {
		dir := t.TempDir()
		st := openVec(t, dir, nil)
		put(t, st, mems(rand.New(rand.NewPCG(17, 18)), "a", 0, 600))
		st.Close()
		if rep := checkStore(t, dir); rep.Snapshotted != 1 {
			t.Fatalf("no snapshot to begin with: %+v", rep)
		}
		r := rand.New(rand.NewPCG(19, 20))
		dims, batches := 0, 0
		if to != "" {
			dims = 16
		}
		vectorize := func(fail bool) func(context.Context, []memory.Memory) error {
			return func(_ context.Context, ms []memory.Memory) error {
				if batches++; fail && batches > 1 {
					return errors.New("the embedder went away")
				}
				for i := range ms {
					ms[i].Embedder, ms[i].Vectors = to, nil
					if to != "" {
						ms[i].Vectors = [][]float32{unit(r)[:dims]}
					}
				}
				return nil
			}
		}
		st = openVec(t, dir, nil)
		if err := st.Reindex(context.Background(), to, dims, vectorize(true), nil); err == nil {
			t.Fatal("the reindex did not fail")
		}
		st.Close()
		rep := checkStore(t, dir)
		if !rep.OK() || rep.Reembedded == 0 || rep.Reembedded == 600 || rep.ReembeddedTo != cmp.Or(to, "none") {
			t.Fatalf("to %q, after an interrupted reindex: OK %v, %d of 600 re-embedded, to %q; snapshot problems %q", to, rep.OK(), rep.Reembedded, rep.ReembeddedTo, rep.Snapshots)
		}
		st = openVec(t, dir, nil)
		if n := st.VectorStats("a").Memories; n != 600-rep.Reembedded {
			t.Errorf("to %q: vector search holds %d memories after the interruption, want the %d not re-embedded", to, n, 600-rep.Reembedded)
		}
		st.Close()
		st, err := embedded.Open(context.Background(), dir, embedded.Options{EmbedderID: to, Dims: dims, NoSync: true, SkipEmbedderCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		err = st.Reindex(context.Background(), to, dims, vectorize(false), nil)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if rep := checkStore(t, dir); !rep.OK() || rep.Reembedded != 0 {
			t.Fatalf("to %q, after the reindex finished: %d re-embedded; %q", to, rep.Reembedded, rep.Snapshots)
		}
	}
}

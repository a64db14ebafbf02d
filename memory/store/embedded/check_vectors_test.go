package embedded_test

import (
	"context"
	"encoding/json"
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
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 0, 200))
	put(t, st, mems(r, "b", 0, 80))
	put(t, st, mems(r, "small", 0, 20)) // below the minimum: no snapshot
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rep := checkStore(t, dir)
	if !rep.OK() || rep.Snapshotted != 2 || rep.SnapshotWindows != 250+100 {
		t.Fatalf("an intact store: OK %v, %d snapshots of %d windows (want 2 of 350); problems %q", rep.OK(), rep.Snapshotted, rep.SnapshotWindows, rep.Snapshots)
	}

	// snapshots the journal has moved past: what the open re-reads is not
	// compared
	old := t.TempDir()
	os.CopyFS(old, os.DirFS(filepath.Join(dir, "vectors")))
	st = openVec(t, dir, nil)
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
				if err := st.RebuildVectors(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				if rep := checkStore(t, dir); !rep.OK() || rep.Snapshotted != 2 {
					t.Fatalf("after RebuildVectors: %d checked, problems %q", rep.Snapshotted, rep.Snapshots)
				}
			}
		})
	}
}

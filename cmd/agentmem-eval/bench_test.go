package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentmem-eval bench on generated text (no data dir): a kept store is measured
// again with --reuse without its ingest; --real embeds through the data
// dir's cache with the configured model (the built-in one here) and says
// so; the flags that cannot work together are refused, naming them.
func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	noData := filepath.Join(dir, "no-data")
	out := run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "300", "--queries", "5", "--data", noData, "--keep", "--work", work)
	for _, want := range []string{"generated text", "## 300 memories", "- ingest: ", "- open: ", "from the records (a namespace this small has no vector snapshot)", "(300 windows; no inverted file: the exact vector scan)", "zero-cost embedder (fake:bench)", "| rrf |", "vector recall@10 against the exact float32 scan: 1.0000"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	out = run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "300", "--queries", "5", "--data", noData, "--keep", "--reuse", "--settle", "--work", work)
	if !strings.Contains(out, "- ingest: not measured (the store of an earlier run, --reuse)") || !strings.Contains(out, "| rrf |") {
		t.Errorf("--reuse output:\n%s", out)
	}
	// the kept run is a data dir: check reads it
	if out := run(t, "agentmem", filepath.Join(work, "300"), "check"); !strings.Contains(out, "300 memories") || !strings.Contains(out, "OK") {
		t.Errorf("check of the kept data dir:\n%s", out)
	}
	// the open from the records, last, rebuilds the vectors and saves them:
	// the snapshot measured is set aside and put back, so that a kept store
	// is the one measured (and its inverted file's lists, above ApproxAt):
	// a --reuse run leaves the file as it found it
	if out := run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "10000", "--queries", "3", "--data", noData, "--keep", "--work", work); !strings.Contains(out, "s from the snapshot\n") {
		t.Errorf("a store with a snapshot opened from it:\n%s", out)
	}
	snap := func() os.FileInfo {
		t.Helper()
		vecs := filepath.Join(work, "10000", "store", "vectors")
		if _, err := os.Stat(vecs + ".measured"); !os.IsNotExist(err) {
			t.Errorf("the snapshot set aside is left behind: %v", err)
		}
		snaps, _ := filepath.Glob(filepath.Join(vecs, "*.snap"))
		if len(snaps) != 1 {
			t.Fatalf("vector snapshots of the kept store: %v, want one", snaps)
		}
		fi, err := os.Stat(snaps[0])
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	before := snap()
	run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "10000", "--queries", "3", "--data", noData, "--keep", "--reuse", "--work", work)
	if after := snap(); !os.SameFile(after, before) {
		t.Errorf("--reuse left a vector snapshot written at %v, not the one measured (%v)", after.ModTime(), before.ModTime())
	}
	// a run stopped in that last step leaves the snapshot aside, and
	// perhaps a partial rebuild: the next run puts it back first
	vecs := filepath.Join(work, "10000", "store", "vectors")
	if err := os.Rename(vecs, vecs+".measured"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(vecs, 0o700); err != nil {
		t.Fatal(err)
	}
	run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "10000", "--queries", "3", "--data", noData, "--keep", "--reuse", "--work", work)
	if after := snap(); !os.SameFile(after, before) {
		t.Errorf("after a stopped run, --reuse measured a snapshot written at %v, not the one set aside (%v)", after.ModTime(), before.ModTime())
	}
	// a run without --reuse starts from an empty store, whatever an
	// earlier one kept (a snapshot set aside included): it stores every
	// turn again, and its snapshot is its own
	// (the new snapshot may take the old one's inode, and the generated
	// text makes it the same bytes: what tells it apart is the ingest)
	if err := os.Rename(vecs, vecs+".measured"); err != nil {
		t.Fatal(err)
	}
	out = run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "10000", "--queries", "3", "--data", noData, "--keep", "--work", work)
	snap()
	if strings.Contains(out, "already held") || !strings.Contains(out, "- ingest: ") {
		t.Errorf("a run without --reuse did not store every turn again:\n%s", out)
	}
	if out := run(t, "agentmem", filepath.Join(work, "10000"), "check"); !strings.Contains(out, "10000 memories") {
		t.Errorf("check after a fresh run over a kept store:\n%s", out)
	}
	out = run(t, "agentmem-eval", filepath.Join(dir, "d"), "bench", "--sizes", "200", "--queries", "5", "--data", noData, "--keep", "--reuse", "--work", work)
	if !strings.Contains(out, "--reuse: no store kept in") || !strings.Contains(out, "- ingest: ") {
		t.Errorf("--reuse of a size never kept:\n%s", out)
	}
	out = run(t, "agentmem-eval", filepath.Join(dir, "real"), "bench", "--real", "--sizes", "40", "--queries", "3", "--data", noData)
	if !strings.Contains(out, "embedder through the cache (builtin:use-lite-en@1+prev10)") || !strings.Contains(out, "the cached embedder's share: not measured") {
		t.Errorf("--real output:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--reuse", "--sizes", "10", "--data", noData}, "--reuse needs --keep"},
		{[]string{"bench", "--keep", "--sizes", "10", "--data", noData}, "--keep needs --work"},
		{[]string{"--embedder", "none", "bench", "--real", "--sizes", "10", "--data", noData}, "--real needs an embedder"},
	} {
		_, errOut, err := try(t, "agentmem-eval", filepath.Join(dir, "e"), c.args...)
		if err == nil || !strings.Contains(errOut, c.want) {
			t.Errorf("agentmem-eval %s: err %v, stderr %q; want an error saying %q", strings.Join(c.args, " "), err, errOut, c.want)
		}
	}
}

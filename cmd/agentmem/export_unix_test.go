//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// export -o replaces a regular file only: a symlink (and the file it
// points to), a FIFO, a directory stay what they were, with a clear error.
func TestExportOutReplacesRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	run(t, data, "remember", "--session-id", "s1", "--session-date", "2023-05-01", "A note to export.")
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	link, fifo, sub := filepath.Join(dir, "link"), filepath.Join(dir, "fifo"), filepath.Join(dir, "sub")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{link: "symbolic link", fifo: "named pipe", sub: "directory"} {
		before, _ := os.Lstat(path)
		_, errOut, err := try(t, data, "export", "-o", path)
		if err == nil || !strings.Contains(errOut, kind) || !strings.Contains(errOut, "regular file") {
			t.Errorf("export -o %s: %v %s, want an error naming a %s", filepath.Base(path), err, errOut, kind)
		}
		if after, _ := os.Lstat(path); after == nil || after.Mode() != before.Mode() {
			t.Errorf("export -o %s changed it from %v to %v", filepath.Base(path), before.Mode(), after)
		}
	}
	if raw, _ := os.ReadFile(target); string(raw) != "keep me" {
		t.Errorf("the symlink's target was written: %q", raw)
	}
	out := filepath.Join(dir, "out.jsonl")
	for range 2 { // a new file, then a regular one replaced
		run(t, data, "export", "-o", out)
		if raw, _ := os.ReadFile(out); !strings.Contains(string(raw), "A note to export.") {
			t.Fatalf("export -o a regular file wrote %q", raw)
		}
	}
}

//go:build linux

package embedded_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// A text index that cannot be written to disk (a full disk; here a file
// size limit, which Linux applies as it does a full disk, EFBIG) ends the
// wait for it at once, saying so, where it waited two minutes for
// bleve's persister, which retries without end, then blamed the clock (a
// fault-injection review). It runs in a child process: the limit is the
// process's.
func TestTextIndexDiskFull(t *testing.T) {
	if os.Getenv("AGENTMEM_TEST_TEXT_FULL") == "" {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestTextIndexDiskFull$", "-test.v")
		cmd.Env = append(os.Environ(), "AGENTMEM_TEST_TEXT_FULL="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the child failed: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "--- PASS: TestTextIndexDiskFull") {
			t.Fatalf("the child did not pass:\n%s", out)
		}
		return
	}
	dir := os.Getenv("AGENTMEM_TEST_TEXT_FULL")
	var log bytes.Buffer
	st, err := embedded.Open(context.Background(), dir, embedded.Options{NoSync: true, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for s := range 40 {
		var ms []memory.Memory
		for n := range 50 {
			ms = append(ms, mem(s, n))
		}
		if err := st.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := searchAll(st); err != nil || n != 2000 {
		t.Fatalf("search before the limit: %d, %v", n, err)
	}
	// bleve writes its segments from here on: none may grow past 4 KB
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
		t.Skipf("no file size limit here: %v", err)
	}
	st.Close()
	got := log.String()
	if !strings.Contains(got, "the disk is full: the text index "+filepath.Join(dir, "text")) || !strings.Contains(got, "file too large") {
		t.Errorf("closing with the text index unwritable logged:\n%s", got)
	}
}

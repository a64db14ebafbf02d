//go:build unix

package embedded_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// A full disk ends in a clear error, never in silent loss: a child process
// whose files may not grow past a limit (RLIMIT_FSIZE; the Go runtime
// ignores SIGXFSZ, so writes fail with EFBIG) writes sessions until the
// store refuses; every session it acknowledged is then whole, none is
// half-stored, and the store opens and checks clean without the limit.
func TestFullDisk(t *testing.T) {
	if dir := os.Getenv("AGENTMEM_FULLDISK_DIR"); dir != "" {
		fullDiskChild(dir)
		return
	}
	dir := t.TempDir()
	// the limit comes after the store exists, so that it is the writes
	// that meet it
	openStore(t, dir, nil).Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDisk$")
	cmd.Env = append(os.Environ(), "AGENTMEM_FULLDISK_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	acked := map[int]bool{}
	var refusals []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ok "):
			n, _ := strconv.Atoi(strings.TrimPrefix(line, "ok "))
			acked[n] = true
		case strings.HasPrefix(line, "err "):
			refusals = append(refusals, strings.TrimPrefix(line, "err "))
		case strings.HasPrefix(line, "skip "):
			t.Skip(strings.TrimPrefix(line, "skip "))
		}
	}
	t.Logf("%d sessions acknowledged before the limit; refusals: %q", len(acked), refusals)
	if len(acked) == 0 || len(refusals) == 0 {
		t.Fatalf("want some writes acknowledged and then refused:\n%s", out)
	}
	for _, r := range refusals {
		if !strings.Contains(r, "the disk is full") || !strings.Contains(r, "memories.db") || !strings.Contains(r, "nothing of this write was stored") {
			t.Errorf("unclear refusal: %s", r)
		}
	}
	// a store opened where its record file may not grow: Open writes (it
	// trims the journal), and says so once, not once for each guard
	cmd = exec.Command(os.Args[0], "-test.run=^TestFullDisk$")
	cmd.Env = append(os.Environ(), "AGENTMEM_FULLDISK_DIR="+dir, "AGENTMEM_FULLDISK_OPEN=1")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if r := string(out); !strings.HasPrefix(r, "err ") || strings.Count(r, "the disk is full") != 1 {
		t.Errorf("Open under the limit: want its refusal, saying the disk is full once: %s", r)
	}
	st := openStore(t, dir, nil)
	ctx := context.Background()
	for s := range len(acked) + len(refusals) {
		ms, err := st.Session(ctx, "default", fmt.Sprintf("s%d", s))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case acked[s] && len(ms) != 10:
			t.Errorf("acknowledged session s%d has %d of 10 turns", s, len(ms))
		case len(ms) != 0 && len(ms) != 10:
			t.Errorf("session s%d was half-stored: %d turns", s, len(ms))
		}
	}
	if n := found(t, st); n != 10*len(acked) {
		t.Errorf("BM25 finds %d memories, want %d", n, 10*len(acked))
	}
	st.Close()
	r, err := embedded.Check(ctx, dir)
	if err != nil || !r.OK() {
		t.Fatalf("check after the full disk: %v %+v", err, r)
	}
}

// fullDiskChild writes 10-turn sessions of about 20 KB under a 1 MiB file
// size limit, printing "ok N" per acknowledged session and "err …" per
// refusal, and stops after three refusals.
func fullDiskChild(dir string) {
	lim := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if os.Getenv("AGENTMEM_FULLDISK_OPEN") != "" {
		lim = syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err == nil && old.Max < lim.Max {
		lim.Max = old.Max
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("skip this platform does not let a process limit its file size:", err)
		return
	}
	ctx := context.Background()
	st, err := embedded.Open(ctx, dir, embedded.Options{})
	if err != nil {
		fmt.Println("err", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	if os.Getenv("AGENTMEM_FULLDISK_OPEN") != "" {
		fmt.Println("opened")
		st.Close()
		return
	}
	refused := 0
	for s := 0; refused < 3 && s < 10000; s++ {
		var ms []memory.Memory
		for n := range 10 {
			m := mem(s, n)
			m.Text += strings.Repeat(" filler", 300)
			ms = append(ms, m)
		}
		if err := st.Put(ctx, ms); err != nil {
			fmt.Println("err", strings.ReplaceAll(err.Error(), "\n", " "))
			refused++
			continue
		}
		fmt.Println("ok", s)
	}
	st.Close()
}

//go:build unix

package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agentmem/tools/client"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// buildBinary builds agentmem into the test's own temporary directory,
// which the test removes.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentmem")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type agent struct {
	*proc
	t    *testing.T
	logs *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveProc starts `agentmem serve` on dataDir as an agent would, and
// initializes its MCP session (a protocol version with sessions).
func serveProc(t *testing.T, bin, dataDir, name string) agent {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data-dir", dataDir, "--embedder", "none", "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC", "--log-level", "info")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	c, err := client.Command(context.Background(), cmd, client.WithName(name), client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	go io.Copy(logs, c.Stderr)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log of %s:\n%s", name, logs)
		}
	})
	return agent{proc: &proc{c: c, cmd: cmd}, t: t, logs: logs}
}

func (a agent) recalls(query, want string) {
	a.t.Helper()
	got, err := a.call("recall", map[string]any{"query": query, "k": 3})
	if err != nil {
		a.t.Errorf("recall %q: %v", query, err)
	} else if !strings.Contains(got, want) {
		a.t.Errorf("recall %q = %q, want %q in it", query, got, want)
	}
}

// The binary, built once for these tests, in a directory the test removes.
func TestServeProcesses(t *testing.T) {
	bin := buildBinary(t)
	t.Run("RelaysSurviveHolderKill", func(t *testing.T) { relaysSurviveHolderKill(t, bin) })
	t.Run("HTTPSIGTERM", func(t *testing.T) { httpSIGTERM(t, bin) })
}

// Three agents share one data dir: the first holds the store, the other
// two relay to it. The holder is killed with SIGKILL: one relay takes the
// store over, the other reconnects to it, and both agents go on in the
// same MCP session, with what was remembered before.
func relaysSurviveHolderKill(t *testing.T, bin string) {
	dir := t.TempDir()
	holder := serveProc(t, bin, dir, "holder")
	r1 := serveProc(t, bin, dir, "relay-1")
	r2 := serveProc(t, bin, dir, "relay-2")
	defer r1.c.Close()
	defer r2.c.Close()
	holder.must(t, "remember", map[string]any{"session_id": "s1", "session_date": "2023-05-07",
		"messages": turns("My locker code is 4417.")})
	r1.recalls("locker code", "4417")

	holder.kill()
	killed := time.Now()

	r1.recalls("locker code", "4417")
	t.Logf("first call after the kill answered in %s (takeover included)", time.Since(killed).Round(time.Millisecond))
	r2.must(t, "remember", map[string]any{"session_id": "s2", "session_date": "2023-05-08",
		"messages": turns("The spare key is under the blue flowerpot.")})
	r1.recalls("where is the spare key", "blue flowerpot")
	r2.recalls("locker code", "4417")
	if today, err := r2.call("today", nil); err != nil || !strings.Contains(today, "1 June 2023") {
		t.Errorf("today through the relay = %q, %v", today, err)
	}
	// one of the relays holds the data dir now
	b, _ := os.ReadFile(filepath.Join(dir, "agentmem.lock"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid != r1.cmd.Process.Pid && pid != r2.cmd.Process.Pid {
		t.Errorf("the lock names process %d, neither relay (%d, %d)", pid, r1.cmd.Process.Pid, r2.cmd.Process.Pid)
	}
	// the relays end cleanly when their agents close stdin (Close waits
	// for the process, and would kill it if it lingered)
	for _, a := range []agent{r2, r1} {
		err := a.c.Close()
		if st := a.cmd.ProcessState; err != nil || st == nil || st.ExitCode() != 0 {
			t.Errorf("relay exit: %v, %v; its log:\n%s", err, st, a.logs)
		}
	}
}

// waitExit waits for cmd to end and returns its failure, if any.
func waitExit(cmd *exec.Cmd, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		return fmt.Errorf("still running after %s", limit)
	}
}

// SIGTERM with an HTTP client connected (listening stream open): the
// server stops at once and exits 0.
func httpSIGTERM(t *testing.T, bin string) {
	cmd := exec.Command(bin, "--data-dir", t.TempDir(), "--embedder", "none", "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		if m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatal("the server never said where it listens")
	}
	logs := &syncBuffer{}
	go io.Copy(logs, stderr)
	c, err := client.HTTP(context.Background(), url, nil, client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION), client.WithHTTP(transport.WithContinuousListening()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.Today(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(cmd, 20*time.Second); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, logs.String())
	}
	t.Logf("exited %s after SIGTERM", time.Since(start).Round(time.Millisecond))
}

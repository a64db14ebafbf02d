//go:build unix

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/tools/client"
)

// slowEmbeddings is an OpenAI-compatible embeddings endpoint that holds
// every request until released: while it holds the embedder's start-up
// probe, the server's memory is loading, for as long as the test likes.
type slowEmbeddings struct {
	*httptest.Server
	release chan struct{}
	once    sync.Once
}

func newSlowEmbeddings(t *testing.T) *slowEmbeddings {
	s := &slowEmbeddings{release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: "slow"}
		for i, text := range req.Input {
			v := make([]float32, 8)
			v[len(text)%8] = 1
			out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(func() { s.open(); s.Close() })
	return s
}

func (s *slowEmbeddings) open() { s.once.Do(func() { close(s.release) }) }

// startServe starts `agentmem serve` with args and returns the client once
// its initialize is answered, or fails if that takes longer than limit.
func startServe(t *testing.T, limit time.Duration, name string, args ...string) agent {
	t.Helper()
	a, err := tryServe(t, limit, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// tryServe is startServe returning its failure (for other goroutines).
func tryServe(t *testing.T, limit time.Duration, name string, args ...string) (agent, error) {
	cmd := exec.Command(binary(t), append([]string{"serve", "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC", "--log-level", "debug"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	type started struct {
		c   *client.Client
		err error
	}
	done := make(chan started, 1)
	go func() {
		c, err := client.Command(context.Background(), cmd, client.WithName(name), client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
		done <- started{c, err}
	}()
	select {
	case s := <-done:
		if s.err != nil {
			return agent{}, s.err
		}
		logs := &syncBuffer{}
		go io.Copy(logs, s.c.Stderr)
		t.Cleanup(func() {
			s.c.Close()
			if t.Failed() {
				t.Logf("log of %s:\n%s", name, logs)
			}
		})
		return agent{proc: &proc{c: s.c, cmd: cmd}, t: t, logs: logs}, nil
	case <-time.After(limit):
		cmd.Process.Kill()
		return agent{}, fmt.Errorf("%s: initialize not answered after %s", name, limit)
	}
}

// The server answers initialize and tools/list while its memory is still
// loading (here the embedder's start-up probe is held); a call made then
// waits, and succeeds once the memory is there; a second agentmem started
// meanwhile relays to this one once it serves.
func TestServeAnswersWhileLoading(t *testing.T) {
	emb := newSlowEmbeddings(t)
	dir := t.TempDir()
	args := []string{"--data-dir", dir, "--embedder", "openai", "--openai-base-url", emb.URL + "/v1", "--openai-api-key", "test", "--openai-model", "slow"}
	a := startServe(t, 20*time.Second, "early", args...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tools, err := a.c.Tools(ctx)
	if err != nil || len(tools) != 4 {
		t.Fatalf("tools/list while loading: %d tools, %v", len(tools), err)
	}
	remembered := make(chan error, 1)
	go func() {
		_, err := a.call("remember", map[string]any{"session_id": "s1", "session_date": "2023-05-07", "messages": turns("My locker code is 4417.")})
		remembered <- err
	}()
	select {
	case err := <-remembered:
		t.Fatalf("remember answered before the memory was loaded: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	// a second agent while the first is loading: it waits for the holder's socket
	type second struct {
		a   agent
		err error
	}
	relayed := make(chan second, 1)
	go func() {
		a, err := tryServe(t, 20*time.Second, "second", args...)
		relayed <- second{a, err}
	}()
	time.Sleep(100 * time.Millisecond)
	emb.open()
	if err := recv(t, remembered, "remember's answer"); err != nil {
		t.Fatalf("remember made while loading: %v", err)
	}
	a.recalls("locker code", "4417")
	sec := recv(t, relayed, "the second agent")
	if sec.err != nil {
		t.Fatal(sec.err)
	}
	r := sec.a
	r.recalls("locker code", "4417")
	// its log comes through a pipe copied by another goroutine: give the
	// line it wrote before relaying a moment to arrive
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(r.logs.String(), "relaying") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(r.logs.String(), "relaying") {
		t.Errorf("the second agent did not relay to the first")
	}
}

// A memory that cannot be loaded (its store is corrupt): initialize and
// tools/list are still answered, every call gets an error naming what
// failed, the server keeps running, and the lock is released, so another
// agentmem process says why at once instead of waiting for this one.
func TestServeLoadFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "store"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "store", "memories.db"), []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startServe(t, 20*time.Second, "agent", "--data-dir", dir, "--embedder", "none")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if tools, err := a.c.Tools(ctx); err != nil || len(tools) != 4 {
		t.Fatalf("tools/list: %d tools, %v", len(tools), err)
	}
	for _, tool := range []string{"recall", "today", "recall"} {
		args := map[string]any{}
		if tool == "recall" {
			args["query"] = "locker code"
		}
		_, err := a.call(tool, args)
		t.Logf("%s: %v", tool, err)
		if err == nil || !strings.Contains(err.Error(), "could not open its memory") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s on a corrupt store: %v, want an error naming the data dir and what failed", tool, err)
		}
	}
	if a.cmd.ProcessState != nil {
		t.Errorf("the server exited: %v", a.cmd.ProcessState)
	}
	cli := exec.Command(binary(t), "recall", "--data-dir", dir, "--embedder", "none", "locker code")
	start := time.Now()
	out, err := cli.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "memories.db") || time.Since(start) > 10*time.Second {
		t.Errorf("another process on the corrupt store: %v after %s: %s", err, time.Since(start).Round(time.Millisecond), out)
	}
}

// recv waits for a value, failing the test instead of hanging it.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s after 30 s", what)
		panic("unreachable")
	}
}

// BenchmarkServeStart spawns `agentmem serve` (the built-in model, a
// fresh data dir each time) as a host does and times its initialize
// response and its first tool call's answer (today, which waits for the
// store and the model), beside `agentmem version` spawned in the same
// iteration: the process floor. Medians over the iterations:
//
//	go test ./cmd/agentmem -run '^$' -bench ServeStart -benchtime 9x
//
// AGENTMEM_BENCH_REF=BINARY also times another agentmem (an older build)
// in the same iterations, alternating with this one: ref-init-ms and
// ref-first-call-ms.
func BenchmarkServeStart(b *testing.B) {
	bin := binary(b)
	ref := os.Getenv("AGENTMEM_BENCH_REF")
	var inits, calls, floors, refInits, refCalls []time.Duration
	for b.Loop() {
		if ref != "" {
			init, call, err := timeServe(ref, b.TempDir())
			if err != nil {
				b.Fatalf("reference %s: %v", ref, err)
			}
			refInits, refCalls = append(refInits, init), append(refCalls, call)
		}
		start := time.Now()
		if out, err := exec.Command(bin, "version").Output(); err != nil {
			b.Fatalf("agentmem version: %v %s", err, out)
		}
		floors = append(floors, time.Since(start))
		init, call, err := timeServe(bin, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		inits, calls = append(inits, init), append(calls, call)
	}
	b.ReportMetric(ms(median(inits)), "init-ms")
	b.ReportMetric(ms(median(calls)), "first-call-ms")
	b.ReportMetric(ms(median(floors)), "version-ms")
	if ref != "" {
		b.ReportMetric(ms(median(refInits)), "ref-init-ms")
		b.ReportMetric(ms(median(refCalls)), "ref-first-call-ms")
	}
}

// timeServe starts `agentmem serve` on dir and returns the time to its
// initialize response and to its first tool call's answer.
func timeServe(bin, dir string) (init, call time.Duration, err error) {
	cmd := exec.Command(bin, "serve", "--data-dir", dir, "--log-level", "warn")
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer cmd.Wait()
	defer in.Close()
	r := bufio.NewReader(out)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		return 0, 0, fmt.Errorf("initialize: %q, %v", line, err)
	}
	init = time.Since(start)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"today","arguments":{}}}`+"\n")
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "Today is") {
		return 0, 0, fmt.Errorf("today: %q, %v", line, err)
	}
	return init, time.Since(start), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Run by a host (stdin a pipe), serve writes nothing on stderr as it
// starts and answers: a host shows each line of its server's stderr as an
// error (Claude Code's --debug). At a terminal it says it serves.
func TestServeQuietUnderAHost(t *testing.T) {
	cmd := exec.Command(binary(t), "serve", "--data-dir", t.TempDir(), "--embedder", "none")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, stdout := started(t, cmd)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after stdin closed: %v (stderr %q)", err, stderr)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("serve under a host wrote to stderr:\n%s", s)
	}
}

// started starts cmd with pipes to its stdin and from its stdout.
func started(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

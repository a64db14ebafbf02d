package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/tools/client"
)

// These tests build the real binary and drive it over stdio with the typed
// MCP client, as Claude Code or Claude Desktop would. The binary is built
// once into a temporary directory that TestMain removes.

var (
	buildOnce sync.Once
	binPath   string
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "agentmem-e2e")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "agentmem")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type proc struct {
	c   *client.Client
	cmd *exec.Cmd
}

func start(t *testing.T, dataDir string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--data-dir", dataDir, "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	c, err := client.Command(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	return &proc{c: c, cmd: cmd}
}

func (p *proc) kill() {
	p.cmd.Process.Kill() // SIGKILL: no flush, no close
	p.cmd.Wait()
	p.c.Close()
}

func (p *proc) call(tool string, args map[string]any) (string, error) {
	text, _, err := p.c.Call(context.Background(), tool, args)
	return text, err
}

func (p *proc) must(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	s, err := p.call(tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func turns(texts ...string) []any {
	out := make([]any, len(texts))
	for i, s := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = map[string]any{"role": role, "content": s}
	}
	return out
}

func TestStdioRememberRecallRestart(t *testing.T) {
	dir := t.TempDir()
	p := start(t, dir)
	p.must(t, "remember", map[string]any{"session_id": "s-may", "session_date": "1:56 pm on 8 May, 2023",
		"messages": turns("Yesterday I adopted a greyhound called Pixel.", "What a lovely name!")})
	p.must(t, "remember", map[string]any{"session_id": "s-june", "session_date": "2023/05/30 (Tue) 23:40",
		"messages": turns("Pixel learned to sit today.", "Good dog.")})
	check := func(p *proc) {
		t.Helper()
		got := p.must(t, "recall", map[string]any{"query": "When did I adopt the greyhound?", "k": 2})
		// after today's date, the two turns of s-may in one passage, the best first
		if !strings.HasPrefix(got, "Today is Thursday, 1 June 2023 (2023-06-01), 10:00 UTC.\n\n[2023-05-08 Mon · session s-may]\nuser: Yesterday [2023-05-07] I adopted a greyhound called Pixel.\nassistant: What a lovely name!") {
			t.Errorf("recall = %q", got)
		}
		if today := p.must(t, "today", nil); today != "Today is Thursday, 1 June 2023 (2023-06-01), 10:00 UTC." {
			t.Errorf("today = %q", today)
		}
	}
	check(p)

	// kill -9 right after the acknowledgement: the index batch was never
	// flushed, so the restart must replay the journal.
	p.must(t, "remember", map[string]any{"session_id": "s-july", "session_date": "2023-07-01",
		"messages": turns("We moved to Lisbon with Pixel.")})
	p.kill()
	p = start(t, dir)
	check(p)
	if got := p.must(t, "recall", map[string]any{"query": "Lisbon", "k": 1}); !strings.Contains(got, "We moved to Lisbon") {
		t.Errorf("acknowledged remember lost after kill -9: %q", got)
	}
	p.c.Close()
	p.cmd.Wait()

	p = start(t, dir)
	defer p.c.Close()
	check(p)
}

// A server killed in the middle of a stream of writes keeps every
// acknowledged session whole, and no session half-stored.
func TestStdioKillDuringWrites(t *testing.T) {
	dir := t.TempDir()
	p := start(t, dir)
	const turnsPer = 40
	acked := make(chan int, 1000)
	go func() {
		defer close(acked)
		for s := 0; ; s++ {
			var texts []string
			for i := range turnsPer {
				texts = append(texts, fmt.Sprintf("kiwi session %d turn %d", s, i))
			}
			if _, err := p.call("remember", map[string]any{"session_id": fmt.Sprintf("s%d", s), "session_date": "2023-05-07", "messages": turns(texts...)}); err != nil {
				return
			}
			acked <- s
		}
	}()
	var last = -1
	deadline := time.After(3 * time.Second)
wait:
	for {
		select {
		case s, ok := <-acked:
			if !ok {
				break wait
			}
			last = s
			if s >= 30 {
				break wait
			}
		case <-deadline:
			break wait
		}
	}
	p.kill()
	for s := range acked {
		last = s
	}
	if last < 0 {
		t.Fatal("no write was acknowledged before the kill")
	}
	p = start(t, dir)
	defer p.c.Close()
	for s := 0; s <= last+1; s++ {
		got := p.must(t, "recall", map[string]any{"query": "kiwi", "session_id": fmt.Sprintf("s%d", s), "k": 100, "fusion": "text"})
		n := strings.Count(got, fmt.Sprintf("kiwi session %d turn ", s))
		switch {
		case s <= last && n != turnsPer:
			t.Errorf("acknowledged session s%d has %d of %d turns", s, n, turnsPer)
		case s > last && n != 0 && n != turnsPer:
			t.Errorf("session s%d was half-stored: %d of %d turns", s, n, turnsPer)
		}
	}
}

// A second server on the same data dir (two agents on one machine) relays
// to the first one instead of failing, and both see one memory.
func TestStdioSecondServerShares(t *testing.T) {
	dir := t.TempDir()
	first := start(t, dir)
	defer first.c.Close()
	second := start(t, dir)
	defer second.c.Close()
	second.must(t, "remember", map[string]any{"session_id": "shared", "session_date": "2023-05-07",
		"messages": turns("My locker code is 4417.")})
	if got := first.must(t, "recall", map[string]any{"query": "locker code", "k": 1}); !strings.Contains(got, "4417") {
		t.Errorf("first server recall = %q", got)
	}
	out, err := exec.Command(binary(t), "--data-dir", dir, "recall", "locker").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "My locker code is 4417.") {
		t.Errorf("shell recall while a server runs: %v\n%s", err, out)
	}
}

// Changing the embedder: the store says so and names reindex; reindex
// re-embeds in place, and vector recall then works.
func TestReindexAfterEmbedderChange(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(binary(t), append([]string{"--data-dir", dir}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := run("--embedder", "none", "remember", "--session-id", "s1", "My daughter started learning the violin at school."); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	out, err := run("recall", "violin")
	if err == nil || !strings.Contains(out, "agentmem reindex") {
		t.Fatalf("recall with another embedder: %v\n%s", err, out)
	}
	if out, err := run("reindex"); err != nil || !strings.Contains(out, "Reindexed with builtin:use-lite-en") || !strings.Contains(out, "rebuilt the text index: documents 1/1") { // one memory, one document
		t.Fatalf("reindex (vectors and text): %v\n%s", err, out)
	}
	if out, err := run("reindex", "--text"); err != nil || !strings.Contains(out, "Rebuilt the text index") || strings.Contains(out, "Reindexed with") {
		t.Fatalf("reindex --text: %v\n%s", err, out)
	}
	out, err = run("--fusion", "vector", "recall", "-k", "1", "Which musical instrument is my kid studying?")
	if err != nil || !strings.Contains(out, "violin") {
		t.Fatalf("vector recall after reindex: %v\n%s", err, out)
	}
}

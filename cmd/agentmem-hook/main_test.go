package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"agentmem/evals/host"
)

// agentmem-hook as a host runs it: a process per event, beside agentmem
// (the fallback) or alone, with and without a server running.

var bins string // the directory of the binaries built for the tests

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentmem-hook-test")
	if err != nil {
		panic(err)
	}
	bins = dir
	for _, pkg := range []string{"agentmem/cmd/agentmem", "agentmem/cmd/agentmem-hook"} {
		out, err := exec.Command("go", "build", "-o", dir, pkg).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}

	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The binaries TestMain builds are not part of this test binary: their
// sources key go test's cache, stated here since what TestMain reads
// before the tests run is not recorded.
func TestBuiltFromTheirSources(t *testing.T) {
	if err := host.WatchSources("agentmem/cmd/agentmem", "agentmem/cmd/agentmem-hook"); err != nil {
		t.Fatal(err)
	}
}

// alone is a copy of agentmem-hook in a directory without agentmem.
func alone(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bins, "agentmem-hook"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "agentmem-hook")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

var flags = []string{"--embedder", "none", "--timezone", "UTC", "--now", "2026-12-01T10:00:00Z"}

// run runs bin with the data dir, flags and args, stdin in, and no
// agentmem on the PATH; it fails on an exit status other than 0.
func run(t *testing.T, bin, data, in string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"--data-dir", data}, flags...), args...)...)
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	cmd.Stdin = strings.NewReader(in)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, errs.String())
	}
	return out.String(), errs.String()
}

// serve runs agentmem serve on data until the test ends.
func serve(t *testing.T, data string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "agentmem"), append(append([]string{"--data-dir", data}, flags...), "serve")...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(data, "run", "agentmem.sock")); err == nil {
			return
		}
		if time.Since(start) > time.Minute {
			t.Fatal("agentmem serve did not open its socket within a minute")
		}
	}
}

// exchange appends one prompt and its answer to a Claude Code transcript.
func exchange(t *testing.T, path string, n int, prompt, answer string) {
	t.Helper()
	ts := time.Date(2026, 11, 20, 10, 0, n, 0, time.UTC).Format(time.RFC3339Nano)
	lines := fmt.Sprintf(`{"type":"user","uuid":"u-%d","sessionId":"s1","timestamp":%q,"message":{"role":"user","content":%q}}`+"\n"+
		`{"type":"assistant","uuid":"a-%d","sessionId":"s1","timestamp":%q,"message":{"id":"m-%d","role":"assistant","content":[{"type":"text","text":%q}]}}`+"\n",
		n, ts, prompt, n, ts, n, answer)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
}

func event(name, path, prompt string) string {
	return fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"cwd":"/home/sam/garden","hook_event_name":%q,"prompt":%q}`, path, name, prompt)
}

// show is the session as agentmem prints it.
func show(t *testing.T, data string) string {
	t.Helper()
	out, _ := run(t, filepath.Join(bins, "agentmem"), data, "", "show", "s1")
	return out
}

// SessionStart needs no memory and no agentmem: the lean binary alone
// gives the model the date.
func TestSessionStartAlone(t *testing.T) {
	out, errs := run(t, alone(t), t.TempDir(), event("SessionStart", "", ""), "hook", "claude-code")
	if !strings.Contains(out, "Today is Tuesday, 1 December 2026") || errs != "" {
		t.Errorf("SessionStart printed %q, stderr %q", out, errs)
	}
}

// With no server, capture and recall run agentmem beside the lean binary
// (which holds the store for the call); with a server, they go through
// its socket, even with no agentmem anywhere to fall back on.
func TestCaptureAndRecall(t *testing.T) {
	data, lean := t.TempDir(), filepath.Join(bins, "agentmem-hook")
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	exchange(t, path, 1, "My sister Ana moved to Lisbon.", "Noted: Lisbon.")
	if _, errs := run(t, lean, data, event("Stop", path, ""), "hook", "claude-code"); errs != "" {
		t.Fatalf("Stop without a server: %s", errs)
	}
	if got := show(t, data); !strings.Contains(got, "Ana moved to Lisbon") || !strings.Contains(got, "Noted: Lisbon.") {
		t.Fatalf("after Stop without a server, the session is %q", got)
	}
	if _, errs := run(t, alone(t), data, event("Stop", path, ""), "hook", "claude-code"); !strings.Contains(errs, "no agentmem binary") {
		t.Errorf("with neither a server nor agentmem, stderr %q: want the reason", errs)
	}

	serve(t, data)
	exchange(t, path, 2, "The garden needs tulips in October.", "October: tulips.")
	if _, errs := run(t, alone(t), data, event("Stop", path, ""), "hook", "claude-code"); errs != "" {
		t.Fatalf("Stop through the server: %s", errs)
	}
	got := show(t, data)
	if n := strings.Count(got, "Ana moved to Lisbon"); n != 1 || !strings.Contains(got, "tulips in October") {
		t.Errorf("after Stop through the server, the session is %q: want each turn once", got)
	}
	// a prompt of a later session (a session's own turns are not
	// recalled for it: its model has them)
	later := strings.Replace(event("UserPromptSubmit", path, "Where does my sister Ana live?"), `"session_id":"s1"`, `"session_id":"s2"`, 1)
	out, errs := run(t, alone(t), data, later, "hook", "claude-code", "--auto-recall")
	if !strings.Contains(out, "Lisbon") || !strings.Contains(out, "UserPromptSubmit") || errs != "" {
		t.Errorf("UserPromptSubmit through the server printed %q, stderr %q", out, errs)
	}
}

// A flag the lean binary does not know is agentmem's: it runs agentmem
// with the same command line, which knows it.
func TestUnknownFlagFallsBack(t *testing.T) {
	data, lean := t.TempDir(), filepath.Join(bins, "agentmem-hook")
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	exchange(t, path, 1, "Buy bulbs.", "Bulbs.")
	if _, errs := run(t, lean, data, event("Stop", path, ""), "--fusion", "text", "hook", "claude-code"); errs != "" {
		t.Fatalf("Stop with --fusion: %s", errs)
	}
	if got := show(t, data); !strings.Contains(got, "Buy bulbs.") {
		t.Errorf("the session is %q", got)
	}
	if _, errs := run(t, alone(t), data, event("Stop", path, ""), "--no-such-flag", "hook", "claude-code"); !strings.Contains(errs, "no agentmem binary") {
		t.Errorf("an unknown flag and no agentmem: stderr %q", errs)
	}
}

// The embedder's and the reranker's flags that setup carries are taken
// by the lean binary itself (passed on to agentmem when it runs the hook),
// not a reason to start agentmem on every event.
func TestCarriedFlagsParse(t *testing.T) {
	var c cli
	parser, err := kong.New(&c)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--embedder", "openai", "--openai-base-url", "http://localhost:11434/v1", "--openai-model", "m", "--openai-dims", "256",
		"--reranker-url", "http://localhost:8080/v1/rerank", "--reranker-model", "bge", "--reranker-api", "tei",
		"--reranker-timeout", "3s", "--reranker-candidates", "30", "hook", "claude-code"}
	if _, err := parser.Parse(args); err != nil {
		t.Errorf("%v: %v", args, err)
	}
	if c.RerankerURL != "http://localhost:8080/v1/rerank" {
		t.Errorf("reranker url %q", c.RerankerURL)
	}
}

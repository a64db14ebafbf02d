package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeNodeEnv makes this test binary serve the fake server-memory of
// package peertest, as node would serve the real one (see TestMain).
const fakeNodeEnv = "AGENTMEM_E2E_FAKE_NODE"

// fakeNodeAndNPM writes a node and an npm into a new directory: node runs
// this test binary as the fake peer, npm lays out a package the way npm
// does (prefix/node_modules/<name>/<entry>) without fetching anything.
func fakeNodeAndNPM(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake node and npm are shell scripts")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("node", fakeNodeEnv+"=1 exec '"+exe+"' \"$@\"\n")
	// npm itself needs the usual tools (mkdir): it keeps this PATH.
	write("npm", "PATH='"+os.Getenv("PATH")+"'\n"+`
if [ "$1" = "--version" ]; then echo 11.0.0; exit 0; fi
prefix=""; spec=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift;;
    --*) ;;
    install) ;;
    *) spec="$1";;
  esac
  shift
done
name="${spec%@*}"
mkdir -p "$prefix/node_modules/$name/dist" && echo "// $spec" > "$prefix/node_modules/$name/dist/index.js"
`)
	return bin
}

// TestEvalWithPeers runs the command a user runs to compare agentmem with
// a peer, with a fake node and npm (no Node.js needed): the peer is
// installed into the given cache, asked the same questions, and compare.md
// has both servers; a bad --peers is refused before anything runs.
func TestEvalWithPeers(t *testing.T) {
	bin := fakeNodeAndNPM(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cache := filepath.Join(dir, "cache")
	eval := func(path string, args ...string) (string, string, error) {
		cmd := exec.Command(binary(t, "agentmem-eval"), append([]string{"--data-dir", filepath.Join(dir, "data"), "--timezone", "UTC", "--log-level", "warn",
			"locomo", filepath.Join("..", "..", "evals", "testdata", "locomo_mini.json"), "--quiet", "--workers", "2",
			"--peer-cache", cache, "--out", out}, args...)...)
		// Only the fake node and npm are on PATH: a real Node.js is never used.
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "PATH="+path)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}

	stdout, stderr, err := eval(bin, "--peers", "server-memory")
	if err != nil {
		t.Fatalf("eval --peers: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "compared on 7 questions, k = 10") || !strings.Contains(stdout, "server-memory") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(cache, "modelcontextprotocol+server-memory@2026.8.31", ".agentmem-installed")); err != nil {
		t.Errorf("the peer was not installed into --peer-cache: %v", err)
	}
	report, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| agentmem | 7 |", "| server-memory | 7 |", "@modelcontextprotocol/server-memory@2026.8.31 (Node.js 22, stdio)", "| 0 | 0 | 0 | 0 | 0 |\n"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, report)
		}
	}
	for _, f := range []string{"report.md", "compare.json", "compare.svg", filepath.Join("peers", "server-memory", "ingest.jsonl")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	results, err := os.Open(filepath.Join(out, "peers", "server-memory", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer results.Close()
	n := 0
	for sc := bufio.NewScanner(results); sc.Scan(); n++ {
		if strings.Contains(sc.Text(), `"failure_kind"`) {
			t.Errorf("a question failed: %s", sc.Text())
		}
	}
	if n != 7 {
		t.Errorf("the peer has %d results, want 7", n)
	}

	for _, c := range []struct {
		path string
		args []string
		want string
	}{
		{bin, []string{"--peers", "no-such-peer"}, "unknown peer \"no-such-peer\""},
		{bin, []string{"--peers", "server-memory", "--matrix"}, "leave out --matrix"},
		{bin, []string{"--peers", "server-memory", "--granularity", "session"}, "--granularity turn"},
		{t.TempDir(), []string{"--peers", "server-memory"}, "Node.js is needed"},
	} {
		_, stderr, err := eval(c.path, c.args...)
		if err == nil || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: err %v, stderr %q, want %q", c.args, err, stderr, c.want)
		}
	}
}

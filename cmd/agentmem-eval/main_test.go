package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agentmem/evals/host"
	"agentmem/evals/peers/peertest"
)

// These tests build agentmem-eval (and agentmem, whose check reads what
// bench keeps) once into a temporary directory that TestMain removes, and
// run them as a user does.

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeNodeEnv) != "" {
		// This test binary stands in for node running a peer (peers_test.go).
		os.Exit(peertest.Main(os.Args[1:]))
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binary is the path of the built command: "agentmem-eval" or "agentmem".
func binary(t *testing.T, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "agentmem-eval-e2e"); buildErr != nil {
			return
		}
		for _, pkg := range []string{".", "../agentmem"} {
			out, err := exec.Command("go", "build", "-o", buildDir+string(filepath.Separator), pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
		// agentmem is not part of this test binary: its sources key go
		// test's cache
		buildErr = host.WatchSources("agentmem/cmd/agentmem")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, name)
}

// run runs the named binary with args on dataDir and returns stdout,
// failing the test when it fails.
func run(t *testing.T, name, dataDir string, args ...string) string {
	t.Helper()
	out, errOut, err := try(t, name, dataDir, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errOut)
	}
	return out
}

func try(t *testing.T, name, dataDir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary(t, name), append([]string{"--data-dir", dataDir, "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC", "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

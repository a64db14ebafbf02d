package peers

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// script writes an executable shell script.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake node and npm are shell scripts")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeNPM installs a package the way npm lays it out (prefix/node_modules/
// <name>/<entry>) and counts its runs in dir/runs.
func fakeNPM(t *testing.T, dir, version string) string {
	return script(t, dir, "npm", `
if [ "$1" = "--version" ]; then echo `+version+`; exit 0; fi
echo run >> "`+dir+`/runs"
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
}

func TestInstallIsIdempotent(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	in := Installer{
		CacheDir: filepath.Join(t.TempDir(), "cache"),
		Node:     script(t, bin, "node", "echo v20.20.2\n"),
		NPM:      fakeNPM(t, bin, "11.19.1"),
	}
	p := Package{Name: "@scope/mem", Version: "1.2.3", Entry: "dist/index.js", MinNode: 18, AllowScripts: []string{"native-mod"}}
	a, err := in.Install(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(a.Dir, "package.json")); err != nil || !strings.Contains(string(b), `"allowScripts":{"native-mod":true}`) {
		t.Errorf("the prefix's package.json does not allow the native module's scripts: %s %v", b, err)
	}
	if a.Dir != filepath.Join(in.CacheDir, "scope+mem@1.2.3") || a.NodeMajor != 20 || a.Node != in.Node {
		t.Errorf("installation %+v", a)
	}
	if b, err := os.ReadFile(a.Entry); err != nil || !strings.Contains(string(b), "@scope/mem@1.2.3") {
		t.Fatalf("entry %s: %q %v", a.Entry, b, err)
	}
	b, err := in.Install(ctx, p)
	if err != nil || b.Dir != a.Dir || b.Entry != a.Entry || b.Node != a.Node {
		t.Fatalf("second install: %+v %v", b, err)
	}
	runs, _ := os.ReadFile(filepath.Join(bin, "runs"))
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("npm ran %d times for two installs of one package", n)
	}
	left, _ := filepath.Glob(filepath.Join(in.CacheDir, "*.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary folders left: %v", left)
	}
	// A folder without the marker (a crashed install) is installed again.
	if err := os.Remove(filepath.Join(a.Dir, marker)); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(ctx, p); err != nil {
		t.Fatal(err)
	}
	runs, _ = os.ReadFile(filepath.Join(bin, "runs"))
	if n := strings.Count(string(runs), "run"); n != 2 {
		t.Errorf("a broken install was not redone (npm ran %d times)", n)
	}
}

func TestInstallErrors(t *testing.T) {
	ctx := context.Background()
	bin := t.TempDir()
	node20 := script(t, bin, "node", "echo v20.20.2\n")
	p := Package{Name: "mem", Version: "1.0.0", Entry: "index.js", MinNode: 22}
	for _, c := range []struct {
		name string
		in   Installer
		p    Package
		want string
	}{
		{"no node", Installer{Node: filepath.Join(bin, "absent-node")}, p, "Node.js is needed"},
		{"old node", Installer{Node: node20}, p, "needs Node.js 22 or later"},
		{"no npm", Installer{Node: node20, NPM: filepath.Join(bin, "absent-npm")}, Package{Name: "mem", Version: "1.0.0", Entry: "index.js"}, "npm is needed"},
		{"old npm", Installer{Node: node20, NPM: script(t, bin, "npm6", "echo 6.14.0\n")}, Package{Name: "mem", Version: "1.0.0", Entry: "index.js"}, "too old"},
		{"range", Installer{Node: node20}, Package{Name: "mem", Version: "^1.0.0", Entry: "index.js"}, "not an exact version"},
		{"failing npm", Installer{Node: node20, NPM: script(t, bin, "npmfail", "if [ \"$1\" = --version ]; then echo 11.0.0; exit 0; fi\necho 'E404 no such package' >&2; exit 1\n")},
			Package{Name: "mem", Version: "1.0.0", Entry: "index.js"}, "E404 no such package"},
	} {
		c.in.CacheDir = t.TempDir()
		_, err := c.in.Install(ctx, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// npmEnv and allEnv make the tests that install real peers from the npm
// registry run: they are opt-in, since they need Node.js, npm and the
// network, and building a native module takes minutes.
const (
	npmEnv = "AGENTMEM_PEERS_NPM"
	allEnv = "AGENTMEM_PEERS_ALL"
)

// npmReachable skips t unless it was asked for, npm is installed and its
// registry answers.
func npmReachable(t *testing.T) {
	t.Helper()
	if os.Getenv(npmEnv) != "1" && os.Getenv(allEnv) != "1" {
		t.Skipf("installs peers from the npm registry (needs Node.js and npm): set %s=1 to run it with server-memory, %s=1 with every peer", npmEnv, allEnv)
	}
	if testing.Short() {
		t.Skip("installs a package from the npm registry (skipped with -short)")
	}
	for _, prog := range []string{"node", "npm"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not installed: the peers need Node.js and npm", prog)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "ping").CombinedOutput(); err != nil {
		t.Skipf("the npm registry is not reachable (npm ping: %v): %s", err, Tail(string(out), 300))
	}
}

// TestPeersIntegration installs real peers from npm, stores three turns
// and searches them: server-memory with AGENTMEM_PEERS_NPM=1; every peer
// with AGENTMEM_PEERS_ALL=1 (the others build a native module, minutes each).
// AGENTMEM_PEERS_CACHE reuses an install cache instead of a fresh one.
func TestPeersIntegration(t *testing.T) {
	npmReachable(t)
	names := []string{"server-memory"}
	if os.Getenv(allEnv) == "1" {
		names = Names()
	}
	cache := os.Getenv("AGENTMEM_PEERS_CACHE")
	if cache == "" {
		cache = t.TempDir()
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			p, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := Installer{CacheDir: cache, Log: t.Logf}.Install(ctx, p.Package())
			if err != nil {
				t.Fatal(err)
			}
			c, err := Open(ctx, inst, p, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			turns := conversation()[:3]
			if err := p.Store(ctx, c, "conv-1", turns); err != nil {
				t.Fatal(err)
			}
			hits, err := p.Search(ctx, c, "conv-1", "When did Caroline go to the LGBTQ support group?", 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := refsOf(hits); len(got) == 0 || got[0] != "D1:1" || len(got) > 2 {
				t.Fatalf("got %v, want D1:1 first and at most 2 hits", got)
			}
			if !strings.Contains(hits[0].Text, "LGBTQ support group") {
				t.Errorf("hit text %q", hits[0].Text)
			}
			hits, err = p.Search(ctx, c, "conv-1", "What is Melanie painting with her kids?", 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := refsOf(hits); len(got) != 1 || got[0] != "D1:2" {
				t.Errorf("painting question: got %v, want [D1:2]", got)
			}
		})
	}
}

package peers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// MinNPM is the lowest npm major version the installer uses.
const MinNPM = 8

// Installer installs pinned peer packages with npm into a cache folder.
type Installer struct {
	// CacheDir holds one folder per package and version; "" means
	// DefaultCacheDir.
	CacheDir string
	// Node and NPM are the programs to use; "" means "node" and "npm" from
	// PATH. A peer that needs a newer Node than the system's can be given
	// one here (for example the binary of the npm package node@22).
	Node, NPM string
	// Log, when set, receives npm's output while it installs.
	Log func(format string, args ...any)
}

// Installation is an installed peer package.
type Installation struct {
	Package Package
	// Dir is the npm prefix the package is installed in.
	Dir string
	// Node is the absolute path of the node binary that runs it, and
	// NodeMajor its major version.
	Node      string
	NodeMajor int
	// Entry is the absolute path of the server's script.
	Entry string
}

// DefaultCacheDir is <user cache dir>/agentmem-eval/peers.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("peers: no user cache directory (%w); set a cache folder explicitly", err)
	}
	return filepath.Join(d, "agentmem-eval", "peers"), nil
}

// folderName turns "@scope/name" and a version into one path element.
func folderName(p Package) string {
	return strings.ReplaceAll(strings.TrimPrefix(p.Name, "@"), "/", "+") + "@" + p.Version
}

// marker is written last by a complete install; its content names the
// package, so a folder left by a crashed install is never taken for one.
const marker = ".agentmem-installed"

var exactVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// Install installs p if it is not in the cache yet and returns where it is.
// It is idempotent and safe against a concurrent Install of the same
// package: npm works in a temporary folder that is renamed into place.
func (in Installer) Install(ctx context.Context, p Package) (Installation, error) {
	if p.Name == "" {
		return Installation{}, errors.New("peers: package name is empty")
	}
	if !exactVersion.MatchString(p.Version) {
		return Installation{}, fmt.Errorf("peers: %s: version %q is not an exact version (x.y.z); peers are pinned", p.Name, p.Version)
	}
	node, major, err := in.node(ctx, p)
	if err != nil {
		return Installation{}, err
	}
	cache := in.CacheDir
	if cache == "" {
		if cache, err = DefaultCacheDir(); err != nil {
			return Installation{}, err
		}
	}
	dir := filepath.Join(cache, folderName(p))
	entry := func(prefix string) string {
		return filepath.Join(prefix, "node_modules", filepath.FromSlash(p.Name), filepath.FromSlash(p.Entry))
	}
	inst := Installation{Package: p, Dir: dir, Node: node, NodeMajor: major, Entry: entry(dir)}
	if installed(inst) {
		return inst, nil
	}
	npm, err := in.npm(ctx)
	if err != nil {
		return Installation{}, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Installation{}, fmt.Errorf("peers: cache folder: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, folderName(p)+".tmp-")
	if err != nil {
		return Installation{}, fmt.Errorf("peers: cache folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	spec := p.Name + "@" + p.Version
	if err := writeManifest(tmp, p); err != nil {
		return Installation{}, err
	}
	if err := in.npmInstall(ctx, npm, node, tmp, dir, spec); err != nil {
		return Installation{}, err
	}
	if _, err := os.Stat(entry(tmp)); err != nil {
		return Installation{}, fmt.Errorf("peers: %s installed, but its entry %s is missing: %w", spec, p.Entry, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), []byte(spec+"\n"), 0o644); err != nil {
		return Installation{}, fmt.Errorf("peers: %w", err)
	}
	return moveIntoPlace(tmp, inst)
}

// writeManifest writes the package.json npm installs p under in tmp,
// allowing the install scripts of p.AllowScripts.
func writeManifest(tmp string, p Package) error {
	manifest := map[string]any{"name": "agentmem-peer", "private": true}
	if len(p.AllowScripts) > 0 {
		allow := map[string]bool{}
		for _, name := range p.AllowScripts {
			allow[name] = true
		}
		manifest["allowScripts"] = allow
	}
	b, _ := json.Marshal(manifest)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), b, 0o644); err != nil {
		return fmt.Errorf("peers: %w", err)
	}
	return nil
}

// npmInstall runs npm install of spec into tmp, with node first on the
// PATH, logging (when in.Log is set) that it installs into dir, and what
// npm said.
func (in Installer) npmInstall(ctx context.Context, npm, node, tmp, dir, spec string) error {
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--no-package-lock", "--save-exact", "--omit=dev", "--loglevel=error", spec)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if in.Log != nil {
		in.Log("peers: installing %s into %s (npm install; a native module may take minutes to build)", spec, dir)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("peers: npm install %s failed: %w\n%s", spec, err, Tail(out.String(), 4000))
	}
	if in.Log != nil && out.Len() > 0 {
		in.Log("%s", Tail(out.String(), 4000))
	}
	return nil
}

// moveIntoPlace renames tmp, a finished install, to inst.Dir, removing a
// broken install there first; a concurrent Install that got there first
// wins.
func moveIntoPlace(tmp string, inst Installation) (Installation, error) {
	dir := inst.Dir
	// A folder without the marker is a broken install: move it aside.
	if _, err := os.Stat(dir); err == nil && !installed(inst) {
		if err := os.RemoveAll(dir); err != nil {
			return Installation{}, fmt.Errorf("peers: removing the broken install %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if installed(inst) { // a concurrent Install won
			return inst, nil
		}
		return Installation{}, fmt.Errorf("peers: %w", err)
	}
	return inst, nil
}

func installed(inst Installation) bool {
	b, err := os.ReadFile(filepath.Join(inst.Dir, marker))
	if err != nil || strings.TrimSpace(string(b)) != inst.Package.Name+"@"+inst.Package.Version {
		return false
	}
	_, err = os.Stat(inst.Entry)
	return err == nil
}

// node finds node and checks its version against p.
func (in Installer) node(ctx context.Context, p Package) (string, int, error) {
	name := cmp.Or(in.Node, "node")
	path, err := exec.LookPath(name)
	if err != nil {
		return "", 0, fmt.Errorf("peers: Node.js is needed to run the peer %s and was not found (%s: %w); install Node.js %d or later with npm", p.Name, name, err, max(p.MinNode, 18))
	}
	if path, err = filepath.Abs(path); err != nil {
		return "", 0, err
	}
	v, major, err := version(ctx, path)
	if err != nil {
		return "", 0, err
	}
	if p.MinNode > 0 && major < p.MinNode {
		return "", 0, fmt.Errorf("peers: %s@%s needs Node.js %d or later; %s is %s (give a newer node binary, e.g. the one of the npm package node@%d)", p.Name, p.Version, p.MinNode, path, v, p.MinNode)
	}
	return path, major, nil
}

// npm finds npm and checks its version.
func (in Installer) npm(ctx context.Context) (string, error) {
	name := cmp.Or(in.NPM, "npm")
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("peers: npm is needed to install the peers and was not found (%s: %w); it comes with Node.js", name, err)
	}
	v, major, err := version(ctx, path)
	if err != nil {
		return "", err
	}
	if major < MinNPM {
		return "", fmt.Errorf("peers: npm %s at %s is too old; npm %d or later is needed", v, path, MinNPM)
	}
	return path, nil
}

// version is what prog --version prints, and its major version.
func version(ctx context.Context, prog string) (string, int, error) {
	out, err := exec.CommandContext(ctx, prog, "--version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("peers: %s --version: %w", prog, err)
	}
	v := strings.TrimSpace(string(out))
	s, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	major, err := strconv.Atoi(s)
	if err != nil {
		return "", 0, fmt.Errorf("peers: %s --version: unexpected version %q", prog, v)
	}
	return v, major, nil
}

// Tail keeps the last n bytes of s, for messages.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

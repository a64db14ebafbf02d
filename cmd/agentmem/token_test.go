package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// token add prints a token once and stores its hash; list shows who may
// do what; remove revokes; a default outside the token's namespaces is
// refused.
func TestTokenCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tokens.json")
	tok := strings.TrimSpace(run(t, dir, "token", "add", "--file", file, "--user", "alice", "--write", "alice", "--read", "family,team-*"))
	if !strings.HasPrefix(tok, "amt_") || len(tok) < 20 {
		t.Fatalf("token add printed %q", tok)
	}
	raw, err := os.ReadFile(file)
	if err != nil || strings.Contains(string(raw), tok) || !strings.Contains(string(raw), `"sha256"`) {
		t.Fatalf("token file holds %s (%v)", raw, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if out := run(t, dir, "token", "list", "--file", file); !strings.Contains(out, "alice") || !strings.Contains(out, "[family team-*]") {
		t.Errorf("token list:\n%s", out)
	}
	if _, errOut, err := try(t, dir, "token", "add", "--file", file, "--user", "bob", "--write", "bob", "--default", "alice"); err == nil || !strings.Contains(errOut, "default") {
		t.Errorf("a default the token does not open: %v %s", err, errOut)
	}
	// prefixes only: no default (calls must name their namespace); a
	// prefix is no default
	run(t, dir, "token", "add", "--file", file, "--user", "dave", "--write", "proj-*")
	if out := run(t, dir, "token", "list", "--file", file); !strings.Contains(out, "dave") {
		t.Errorf("token list after a token of prefixes only:\n%s", out)
	}
	if _, errOut, err := try(t, dir, "token", "add", "--file", file, "--user", "eve", "--write", "proj-*", "--default", "proj-*"); err == nil || !strings.Contains(errOut, "not a prefix") {
		t.Errorf("a prefix as the default: %v %s", err, errOut)
	}
	run(t, dir, "token", "remove", "--file", file, "--user", "alice")
	if out := run(t, dir, "token", "list", "--file", file); strings.Contains(out, "alice") {
		t.Errorf("after remove:\n%s", out)
	}
}

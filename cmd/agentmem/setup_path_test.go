package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project's settings are committed: they name agentmem by its bare name
// when PATH finds this very binary by it, and otherwise by this machine's
// path, with a warning on stderr saying so. User settings keep the path.
func TestSetupProjectCommand(t *testing.T) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(exe)
	onPath := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(onPath, name)); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, scope, want, warning string
	}{
		{"on PATH", onPath, "project", name, ""},
		{"not on PATH", t.TempDir(), "project", exe, "is not on PATH"},
		{"another binary on PATH", other, "project", exe, "another binary"},
		{"user scope", onPath, "user", exe, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			var warn strings.Builder
			c := setupClaudeCmd{Scope: tc.scope}
			if got := c.command(exe, nil, &warn); got != tc.want {
				t.Errorf("command = %q, want %q", got, tc.want)
			}
			if tc.warning == "" && warn.Len() > 0 {
				t.Errorf("unexpected warning: %s", warn.String())
			}
			if tc.warning != "" && (!strings.Contains(warn.String(), tc.warning) || !strings.Contains(warn.String(), "this machine's path")) {
				t.Errorf("warning %q, want one saying %q and that the settings hold this machine's path", warn.String(), tc.warning)
			}
		})
	}

	// through setup itself: the project's files name the binary as PATH does
	t.Setenv("PATH", onPath)
	s := newSetupEnv(t)
	s.must(scope("project"))
	mcp := readJSON(t, filepath.Join(s.proj, ".mcp.json"))
	if got := dig(mcp, "mcpServers", "agentmem", "command"); got != name {
		t.Errorf(".mcp.json runs %v, want %q", got, name)
	}
	settings := readJSON(t, filepath.Join(s.proj, ".claude", "settings.json"))
	for _, ev := range hookEvents {
		for _, cmd := range commands(settings, ev) {
			if isOurHook(cmd, "claude-code") && !strings.HasPrefix(cmd, name+" ") {
				t.Errorf("%s hook %q does not start with the bare name", ev, cmd)
			}
		}
	}
	for p, content := range snapshot(t, s.proj) {
		if strings.Contains(content, filepath.Dir(exe)) {
			t.Errorf("%s holds this machine's path %s:\n%s", p, filepath.Dir(exe), content)
		}
	}
	// and uninstall still finds them
	s.must(scope("project"), uninstall)
	if _, err := os.Stat(filepath.Join(s.proj, ".mcp.json")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the .mcp.json it created, with the server named by its bare name: %v", err)
	}
}

// A project's settings name the lean hooks binary by its bare name when
// agentmem itself is named so and PATH finds the same agentmem-hook (the
// hooks ran the slow binary, and setup said agentmem-hook was not beside
// it, looking for it in the current directory).
func TestHookCommandOnPath(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "agentmem")
	for _, f := range []string{abs, filepath.Join(dir, hookName)} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	if got, why := hookCommand(abs, "agentmem"); got != hookName || why != "" {
		t.Errorf("on PATH: %q (%s), want %q", got, why, hookName)
	}
	if got, why := hookCommand(abs, abs); got != filepath.Join(dir, hookName) || why != "" {
		t.Errorf("by path: %q (%s), want the lean binary's path", got, why)
	}
	t.Setenv("PATH", t.TempDir()) // PATH finds agentmem-hook nowhere: its path
	if got, _ := hookCommand(abs, "agentmem"); got != filepath.Join(dir, hookName) {
		t.Errorf("lean binary not on PATH: %q, want its path", got)
	}
	os.Remove(filepath.Join(dir, hookName)) // none beside: agentmem itself, as named
	if got, why := hookCommand(abs, "agentmem"); got != "agentmem" || !strings.Contains(why, "is not beside it") {
		t.Errorf("no lean binary: %q (%s), want agentmem and why", got, why)
	}
}

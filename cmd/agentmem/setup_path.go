package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// command is how the settings of scope name the agentmem binary exe. A
// project's settings (--scope project) are committed with the repository,
// where this machine's path means nothing: there it is the bare name,
// when the agentmem that PATH finds by that name is exe itself. Otherwise
// exe's path is written, and warn is told that the project's settings now
// hold a path of this machine (as is a --data-dir in global).
func (c setupClaudeCmd) command(exe string, global []string, warn io.Writer) string {
	if c.Scope != "project" || c.Uninstall {
		return exe
	}
	name := filepath.Base(exe)
	found, err := exec.LookPath(name)
	if err == nil && sameFile(found, exe) {
		exe = name
	} else {
		why := fmt.Sprintf("%s is not on PATH", name)
		if err == nil {
			why = fmt.Sprintf("the %s on PATH is %s, another binary", name, found)
		}
		fmt.Fprintf(warn, "agentmem setup: the project's settings (.mcp.json, .claude/settings.json) name agentmem by this machine's path, %s, because %s: commit them only if every user has it there, or put agentmem on PATH and run setup again.\n", exe, why)
	}
	if i := slices.Index(global, "--data-dir"); i >= 0 && i+1 < len(global) {
		fmt.Fprintf(warn, "agentmem setup: the project's settings also hold this machine's --data-dir %s.\n", global[i+1])
	}
	return exe
}

// sameFile says whether the paths a and b are one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

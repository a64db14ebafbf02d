package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agentmem/cmd/internal/backend"
)

// agentmem setup claude-code registers the MCP server and the hooks in
// Claude Code's settings, merged with what is there: it writes a backup of
// every file it changes first, running it twice changes nothing, and
// --uninstall removes exactly its own entries (the server named agentmem
// whose command is agentmem, and the hooks that run `agentmem ... hook
// claude-code`).

type setupCmd struct {
	ClaudeCode setupClaudeCmd `cmd:"" name:"claude-code" help:"Register agentmem's MCP server and hooks in Claude Code's settings."`
	Codex      setupCodexCmd  `cmd:"" name:"codex" help:"Register agentmem's MCP server and hooks in Codex CLI's configuration, and trust the hooks (needs the codex binary)."`
}

type setupClaudeCmd struct {
	Scope      string `name:"scope" enum:"user,project,local" default:"user" help:"user: every project of this user (~/.claude.json, ~/.claude/settings.json); project: this project, shared with its repository (.mcp.json, .claude/settings.json); local: this project, for you only (~/.claude.json, .claude/settings.local.json)."`
	AutoRecall bool   `name:"auto-recall" help:"Also recall on every prompt (UserPromptSubmit) and give the model what is relevant."`
	PerProject bool   `name:"per-project" help:"One namespace per project directory instead of one for the user."`
	DryRun     bool   `name:"dry-run" help:"Print what would change; change nothing."`
	Uninstall  bool   `name:"uninstall" help:"Remove what setup added."`
	Project    string `name:"project" placeholder:"DIR" help:"The project directory of --scope project or local (default: the current directory)."`

	home string // tests set it; "" is the user's home
}

// hookEvents are the events the hook is registered for.
var hookEvents = []string{"SessionStart", "Stop", "PreCompact", "SessionEnd"}

// settingsFiles are the files of a scope: where the server and the hooks go.
type settingsFiles struct {
	mcp     string   // the file that holds the mcpServers object
	mcpPath []string // the keys down to it ([] or ["projects", DIR])
	hooks   string
}

func (c setupClaudeCmd) files() (settingsFiles, error) {
	home := c.home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return settingsFiles{}, fmt.Errorf("no home directory: %w", err)
		}
		home = h
	}
	proj := c.Project
	if proj == "" {
		proj, _ = os.Getwd()
	}
	proj, _ = filepath.Abs(proj)
	switch c.Scope {
	case "project":
		return settingsFiles{mcp: filepath.Join(proj, ".mcp.json"), hooks: filepath.Join(proj, ".claude", "settings.json")}, nil
	case "local":
		return settingsFiles{mcp: filepath.Join(home, ".claude.json"), mcpPath: []string{"projects", proj}, hooks: filepath.Join(proj, ".claude", "settings.local.json")}, nil
	}
	return settingsFiles{mcp: filepath.Join(home, ".claude.json"), hooks: filepath.Join(home, ".claude", "settings.json")}, nil
}

func (c setupClaudeCmd) Run(e *env) error {
	files, err := c.files()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the agentmem binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	global := carried(e.cfg)
	server := map[string]any{"type": "stdio", "command": exe, "args": append(slices.Clone(global), "serve")}
	hook := shellJoin(append(append([]string{exe}, global...), c.hookArgs()...))
	changes := []fileChange{
		{file: files.mcp, edit: func(doc map[string]any) { setServer(doc, files.mcpPath, server, c.Uninstall) }},
		{file: files.hooks, edit: func(doc map[string]any) { setHooks(doc, hook, c.events(), c.Uninstall) }},
	}
	for _, ch := range changes {
		if err := ch.apply(c.DryRun); err != nil {
			return err
		}
	}
	if !c.DryRun && !c.Uninstall {
		fmt.Printf("Claude Code now starts %s as its MCP server \"agentmem\" and captures every session through its hooks (%s).\n", exe, strings.Join(c.events(), ", "))
	}
	return nil
}

func (c setupClaudeCmd) hookArgs() []string {
	args := []string{"hook", "claude-code"}
	if c.PerProject {
		args = append(args, "--per-project")
	}
	if c.AutoRecall {
		args = append(args, "--auto-recall")
	}
	return args
}

func (c setupClaudeCmd) events() []string {
	if c.AutoRecall {
		return append(slices.Clone(hookEvents), "UserPromptSubmit")
	}
	return hookEvents
}

// carried are the global flags the server and the hooks are registered
// with: those of this command line that differ from their defaults
// (secrets, such as API keys, stay in the environment).
func carried(cfg backend.Config) []string {
	var out []string
	add := func(flag, v, def string) {
		if v != def {
			out = append(out, "--"+flag, v)
		}
	}
	if cfg.DataDir != "" {
		abs, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			abs = cfg.DataDir
		}
		out = append(out, "--data-dir", abs)
	}
	add("namespace", cfg.Namespace, "default")
	add("timezone", cfg.Timezone, "Local")
	add("embedder", cfg.Embedder, "builtin")
	add("store", cfg.Store, "embedded")
	return out
}

// shellJoin quotes args for the shell that runs a hook's command.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+@") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

// isOurHook says whether a hook command runs agentmem's Claude Code hook.
func isOurHook(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) < 3 || !strings.HasPrefix(filepath.Base(strings.Trim(f[0], `'"`)), "agentmem") {
		return false
	}
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == "claude-code" {
			return true
		}
	}
	return false
}

// setHooks removes agentmem's hooks from doc's "hooks" and, unless
// uninstalling, adds cmd for each event.
func setHooks(doc map[string]any, cmd string, events []string, uninstall bool) {
	hooks, _ := doc["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	for event, v := range hooks {
		if groups := withoutOurHooks(v); len(groups) > 0 {
			hooks[event] = groups
		} else {
			delete(hooks, event)
		}
	}
	if !uninstall {
		for _, event := range events {
			groups, _ := hooks[event].([]any)
			entry := map[string]any{"type": "command", "command": cmd, "timeout": 60}
			hooks[event] = append(groups, map[string]any{"hooks": []any{entry}})
		}
	}
	if len(hooks) == 0 {
		delete(doc, "hooks")
		return
	}
	doc["hooks"] = hooks
}

// withoutOurHooks is an event's hook groups without agentmem's commands,
// and without the groups that held nothing else.
func withoutOurHooks(v any) []any {
	groups, _ := v.([]any)
	var out []any
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, _ := gm["hooks"].([]any)
		var kept []any
		for _, h := range hs {
			if hm, ok := h.(map[string]any); ok {
				if cmd, _ := hm["command"].(string); isOurHook(cmd) {
					continue
				}
			}
			kept = append(kept, h)
		}
		if len(kept) == 0 && len(hs) > 0 {
			continue
		}
		gm["hooks"] = kept
		out = append(out, gm)
	}
	return out
}

// setServer sets (or, uninstalling, removes) mcpServers.agentmem at path
// in doc; a server of that name that is not agentmem is left alone.
func setServer(doc map[string]any, path []string, server map[string]any, uninstall bool) {
	parent := doc
	for _, k := range path {
		next, _ := parent[k].(map[string]any)
		if next == nil {
			if uninstall {
				return
			}
			next = map[string]any{}
			parent[k] = next
		}
		parent = next
	}
	servers, _ := parent["mcpServers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	if uninstall {
		if s, ok := servers["agentmem"].(map[string]any); ok && isAgentmem(s) {
			delete(servers, "agentmem")
		}
		if len(servers) == 0 {
			delete(parent, "mcpServers")
			return
		}
	} else {
		servers["agentmem"] = server
	}
	parent["mcpServers"] = servers
}

func isAgentmem(server map[string]any) bool {
	cmd, _ := server["command"].(string)
	return strings.HasPrefix(filepath.Base(cmd), "agentmem")
}

// fileChange is one settings file edited.
type fileChange struct {
	file string
	edit func(map[string]any)
}

// apply reads the file (a missing one is {}), edits it, and writes it
// back after a backup, unless nothing changed or dry says only to print.
func (ch fileChange) apply(dry bool) error {
	old, err := os.ReadFile(ch.file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	doc := map[string]any{}
	if len(bytes.TrimSpace(old)) > 0 {
		if err := json.Unmarshal(old, &doc); err != nil {
			return fmt.Errorf("%s is not a JSON object (%v): fix or move it, then run setup again", ch.file, err)
		}
	}
	ch.edit(doc)
	neu, _ := json.MarshalIndent(doc, "", "  ")
	neu = append(neu, '\n')
	if before, _ := canonical(old); before != "" && before == mustCanonical(neu) {
		fmt.Printf("%s: unchanged\n", ch.file)
		return nil
	}
	if dry {
		fmt.Printf("%s would become:\n%s\n", ch.file, neu)
		return nil
	}
	if len(old) > 0 {
		backup := ch.file + ".agentmem-backup-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.WriteFile(backup, old, 0o600); err != nil {
			return fmt.Errorf("writing the backup %s: %w", backup, err)
		}
		fmt.Printf("%s: backed up to %s\n", ch.file, backup)
	}
	if err := os.MkdirAll(filepath.Dir(ch.file), 0o755); err != nil {
		return err
	}
	tmp := ch.file + ".agentmem-tmp"
	if err := os.WriteFile(tmp, neu, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, ch.file); err != nil {
		return err
	}
	fmt.Printf("%s: updated\n", ch.file)
	return nil
}

// canonical is a JSON document re-encoded with sorted keys, to compare
// documents whatever their layout ("" for an empty or invalid one).
func canonical(b []byte) (string, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return "{}", nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}

func mustCanonical(b []byte) string { s, _ := canonical(b); return s }

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentmem/cmd/internal/backend"
	"agentmem/memory"
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
	Scope string `name:"scope" enum:"user,project,local" default:"user" help:"user: every project of this user (~/.claude.json, ~/.claude/settings.json); project: this project, shared with its repository (.mcp.json, .claude/settings.json); local: this project, for you only (~/.claude.json, .claude/settings.local.json)."`
	hookFlags
	DryRun    bool   `name:"dry-run" help:"Print what would change; change nothing."`
	Uninstall bool   `name:"uninstall" help:"Remove what setup added."`
	Project   string `name:"project" placeholder:"DIR" help:"The project directory of --scope project or local (default: the current directory)."`

	home string // tests set it; "" is the user's home
}

// hookFlags are the choices both hosts' hooks are registered with.
type hookFlags struct {
	AutoRecall   bool `name:"auto-recall" help:"Also recall on every prompt (UserPromptSubmit) and give the model what is relevant."`
	PerProject   bool `name:"per-project" help:"One namespace per project directory instead of one for the user."`
	RecallTokens int  `name:"recall-tokens" default:"800" help:"With --auto-recall, the token budget of what it adds to a prompt (the hooks' --recall-tokens)."`
	StartTokens  int  `name:"start-tokens" default:"0" help:"On SessionStart, also give the model the memories of earlier sessions that best match the project directory's name, within this many tokens (the hooks' --start-tokens; 0: the date only)."`
}

// defaultRecallTokens is the hook's own --recall-tokens default, which
// its command leaves out.
const defaultRecallTokens = 800

// check refuses budgets the hooks could not use: an edited hook command
// is one Codex no longer trusts, so setup is where they are set.
func (c hookFlags) check() error {
	switch most := memory.MaxTokens; { // a recall's max_tokens
	case c.RecallTokens < 1 || c.RecallTokens > most:
		return fmt.Errorf("--recall-tokens must be at least 1 and at most %d, got %d", most, c.RecallTokens)
	case c.StartTokens < 0 || c.StartTokens > most:
		return fmt.Errorf("--start-tokens must be at least 0 (none) and at most %d, got %d", most, c.StartTokens)
	case c.RecallTokens != defaultRecallTokens && !c.AutoRecall:
		return errors.New("--recall-tokens is the budget of --auto-recall: give both")
	}
	return nil
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
	proj, _ := filepath.Abs(c.Project) // "" is the current directory
	switch c.Scope {
	case "project":
		return settingsFiles{mcp: filepath.Join(proj, ".mcp.json"), hooks: filepath.Join(proj, ".claude", "settings.json")}, nil
	case "local":
		return settingsFiles{mcp: filepath.Join(home, ".claude.json"), mcpPath: []string{"projects", proj}, hooks: filepath.Join(proj, ".claude", "settings.local.json")}, nil
	}
	return settingsFiles{mcp: filepath.Join(home, ".claude.json"), hooks: filepath.Join(home, ".claude", "settings.json")}, nil
}

func (c setupClaudeCmd) Run(e *env) error {
	if err := c.check(); err != nil {
		return err
	}
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
	if strings.Contains(exe, string(filepath.Separator)+"go-build") && !strings.HasSuffix(exe, ".test") && !c.Uninstall {
		return fmt.Errorf("this agentmem runs from go run's temporary build (%s), which is deleted when it exits: install it first (go install ./cmd/agentmem), then run agentmem setup claude-code", exe)
	}
	global := carried(e.cfg)
	abs := exe
	exe = c.command(exe, global, os.Stderr)
	server := map[string]any{"type": "stdio", "command": exe, "args": append(slices.Clone(global), "serve")}
	hookExe, why := hookCommand(abs, exe)
	hook := shellJoin(append(append([]string{hookExe}, global...), c.hookArgs("claude-code")...))
	mcp := fileChange{file: files.mcp, edit: func(doc map[string]any) { setServer(doc, files.mcpPath, server, c.Uninstall) }}
	if !c.Uninstall {
		mcp.check = ourServer(files.mcp, files.mcpPath)
	}
	record, err := c.recordPath()
	if err != nil {
		return err
	}
	rec, err := readSetupRecord(record)
	if err != nil {
		return err
	}
	var changed, left []string
	hooks := fileChange{file: files.hooks, edit: func(doc map[string]any) {
		setHooks(doc, "claude-code", hook, c.events(), nil, c.Uninstall)
		changed, left = setAllowed(doc, rec.Allow[samePath(files.hooks)], c.Uninstall)
	}}
	if c.Uninstall { // a file setup created goes, when nothing else is in it
		mcp.removeEmpty = slices.Contains(rec.Created, samePath(files.mcp))
		hooks.removeEmpty = slices.Contains(rec.Created, samePath(files.hooks))
	}
	done, err := applyAll([]fileChange{mcp, hooks}, c.DryRun)
	if err != nil {
		return err
	}
	if !c.DryRun {
		rec.noteAllow(samePath(files.hooks), changed, c.Uninstall)
		rec.noteFiles(done)
		if err := rec.save(record); err != nil {
			fmt.Fprintf(os.Stderr, "agentmem: noting what setup added: %v (--uninstall will leave it)\n", err)
		}
	}
	sayLeft(files.hooks, left)
	if !c.DryRun && !c.Uninstall {
		fmt.Printf("Claude Code now starts %s as its MCP server \"agentmem\" and captures every session through its hooks (%s), run by %s.\n%s", exe, strings.Join(c.events(), ", "), hookExe, why)
	}
	return nil
}

// hookName is the lean hooks binary (cmd/agentmem-hook).
const hookName = "agentmem-hook"

// hookBinary is the binary the hooks run: agentmem-hook when it sits
// beside agentmem (exe), which starts in a fraction of agentmem's time
// and runs agentmem itself only when no server is running; else agentmem,
// with a line saying why (or "").
// hookCommand is hookBinary for the binary at abs, named cmd in the
// settings: by its bare name too when cmd is one (a project's settings,
// agentmem on PATH) and PATH finds that same lean binary by it.
func hookCommand(abs, cmd string) (string, string) {
	lean, why := hookBinary(abs)
	if cmd == abs {
		return lean, why
	}
	if why != "" {
		return cmd, why
	}
	if found, err := exec.LookPath(filepath.Base(lean)); err == nil && sameFile(found, lean) {
		return filepath.Base(lean), ""
	}
	return lean, ""
}

func hookBinary(exe string) (string, string) {
	name := hookName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	lean := filepath.Join(filepath.Dir(exe), name)
	if st, err := os.Stat(lean); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) {
		return lean, ""
	}
	return exe, fmt.Sprintf("The hooks run agentmem itself: %s is not beside it (go install ./cmd/agentmem ./cmd/agentmem-hook installs both; with it, each hook starts several times faster). Run setup again once it is.\n", name)
}

// hookArgs are the arguments of host's hook command.
func (c hookFlags) hookArgs(host string) []string {
	args := []string{"hook", host}
	if c.PerProject {
		args = append(args, "--per-project")
	}
	if c.AutoRecall {
		args = append(args, "--auto-recall")
		if c.RecallTokens != defaultRecallTokens {
			args = append(args, "--recall-tokens", strconv.Itoa(c.RecallTokens))
		}
	}
	if c.StartTokens > 0 {
		args = append(args, "--start-tokens", strconv.Itoa(c.StartTokens))
	}
	return args
}

func (c hookFlags) events() []string {
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
	if cfg.Embedder == "openai" {
		add("openai-base-url", cfg.OpenAI.BaseURL, "https://api.openai.com/v1")
		add("openai-model", cfg.OpenAI.Model, "text-embedding-3-small")
		add("openai-dims", strconv.Itoa(cfg.OpenAI.Dims), "0")
	}
	if r := cfg.Reranker; r.URL != "" {
		add("reranker-url", r.URL, "")
		add("reranker-model", r.Model, "")
		add("reranker-api", r.API, "cohere")
		add("reranker-timeout", r.Timeout.String(), "10s")
		add("reranker-candidates", strconv.Itoa(r.Candidates), "0")
	}
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

// shellSplit splits a command line as the shell would its words (quotes
// and backslashes; no expansions): the inverse of shellJoin.
func shellSplit(cmd string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'' && r != '\'', quote == '"' && r != '"' && r != '\\':
			w.WriteRune(r)
		case quote != 0 && r == quote:
			quote = 0
		case r == '\\' && i+1 < len(rs):
			i++
			w.WriteRune(rs[i])
			in = true
		case quote == 0 && (r == '\'' || r == '"'):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// isOurHook says whether a hook command runs agentmem's hook for host
// (claude-code or codex).
func isOurHook(cmd, host string) bool {
	f := shellSplit(cmd) // shellJoin may have quoted the binary's path
	if len(f) < 3 || !strings.HasPrefix(f[0][strings.LastIndexAny(f[0], `/\`)+1:], "agentmem") {
		return false
	}
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == host {
			return true
		}
	}
	return false
}

// setHooks removes agentmem's hooks for host from doc's "hooks" and,
// unless uninstalling, adds cmd for each event, with a timeout of 60 s
// unless timeouts says otherwise (Claude Code's settings and Codex's
// hooks.json share the layout: event → groups → handlers). What holds
// none of agentmem's hooks is left exactly as it is (an empty list, a
// group without hooks).
func setHooks(doc map[string]any, host, cmd string, events []string, timeouts map[string]int, uninstall bool) {
	hooks, _ := doc["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	removed := false
	for event, v := range hooks {
		groups, ok := v.([]any)
		kept, n := withoutOurHooks(groups, host)
		if !ok || n == 0 {
			continue
		}
		removed = true
		if len(kept) > 0 {
			hooks[event] = kept
		} else {
			delete(hooks, event)
		}
	}
	if !uninstall {
		for _, event := range events {
			groups, _ := hooks[event].([]any)
			entry := map[string]any{"type": "command", "command": cmd, "timeout": cmp.Or(timeouts[event], 60)}
			hooks[event] = append(groups, map[string]any{"hooks": []any{entry}})
		}
	}
	switch {
	case len(hooks) > 0:
		doc["hooks"] = hooks
	case removed:
		delete(doc, "hooks")
	}
}

// withoutOurHooks is an event's hook groups without agentmem's commands
// for host, and without the groups that held nothing else; n counts the
// commands removed.
func withoutOurHooks(groups []any, host string) (out []any, n int) {
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		kept := slices.DeleteFunc(hs, func(h any) bool {
			hm, _ := h.(map[string]any)
			cmd, _ := hm["command"].(string)
			return isOurHook(cmd, host)
		})
		switch {
		case len(kept) == len(hs):
			out = append(out, g)
		case len(kept) > 0:
			n += len(hs) - len(kept)
			gm["hooks"] = kept
			out = append(out, gm)
		default:
			n += len(hs)
		}
	}
	return out, n
}

// setServer sets (or, uninstalling, removes) mcpServers.agentmem at path
// in doc; a server of that name that is not agentmem is left alone
// (ourServer refuses to install over it).
func setServer(doc map[string]any, path []string, server map[string]any, uninstall bool) {
	if uninstall {
		removeServer(doc, path)
		return
	}
	parent := doc
	for _, k := range append(slices.Clone(path), "mcpServers") {
		next, _ := parent[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			parent[k] = next
		}
		parent = next
	}
	if old, ok := parent["agentmem"].(map[string]any); !ok || isAgentmem(old) {
		parent["agentmem"] = server
	}
}

// removeServer removes agentmem's server at path in m, and the objects
// that held nothing else once it is gone (projects[DIR] of the local
// scope); it reports whether it removed it.
func removeServer(m map[string]any, path []string) bool {
	key := "mcpServers"
	if len(path) > 0 {
		key = path[0]
	}
	next, _ := m[key].(map[string]any)
	removed := false
	if len(path) > 0 {
		removed = next != nil && removeServer(next, path[1:])
	} else if s, ok := next["agentmem"].(map[string]any); ok && isAgentmem(s) {
		delete(next, "agentmem")
		removed = true
	}
	if removed && len(next) == 0 {
		delete(m, key)
	}
	return removed
}

// ourServer refuses to replace an MCP server named agentmem at path that
// runs another program (a wrapper, a container): the user's, not setup's.
func ourServer(file string, path []string) func(map[string]any) error {
	return func(doc map[string]any) error {
		var v any = doc
		for _, k := range append(slices.Clone(path), "mcpServers", "agentmem") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if s, ok := v.(map[string]any); v != nil && (!ok || !isAgentmem(s)) {
			return fmt.Errorf("%s already has an MCP server named agentmem that runs %v, not agentmem: rename or remove it, then run setup again", file, s["command"])
		}
		return nil
	}
}

func isAgentmem(server map[string]any) bool {
	cmd, _ := server["command"].(string)
	return strings.HasPrefix(filepath.Base(cmd), "agentmem")
}

// fileChange is one settings file edited, after check, if any, found
// nothing against it. With removeEmpty, a file the edit leaves as {} is
// removed (setup had created it).
type fileChange struct {
	file        string
	check       func(map[string]any) error
	edit        func(map[string]any)
	removeEmpty bool
}

// applyAll reads and edits every file before it writes any: a file that
// cannot be read or is not JSON leaves them all as they were. It returns
// the files it created and those it removed.
func applyAll(changes []fileChange, dry bool) (done fileOutcome, err error) {
	olds, neus := make([][]byte, len(changes)), make([][]byte, len(changes))
	for i, ch := range changes {
		var err error
		if olds[i], neus[i], err = ch.plan(); err != nil {
			return done, fmt.Errorf("%w; nothing changed", err)
		}
	}
	for i, ch := range changes {
		what, err := ch.write(olds[i], neus[i], dry)
		if err != nil {
			return done, err
		}
		switch what {
		case created:
			done.created = append(done.created, ch.file)
		case removed:
			done.removed = append(done.removed, ch.file)
		}
	}
	return done, nil
}

// fileOutcome is the files a change created and removed.
type fileOutcome struct{ created, removed []string }

// apply reads the file (a missing one is {}), edits it, and writes it
// back after a backup, unless nothing changed or dry says only to print.
func (ch fileChange) apply(dry bool) error {
	old, neu, err := ch.plan()
	if err != nil {
		return err
	}
	_, err = ch.write(old, neu, dry)
	return err
}

// What write did to a file besides changing it.
const (
	updated = iota
	created
	removed
)

// plan reads the file and returns what it holds and what it would hold
// after the edit; it writes nothing.
func (ch fileChange) plan() (old, neu []byte, err error) {
	old, err = os.ReadFile(ch.file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	doc, err := decodeDoc(old)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a JSON object (%v): fix or move it, then run setup again", ch.file, err)
	}
	if ch.check != nil {
		if err := ch.check(doc); err != nil {
			return nil, nil, err
		}
	}
	ch.edit(doc)
	return old, encodeDocLike(doc, old), nil
}

// write writes neu over the file after a backup of old, unless they are
// the same document or dry says only to print.
func (ch fileChange) write(old, neu []byte, dry bool) (int, error) {
	if before := canonical(old); before != "" && before == canonical(neu) {
		fmt.Printf("%s: unchanged\n", ch.file)
		return updated, nil
	}
	remove := ch.removeEmpty && canonical(neu) == "{}"
	if dry {
		if remove {
			fmt.Printf("%s would be removed (setup created it, and nothing else is in it)\n", ch.file)
		} else {
			fmt.Printf("%s would become:\n%s\n", ch.file, neu)
		}
		return updated, nil
	}
	if len(old) > 0 && !remove { // a file removed held only setup's entries
		backup := ch.file + ".agentmem-backup-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.WriteFile(backup, old, 0o600); err != nil {
			return updated, fmt.Errorf("writing the backup %s: %w", backup, err)
		}
		fmt.Printf("%s: backed up to %s\n", ch.file, backup)
	}
	if remove {
		if err := os.Remove(ch.file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return updated, err
		}
		fmt.Printf("%s: removed (setup created it, and nothing else is in it)\n", ch.file)
		if dir := filepath.Dir(ch.file); filepath.Base(dir) == ".claude" {
			os.Remove(dir) // the folder setup made for it, if nothing else is in it
		}
		return removed, nil
	}
	what := updated
	if _, err := os.Lstat(ch.file); errors.Is(err, os.ErrNotExist) {
		what = created
	}
	if err := os.MkdirAll(filepath.Dir(ch.file), 0o755); err != nil {
		return updated, err
	}
	if err := replaceFile(ch.file, neu); err != nil {
		return updated, err
	}
	fmt.Printf("%s: updated\n", ch.file)
	return what, nil
}

// replaceFile writes data over file at once (a new file renamed over it),
// with its mode, and through a symbolic link (settings kept in a dotfiles
// repository stay there) rather than over it.
func replaceFile(file string, data []byte) error {
	if target, err := filepath.EvalSymlinks(file); err == nil {
		file = target
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(file); err == nil {
		mode = st.Mode().Perm()
	}
	tmp := file + ".agentmem-tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil { // not narrowed by the umask
		return err
	}
	return os.Rename(tmp, file)
}

// decodeDoc reads a settings document ({} when empty). Numbers stay as
// written: as float64, an id over 2^53 would be rewritten rounded.
func decodeDoc(b []byte) (map[string]any, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(b)) == 0 {
		return doc, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("it is null")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after its end")
	}
	return doc, nil
}

// canonical is a JSON document re-encoded with sorted keys, to compare
// documents whatever their layout ("" for an empty or invalid one).
func canonical(b []byte) string {
	doc, err := decodeDoc(b)
	if err != nil {
		return ""
	}
	out, _ := json.Marshal(doc) // "" on failure
	return string(out)
}

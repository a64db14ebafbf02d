package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/cmd/internal/backend"
)

// agentmem setup claude-code against a HOME and a project of the test's
// own, with the user's own settings in them.

const userClaudeJSON = `{
  "numStartups": 12,
  "firstStartTime": "2026-01-05T10:00:00.000Z",
  "userID": 9007199254740993,
  "mcpServers": {
    "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "x"}}
  },
  "projects": {
    "/home/sam/src/other": {"allowedTools": [], "mcpServers": {"db": {"command": "pg-mcp"}}}
  }
}
`

const userSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(git status)"]},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send 'Claude is done' && echo <done> >> ~/log"}]}
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check-bash"}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}, {"type": "command", "command": "/opt/agentmem-old/bin/agentmem hook claude-code"}]}
    ]
  }
}
`

type setupEnv struct {
	t          *testing.T
	home, proj string
	e          *env
}

func newSetupEnv(t *testing.T) *setupEnv {
	root := t.TempDir()
	s := &setupEnv{t: t, home: filepath.Join(root, "home"), proj: filepath.Join(root, "src", "garden"), e: hookEnv(t)}
	for _, d := range []string{s.home, s.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *setupEnv) write(rel, content string) string {
	s.t.Helper()
	p := filepath.Join(s.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *setupEnv) run(opts ...func(*setupClaudeCmd)) error {
	c := setupClaudeCmd{Scope: "user", Project: s.proj, home: s.home, hookFlags: hookFlags{RecallTokens: defaultRecallTokens}}
	for _, o := range opts {
		o(&c)
	}
	return c.Run(s.e)
}

func (s *setupEnv) must(opts ...func(*setupClaudeCmd)) {
	s.t.Helper()
	if err := s.run(opts...); err != nil {
		s.t.Fatal(err)
	}
}

func scope(name string) func(*setupClaudeCmd) { return func(c *setupClaudeCmd) { c.Scope = name } }

var (
	uninstall  = func(c *setupClaudeCmd) { c.Uninstall = true }
	dryRun     = func(c *setupClaudeCmd) { c.DryRun = true }
	autoRecall = func(c *setupClaudeCmd) { c.AutoRecall = true }
)

// snapshot is every file under dirs, by path: what a run changed.
func snapshot(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, de os.DirEntry, err error) error {
			if err == nil && !de.IsDir() {
				b, _ := os.ReadFile(p)
				files[p] = string(b)
			}
			return err
		})
	}
	return files
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func sameJSON(t *testing.T, path, want string) {
	t.Helper()
	var w map[string]any
	d := json.NewDecoder(strings.NewReader(want))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		t.Fatal(err)
	}
	if got := readJSON(t, path); !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("%s:\n%s\nwant\n%s", path, g, want)
	}
}

func dig(doc map[string]any, keys ...string) any {
	var v any = doc
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// commands lists the hook commands of event in a settings document.
func commands(doc map[string]any, event string) []string {
	var out []string
	groups, _ := dig(doc, "hooks", event).([]any)
	for _, g := range groups {
		hs, _ := g.(map[string]any)["hooks"].([]any)
		for _, h := range hs {
			out = append(out, h.(map[string]any)["command"].(string))
		}
	}
	return out
}

func ours(cmds []string) int {
	n := 0
	for _, c := range cmds {
		if isOurHook(c, "claude-code") {
			n++
		}
	}
	return n
}

func backups(t *testing.T, dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*.agentmem-backup-*"))
	return m
}

func TestSetupUserScopeMerges(t *testing.T) {
	s := newSetupEnv(t)
	claudeJSON := s.write(".claude.json", userClaudeJSON)
	settings := s.write(".claude/settings.json", userSettings)
	s.must()

	doc := readJSON(t, claudeJSON)
	if dig(doc, "mcpServers", "github", "command") != "npx" || dig(doc, "numStartups") != json.Number("12") ||
		dig(doc, "userID") != json.Number("9007199254740993") || dig(doc, "projects", "/home/sam/src/other", "mcpServers", "db") == nil {
		t.Errorf("the user's own entries of %s changed:\n%v", claudeJSON, doc)
	}
	srv, _ := dig(doc, "mcpServers", "agentmem").(map[string]any)
	if args, _ := srv["args"].([]any); !isAgentmem(srv) || srv["type"] != "stdio" || len(args) == 0 || args[len(args)-1] != "serve" {
		t.Errorf("mcpServers.agentmem = %v", srv)
	}
	if args := srv["args"].([]any); !slices.Contains(args, any("--data-dir")) {
		t.Errorf("the server does not carry --data-dir: %v", args)
	}

	set := readJSON(t, settings)
	if dig(set, "model") != "opus" || dig(set, "permissions", "allow") == nil || len(commands(set, "PreToolUse")) != 1 {
		t.Errorf("the user's own settings changed: %v", set)
	}
	for _, ev := range hookEvents {
		if n := ours(commands(set, ev)); n != 1 {
			t.Errorf("%s: %d agentmem hooks, want 1 (%q)", ev, n, commands(set, ev))
		}
	}
	if stop := commands(set, "Stop"); !slices.Contains(stop, "notify-send 'Claude is done' && echo <done> >> ~/log") {
		t.Errorf("the user's own Stop hook is gone: %q", stop)
	}
	if start := commands(set, "SessionStart"); !slices.Contains(start, "echo hi") {
		t.Errorf("the user's own SessionStart hook, in a group with an old agentmem hook, is gone: %q", start)
	}
	if ours(commands(set, "UserPromptSubmit")) != 0 {
		t.Error("UserPromptSubmit registered without --auto-recall")
	}
	checkBackups(t, map[string]string{claudeJSON: userClaudeJSON, settings: userSettings})
}

// checkBackups says whether each file has one backup, holding what it
// held before setup ran.
func checkBackups(t *testing.T, before map[string]string) {
	t.Helper()
	for file, old := range before {
		bs := backups(t, filepath.Dir(file))
		var mine []string
		for _, b := range bs {
			if strings.HasPrefix(filepath.Base(b), filepath.Base(file)+".agentmem-backup-") {
				mine = append(mine, b)
			}
		}
		if len(mine) != 1 {
			t.Errorf("%s: %d backups, want 1", file, len(mine))
			continue
		}
		if b, _ := os.ReadFile(mine[0]); string(b) != old {
			t.Errorf("backup %s holds %q, not what %s held", mine[0], b, file)
		}
	}
}

// A second run changes nothing; --uninstall gives the user back their
// settings, as documents, and a third run of it changes nothing.
func TestSetupIdempotentAndUninstall(t *testing.T) {
	s := newSetupEnv(t)
	claudeJSON := s.write(".claude.json", userClaudeJSON)
	settings := s.write(".claude/settings.json", userSettings)
	s.must(autoRecall)
	installed := snapshot(t, s.home, s.proj)
	s.must(autoRecall)
	if again := snapshot(t, s.home, s.proj); !maps.Equal(installed, again) {
		t.Errorf("a second run changed files: %v", diffKeys(installed, again))
	}
	if n := ours(commands(readJSON(t, settings), "UserPromptSubmit")); n != 1 {
		t.Errorf("--auto-recall: %d UserPromptSubmit hooks of agentmem", n)
	}
	s.must() // without --auto-recall: its hook goes
	if n := ours(commands(readJSON(t, settings), "UserPromptSubmit")); n != 0 {
		t.Errorf("setup without --auto-recall left %d UserPromptSubmit hooks", n)
	}

	s.must(uninstall)
	sameJSON(t, claudeJSON, userClaudeJSON)
	want := strings.Replace(userSettings, `, {"type": "command", "command": "/opt/agentmem-old/bin/agentmem hook claude-code"}`, "", 1)
	sameJSON(t, settings, want)
	after := snapshot(t, s.home, s.proj)
	s.must(uninstall)
	if again := snapshot(t, s.home, s.proj); !maps.Equal(after, again) {
		t.Errorf("a second --uninstall changed files: %v", diffKeys(after, again))
	}
}

func diffKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		if a[k] != b[k] {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// In a fresh HOME, setup creates the files; --uninstall removes them.
func TestSetupFreshHome(t *testing.T) {
	s := newSetupEnv(t)
	s.must()
	claudeJSON, settings := filepath.Join(s.home, ".claude.json"), filepath.Join(s.home, ".claude", "settings.json")
	if dig(readJSON(t, claudeJSON), "mcpServers", "agentmem") == nil || ours(commands(readJSON(t, settings), "Stop")) != 1 {
		t.Fatal("setup in a fresh home registered nothing")
	}
	if b := backups(t, s.home); len(b) != 0 {
		t.Errorf("backups of files that did not exist: %v", b)
	}
	s.must(uninstall)
	for _, f := range []string{claudeJSON, settings, filepath.Dir(settings), filepath.Join(s.home, ".config", "agentmem")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("uninstall left %s, which setup created: %v", f, err)
		}
	}
}

func TestSetupDryRun(t *testing.T) {
	s := newSetupEnv(t)
	s.write(".claude.json", userClaudeJSON)
	s.write(".claude/settings.json", userSettings)
	before := snapshot(t, s.home, s.proj)
	s.must(dryRun)
	s.must(dryRun, uninstall)
	s.must(dryRun, scope("project"))
	s.must(dryRun, scope("local"))
	if after := snapshot(t, s.home, s.proj); !maps.Equal(before, after) {
		t.Errorf("--dry-run changed %v", diffKeys(before, after))
	}
}

// Each scope writes its own files, and only them.
func TestSetupScopes(t *testing.T) {
	for _, c := range []struct {
		scope, mcp, hooks string
		mcpPath           func(proj string) []string
	}{
		{"user", "HOME/.claude.json", "HOME/.claude/settings.json", func(string) []string { return nil }},
		{"project", "PROJ/.mcp.json", "PROJ/.claude/settings.json", func(string) []string { return nil }},
		{"local", "HOME/.claude.json", "PROJ/.claude/settings.local.json", func(p string) []string { return []string{"projects", p} }},
	} {
		t.Run(c.scope, func(t *testing.T) {
			s := newSetupEnv(t)
			path := func(p string) string {
				return strings.NewReplacer("HOME", s.home, "PROJ", s.proj).Replace(p)
			}
			s.must(scope(c.scope))
			got := slices.Sorted(maps.Keys(snapshot(t, s.home, s.proj)))
			// and the record of the permissions setup added, which
			// --uninstall reads and removes
			record := path("HOME/.config/agentmem/setup-claude-code.json")
			if want := slices.Sorted(slices.Values([]string{path(c.mcp), path(c.hooks), record})); !slices.Equal(got, want) {
				t.Errorf("files written %v, want %v", got, want)
			}
			keys := append(c.mcpPath(s.proj), "mcpServers", "agentmem")
			if srv, _ := dig(readJSON(t, path(c.mcp)), keys...).(map[string]any); !isAgentmem(srv) {
				t.Errorf("%s: no agentmem server at %v", path(c.mcp), keys)
			}
			if n := ours(commands(readJSON(t, path(c.hooks)), "Stop")); n != 1 {
				t.Errorf("%s: %d Stop hooks of agentmem", path(c.hooks), n)
			}
			// uninstall removes the files setup created, and its record
			s.must(scope(c.scope), uninstall)
			for _, f := range got {
				if _, err := os.Stat(f); !os.IsNotExist(err) {
					t.Errorf("--uninstall left %s, which setup created: %v", f, err)
				}
			}
			// a file the user had, emptied by uninstall, stays
			s.write(".claude/settings.json", "{}")
			s.must(scope(c.scope))
			s.must(scope(c.scope), uninstall)
			sameJSON(t, filepath.Join(s.home, ".claude", "settings.json"), "{}")
		})
	}
}

// A settings file that is not JSON is an error that names it, and no
// file is written, not even the other scope file.
func TestSetupFileNotJSON(t *testing.T) {
	for _, bad := range []string{".claude.json", ".claude/settings.json"} {
		s := newSetupEnv(t)
		s.write(".claude.json", userClaudeJSON)
		s.write(".claude/settings.json", userSettings)
		p := s.write(bad, `{"hooks": {"Stop": [`)
		before := snapshot(t, s.home, s.proj)
		err := s.run()
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a JSON object") {
			t.Errorf("%s not JSON: err = %v, want one naming the file", bad, err)
		}
		if after := snapshot(t, s.home, s.proj); !maps.Equal(before, after) {
			t.Errorf("%s not JSON: setup changed %v", bad, diffKeys(before, after))
		}
	}
}

// Setup's own hook commands are recognised as its own whatever their
// quoting (a binary or data dir with spaces or quotes), and the user's
// commands that only mention agentmem are not.
func TestIsOurHook(t *testing.T) {
	for _, args := range [][]string{
		{"/usr/local/bin/agentmem", "hook", "claude-code"},
		{"/Users/sam/Library/Application Support/agentmem/agentmem", "--data-dir", "/Users/sam/My Memory", "hook", "claude-code", "--per-project"},
		{`C:\Program Files\agentmem\agentmem.exe`, "hook", "claude-code"},
		{"/opt/it's/agentmem", "--namespace", "sam", "hook", "claude-code", "--auto-recall"},
	} {
		if cmd := shellJoin(args); !isOurHook(cmd, "claude-code") {
			t.Errorf("setup's own command %s is not recognised", cmd)
		}
		if got := shellSplit(shellJoin(args)); !slices.Equal(got, args) {
			t.Errorf("shellSplit(shellJoin(%q)) = %q", args, got)
		}
	}
	for _, cmd := range []string{
		"echo agentmem hook claude-code",
		"notify-send done",
		"/usr/bin/agentmem-notify hook codex",
		"agentmem",
	} {
		if isOurHook(cmd, "claude-code") {
			t.Errorf("the user's command %q taken for agentmem's", cmd)
		}
	}
}

// An MCP server named agentmem that runs another program is the user's:
// setup says so and writes nothing, and --uninstall leaves it.
func TestSetupOtherServerNamedAgentmem(t *testing.T) {
	s := newSetupEnv(t)
	theirs := `{"mcpServers": {"agentmem": {"command": "docker", "args": ["run", "-i", "agentmem"]}}}`
	claudeJSON := s.write(".claude.json", theirs)
	before := snapshot(t, s.home, s.proj)
	if err := s.run(); err == nil || !strings.Contains(err.Error(), claudeJSON) || !strings.Contains(err.Error(), "docker") {
		t.Errorf("err = %v, want one naming the file and the other program", err)
	}
	s.must(uninstall)
	if after := snapshot(t, s.home, s.proj); !maps.Equal(before, after) {
		t.Errorf("changed %v", diffKeys(before, after))
	}
}

// Settings kept elsewhere behind a symbolic link (a dotfiles repository)
// are edited there, the link kept; a file's mode is kept; the user's text
// is written as typed.
func TestSetupKeepsLinksModesAndText(t *testing.T) {
	s := newSetupEnv(t)
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(dotfiles), 0o755)
	os.WriteFile(dotfiles, []byte(userSettings), 0o640)
	link := filepath.Join(s.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	s.must()
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link (%v)", link, err)
	}
	b, _ := os.ReadFile(dotfiles)
	if ours(commands(readJSON(t, dotfiles), "Stop")) != 1 {
		t.Errorf("the linked file was not edited:\n%s", b)
	}
	if !strings.Contains(string(b), "notify-send 'Claude is done' && echo <done> >> ~/log") {
		t.Errorf("the user's hook is not written as typed:\n%s", b)
	}
	if st, _ := os.Stat(dotfiles); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 as before", st.Mode().Perm())
	}
}

// A settings file of null or with text after its object is refused (it
// was a panic for null).
func TestSetupOddJSON(t *testing.T) {
	for _, content := range []string{"null", "[]", `{"a": 1} {"b": 2}`, `"text"`} {
		s := newSetupEnv(t)
		p := s.write(".claude/settings.json", content)
		if err := s.run(); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v", content, err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%s became %s", content, b)
		}
	}
}

// What holds none of agentmem's hooks is left exactly as it is: a group
// with an empty list of hooks or none, an event that is not a list (setup
// wrote "hooks": null into such groups, and dropped such events).
func TestSetupLeavesOddHooksAlone(t *testing.T) {
	s := newSetupEnv(t)
	odd := `{"hooks": {"Stop": [], "Notification": [{"matcher": "x", "hooks": []}, {"matcher": "y"}], "PostToolUse": "not a list"}}`
	settings := s.write(".claude/settings.json", odd)
	s.must()
	doc := readJSON(t, settings)
	if n := dig(doc, "hooks", "Notification").([]any); !reflect.DeepEqual(n, []any{map[string]any{"matcher": "x", "hooks": []any{}}, map[string]any{"matcher": "y"}}) {
		t.Errorf("Notification became %v", n)
	}
	s.must(uninstall)
	// an event that held only agentmem's hook goes with it: an empty list
	// before setup cannot be told from none
	sameJSON(t, settings, strings.Replace(odd, `"Stop": [], `, "", 1))
}

// setup registers the lean hooks binary when it sits beside agentmem, and
// agentmem itself, saying why, when it does not.
func TestHookBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "agentmem")
	if got, why := hookBinary(exe); got != exe || !strings.Contains(why, "agentmem-hook is not beside it") {
		t.Errorf("without agentmem-hook: %q, %q", got, why)
	}
	lean := filepath.Join(dir, "agentmem-hook")
	if err := os.WriteFile(lean, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, why := hookBinary(exe); got != lean || why != "" {
		t.Errorf("with agentmem-hook beside agentmem: %q, %q", got, why)
	}
	if !isOurHook(shellJoin([]string{lean, "hook", "claude-code"}), "claude-code") || !isOurHook(shellJoin([]string{lean, "hook", "codex"}), "codex") {
		t.Error("agentmem-hook's command is not recognised as agentmem's hook (setup would add it twice, --uninstall would leave it)")
	}
}

// setup registers the server and the hooks with the embedder's and the
// reranker's settings (their keys stay in the environment): a server
// started without them would embed with another model, or not rerank.
func TestCarriedFlags(t *testing.T) {
	cfg := backend.Config{Embedder: "openai", Store: "embedded",
		OpenAI:   backend.OpenAIConfig{BaseURL: "http://localhost:11434/v1", Model: "nomic-embed-text", APIKey: "sk-secret", Dims: 256},
		Reranker: backend.RerankerConfig{URL: "http://localhost:8080/v1/rerank", Model: "bge", APIKey: "rk-secret", API: "tei", Timeout: 3 * time.Second, Candidates: 30}}
	cfg.Namespace, cfg.Timezone = "default", "Local"
	got := strings.Join(carried(cfg), " ")
	want := "--embedder openai --openai-base-url http://localhost:11434/v1 --openai-model nomic-embed-text --openai-dims 256 " +
		"--reranker-url http://localhost:8080/v1/rerank --reranker-model bge --reranker-api tei --reranker-timeout 3s --reranker-candidates 30"
	if got != want {
		t.Errorf("carried %q\nwant    %q", got, want)
	}
	if strings.Contains(got, "secret") {
		t.Error("a key was carried")
	}
	// the defaults carry nothing
	cfg = backend.Config{Embedder: "builtin", Store: "embedded", OpenAI: backend.OpenAIConfig{BaseURL: "https://api.openai.com/v1", Model: "text-embedding-3-small"},
		Reranker: backend.RerankerConfig{API: "cohere", Timeout: 10 * time.Second}}
	cfg.Namespace, cfg.Timezone = "default", "Local"
	if got := carried(cfg); len(got) != 0 {
		t.Errorf("defaults carried %q", got)
	}
}

// A permission the user had given before setup, the same as one setup
// adds, is the user's: --uninstall leaves it, and says so (a new-user
// trial found it removed).
func TestSetupUninstallKeepsTheUsersRules(t *testing.T) {
	s := newSetupEnv(t)
	mine := `{"permissions": {"allow": ["mcp__agentmem__recall"]}}`
	settings := s.write(".claude/settings.json", mine)
	s.must()
	if allow := dig(readJSON(t, settings), "permissions", "allow"); !slices.Equal(allow.([]any), []any{"mcp__agentmem__recall", "mcp__agentmem__today"}) {
		t.Errorf("after setup allow = %v", allow)
	}
	s.must() // a second run adds nothing, and forgets nothing it added
	s.must(uninstall)
	sameJSON(t, settings, mine)
}

// A project reached by another path (a symbolic link) is the same
// project: --uninstall by the link removes what setup added by the real
// path (a review found it left both rules and a {} file).
func TestSetupUninstallByAnotherPath(t *testing.T) {
	s := newSetupEnv(t)
	link := filepath.Join(filepath.Dir(s.proj), "garden-link")
	if err := os.Symlink(s.proj, link); err != nil {
		t.Fatal(err)
	}
	s.must(scope("project"))
	real := s.proj
	s.proj = link
	s.must(scope("project"), uninstall)
	for _, f := range []string{filepath.Join(real, ".mcp.json"), filepath.Join(real, ".claude", "settings.json")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("uninstall by a link to the project left %s: %v", f, err)
		}
	}
}

// The hooks' budgets are set by setup (an edited hook command is one
// Codex no longer trusts): they reach every hook's command, as the hook
// reads them, and a budget the hooks could not use is refused.
func TestSetupHookBudgets(t *testing.T) {
	s := newSetupEnv(t)
	settings := filepath.Join(s.home, ".claude", "settings.json")
	s.must(autoRecall, func(c *setupClaudeCmd) { c.RecallTokens, c.StartTokens = 300, 400 })
	for _, event := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		cmds := commands(readJSON(t, settings), event)
		if len(cmds) != 1 || !strings.HasSuffix(cmds[0], "hook claude-code --auto-recall --recall-tokens 300 --start-tokens 400") {
			t.Errorf("%s hooks: %q", event, cmds)
		}
	}
	s.must() // the defaults: nothing said
	if cmds := commands(readJSON(t, settings), "Stop"); len(cmds) != 1 || !strings.HasSuffix(cmds[0], "hook claude-code") {
		t.Errorf("Stop hooks after a setup with the defaults: %q", cmds)
	}
	for _, tc := range []struct {
		opt  func(*setupClaudeCmd)
		want string
	}{
		{func(c *setupClaudeCmd) { c.AutoRecall, c.RecallTokens = true, 0 }, "--recall-tokens must be at least 1 and at most 100000, got 0"},
		{func(c *setupClaudeCmd) { c.StartTokens = -1 }, "--start-tokens must be at least 0 (none) and at most 100000, got -1"},
		{func(c *setupClaudeCmd) { c.RecallTokens = 300 }, "--recall-tokens is the budget of --auto-recall: give both"},
	} {
		if err := s.run(tc.opt); err == nil || err.Error() != tc.want {
			t.Errorf("setup: %v, want %q", err, tc.want)
		}
	}
}

package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// setup codex's part that needs no codex binary: hooks.json merged with the
// user's hooks, idempotent, and removed exactly; without codex, a clear
// error and nothing changed. The whole of it (config.toml and the trust,
// through Codex) runs in the real-host test, evals/host.

const userHooks = `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]},
      {"matcher": "", "hooks": [{"type": "command", "command": "/usr/bin/agentmem-old hook claude-code"}]}
    ],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    "PostToolUse": [],
    "SubagentStop": [{"hooks": []}]
  },
  "other": {"kept": true}
}`

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSetCodexHooks(t *testing.T) {
	const cmd = "/opt/bin/agentmem --data-dir /d hook codex"
	doc := decode(t, userHooks)
	setCodexHooks(doc, cmd, hookEvents, false)
	once, _ := json.Marshal(doc)
	setCodexHooks(doc, cmd, hookEvents, false)
	if twice, _ := json.Marshal(doc); string(twice) != string(once) {
		t.Errorf("a second setup changed hooks.json:\n%s\n%s", once, twice)
	}
	hooks := doc["hooks"].(map[string]any)
	for _, ev := range hookEvents {
		groups := hooks[ev].([]any)
		last := groups[len(groups)-1].(map[string]any)["hooks"].([]any)[0].(map[string]any)
		if last["command"] != cmd || (ev == "SessionEnd") != (last["timeout"] == 3) {
			t.Errorf("%s: %v", ev, last)
		}
	}
	if n := len(hooks["Stop"].([]any)); n != 3 {
		t.Errorf("Stop has %d groups, want the user's two and agentmem's", n)
	}
	setCodexHooks(doc, cmd, hookEvents, true)
	if want := decode(t, userHooks); !reflect.DeepEqual(doc, want) {
		got, _ := json.MarshalIndent(doc, "", "  ")
		t.Errorf("uninstall left:\n%s\nwant the user's file as it was", got)
	}
}

func TestIsOurCodexHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/bin/agentmem hook codex":                         true,
		"'/path with space/agentmem' --data-dir /d hook codex": true,
		"/opt/bin/agentmem hook claude-code":                   false,
		"codex hook codex":                                     false,
		"notify-send agentmem hook codex":                      false,
	} {
		if got := isOurHook(cmd, "codex"); got != want {
			t.Errorf("isOurHook(%q, codex) = %v", cmd, got)
		}
	}
}

func TestSetupCodexWithoutCodex(t *testing.T) {
	home := t.TempDir()
	e := hookEnv(t)
	err := setupCodexCmd{Codex: filepath.Join(home, "no-codex"), home: home, hookFlags: hookFlags{RecallTokens: defaultRecallTokens}}.Run(e)
	if err == nil || !strings.Contains(err.Error(), "needs the codex binary") || !strings.Contains(err.Error(), "nothing changed") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("hooks.json written without codex: %v", err)
	}
}

// A codex that fails (here one that exits at once) leaves hooks.json as it
// was, absent or the user's: no half-install (a new-user trial found it
// rewritten and the setup failed).
func TestSetupCodexFailingCodexRestoresHooks(t *testing.T) {
	falseBin, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false binary on PATH to play a failing codex")
	}
	home := t.TempDir()
	e := hookEnv(t)
	hooks := filepath.Join(home, ".codex", "hooks.json")
	if err := (setupCodexCmd{Codex: falseBin, home: home, hookFlags: hookFlags{RecallTokens: defaultRecallTokens}}).Run(e); err == nil || !strings.Contains(err.Error(), "was put back as it was") {
		t.Fatalf("err = %v, want a failure saying hooks.json is as it was", err)
	}
	if _, err := os.Stat(hooks); !os.IsNotExist(err) {
		t.Errorf("hooks.json left behind by a failed setup: %v", err)
	}
	users := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"my-own-hook"}]}]}}`
	os.WriteFile(hooks, []byte(users), 0o600)
	if err := (setupCodexCmd{Codex: falseBin, home: home, hookFlags: hookFlags{RecallTokens: defaultRecallTokens}}.Run(e)); err == nil {
		t.Fatal("setup with a failing codex succeeded")
	}
	if got, _ := os.ReadFile(hooks); string(got) != users {
		t.Errorf("hooks.json after a failed setup:\n%s\nwant the user's:\n%s", got, users)
	}
}

// --uninstall --dry-run says what --uninstall does to a hooks.json setup
// created: it is removed, not left as {} (the dry run said "would become
// {}").
func TestSetupCodexDryRunUninstallSaysRemoved(t *testing.T) {
	home := t.TempDir()
	e := hookEnv(t)
	hooks := filepath.Join(home, ".codex", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(hooks), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooks, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"agentmem hook codex"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	record, err := recordFile(home, "setup-codex.json")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := readSetupRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	rec.noteFiles(fileOutcome{created: []string{hooks}})
	if err := rec.save(record); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	err = setupCodexCmd{Codex: filepath.Join(home, "no-codex"), home: home, DryRun: true, Uninstall: true, hookFlags: hookFlags{RecallTokens: defaultRecallTokens}}.Run(e)
	os.Stdout = saved
	w.Close()
	out, _ := io.ReadAll(r)
	if err != nil || !strings.Contains(string(out), hooks+" would be removed") {
		t.Errorf("dry run: %v\n%s", err, out)
	}
	if _, err := os.Stat(hooks); err != nil {
		t.Errorf("a dry run changed hooks.json: %v", err)
	}
}

// The trust entries noted are each Codex home's own: a setup of one home
// replaces that home's, and keeps another's (one record serves every
// CODEX_HOME; a setup of a second home had dropped the first's, so its
// stale entries were left for good).
func TestNoteTrustPerHome(t *testing.T) {
	home := t.TempDir()
	one, two := filepath.Join(home, "a", "hooks.json"), filepath.Join(home, "b", "hooks.json")
	rec := &setupRecord{}
	rec.noteTrust(one, map[string]string{one + ":stop:1:0": "h1", one + ":session_start:0:0": "h2"})
	rec.noteTrust(two, map[string]string{two + ":stop:0:0": "h3"})
	rec.noteTrust(one, map[string]string{one + ":stop:0:0": "h1"})
	want := map[string]string{one + ":stop:0:0": "h1", two + ":stop:0:0": "h3"}
	if !reflect.DeepEqual(rec.Trusted, want) {
		t.Errorf("noted %v, want %v", rec.Trusted, want)
	}
	rec.noteTrust(two, nil) // --uninstall of the second home
	if want := map[string]string{one + ":stop:0:0": "h1"}; !reflect.DeepEqual(rec.Trusted, want) {
		t.Errorf("after the second home's uninstall: %v, want %v", rec.Trusted, want)
	}
	if got, want := parseTrustKey("/x/y:z/hooks.json:user_prompt_submit:2:1"), (trustKey{"/x/y:z/hooks.json", "user_prompt_submit", 2, 1}); got != want {
		t.Errorf("parseTrustKey = %+v, want %+v", got, want)
	}
}

// --uninstall keeps the trust of the user's hooks that move up as
// agentmem's go (Codex keys trust by a hook's place: the user's Stop hook
// after agentmem's was left untrusted, its entry dangling).
func TestUninstallCarriesTheUsersTrust(t *testing.T) {
	const file = "/h/.codex/hooks.json"
	ours, users := "/bin/agentmem-hook hook codex", "echo user-stop-hook"
	state := func(hashes ...string) codexConfig { // place, hash, …
		var cfg codexConfig
		cfg.Hooks.State = map[string]any{}
		for i := 0; i < len(hashes); i += 2 {
			cfg.Hooks.State[file+":"+hashes[i]] = map[string]any{"trusted_hash": hashes[i+1]}
		}
		return cfg
	}
	hook := func(place, command, hash, status string) codexHook {
		return codexHook{Key: file + ":" + place, Command: command, CurrentHash: hash, TrustStatus: status}
	}
	remove := func(place string) configEdit {
		return configEdit{KeyPath: `hooks.state."` + file + ":" + place + `"`, MergeStrategy: "replace"}
	}
	upsert := func(place, hash string) configEdit {
		return configEdit{KeyPath: "hooks.state", Value: map[string]any{file + ":" + place: map[string]any{"trusted_hash": hash}}, MergeStrategy: "upsert"}
	}
	for _, tc := range []struct {
		name          string
		cfg           codexConfig
		before, after []codexHook
		want          []configEdit
	}{{
		"the user's hook after agentmem's moves up, trusted",
		state("stop:0:0", "h-ours", "session_start:0:0", "h-ours-start", "stop:1:0", "h-user"),
		[]codexHook{hook("session_start:0:0", ours, "h-ours-start", "trusted"), hook("stop:0:0", ours, "h-ours", "trusted"), hook("stop:1:0", users, "h-user", "trusted")},
		[]codexHook{hook("stop:0:0", users, "h-user", "modified")},
		[]configEdit{remove("session_start:0:0"), remove("stop:1:0"), upsert("stop:0:0", "h-user")},
	}, {
		// the second finds its trust already at its new place: only the
		// last place's entry goes
		"two trusted hooks of one command",
		state("stop:0:0", "h-ours", "stop:1:0", "h-user", "stop:2:0", "h-user"),
		[]codexHook{hook("stop:0:0", ours, "h-ours", "trusted"), hook("stop:1:0", users, "h-user", "trusted"), hook("stop:2:0", users, "h-user", "trusted")},
		[]codexHook{hook("stop:0:0", users, "h-user", "modified"), hook("stop:1:0", users, "h-user", "trusted")},
		[]configEdit{remove("stop:2:0"), upsert("stop:0:0", "h-user")},
	}, {
		"an untrusted hook stays untrusted, the trusted one after it keeps its trust",
		state("stop:0:0", "h-ours", "stop:2:0", "h60"),
		[]codexHook{hook("stop:0:0", ours, "h-ours", "trusted"), hook("stop:1:0", users, "h5", "untrusted"), hook("stop:2:0", users, "h60", "trusted")},
		[]codexHook{hook("stop:0:0", users, "h5", "modified"), hook("stop:1:0", users, "h60", "untrusted")},
		[]configEdit{remove("stop:0:0"), remove("stop:2:0"), upsert("stop:1:0", "h60")},
	}, {
		// an entry the user had left for another hook (its hash not the
		// hook's there) would trust the hook that moves onto it
		"an untrusted hook does not take a stale entry's trust",
		state("stop:0:0", "h-ours", "stop:1:0", "hQ", "pre_tool_use:0:0", "hZ"),
		[]codexHook{hook("pre_tool_use:0:0", "echo z", "hZ", "trusted"), hook("stop:0:0", ours, "h-ours", "trusted"), hook("stop:1:0", "echo p", "hP", "modified"), hook("stop:2:0", "echo q", "hQ", "untrusted")},
		[]codexHook{hook("pre_tool_use:0:0", "echo z", "hZ", "trusted"), hook("stop:0:0", "echo p", "hP", "modified"), hook("stop:1:0", "echo q", "hQ", "trusted")},
		[]configEdit{remove("stop:0:0"), remove("stop:1:0")},
	}, {
		"nothing of the user's: the table goes whole",
		state("stop:0:0", "h-ours"),
		[]codexHook{hook("stop:0:0", ours, "h-ours", "trusted")},
		nil,
		[]configEdit{{KeyPath: "hooks.state", MergeStrategy: "replace"}},
	}} {
		if got := uninstallEdits(tc.cfg, tc.before, tc.after, nil); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n%+v\nwant\n%+v", tc.name, got, tc.want)
		}
	}
}

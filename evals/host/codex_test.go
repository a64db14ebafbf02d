package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The second real host: Codex CLI from npm, run as `codex exec` against a
// scripted Responses API model on loopback, with agentmem registered by
// `agentmem setup codex` over a user's config.toml. Two sessions are
// captured through the hooks, the hook is run again (nothing stored twice),
// one session is resumed (its new turns appended), a third session's recall
// inside Codex shows the model the dated passages after "Today is", and
// --uninstall gives the user's config.toml back byte for byte. Where npm or
// the package is unreachable the test skips and says why;
// AGENTMEM_TEST_CODEX=PATH runs a codex binary already installed.

func codexBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTMEM_TEST_CODEX"); p != "" {
		return p
	}
	if _, ok := codexTriples[runtime.GOOS+"/"+runtime.GOARCH]; !ok {
		t.Skipf("Codex CLI's npm package is tested on Linux and macOS (x64, arm64), not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("skipping the Codex real-host test: npm is not installed (it installs Codex CLI from npm)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bin, err := InstallCodex(ctx, "", t.Logf)
	if err != nil {
		t.Skipf("skipping the Codex real-host test: Codex CLI could not be installed from npm: %v", err)
	}
	return bin
}

// codexScript is the test's model: "Recall: Q" makes it call recall with
// Q; any other prompt it answers "Noted: PROMPT"; after a tool's output it
// says it has read it.
func codexScript(r CodexRequest) Reply {
	if len(r.ToolOutputs()) > 0 {
		return Reply{Text: "I have read the memories."}
	}
	p := r.Prompt()
	if q, ok := strings.CutPrefix(p, "Recall: "); ok {
		return Reply{ToolName: "mcp__agentmem__recall", ToolArgs: map[string]any{"query": q}}
	}
	return Reply{Text: "Noted: " + p}
}

type codexEnv struct {
	env
	codex Codex
}

// agentmem runs the agentmem binary as the user would, in Codex's home.
func (e codexEnv) agentmem(stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.am, append([]string{"--data-dir", e.data, "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "CODEX_HOME="+filepath.Join(e.home, ".codex"), "NO_COLOR=1")
	cmd.Dir = e.dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("agentmem %v: %v\n%s%s", args, err, out.String(), stderr.String())
	}
	return out.String()
}

func (e codexEnv) prompt(ctx context.Context, p string) CodexRun {
	e.t.Helper()
	r, err := e.codex.Prompt(ctx, e.dir, p)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestCodexRealHost(t *testing.T) {
	bin := codexBinary(t)
	home := t.TempDir()
	e := codexEnv{env: env{t: t, am: agentmemBinary(t), home: home, data: filepath.Join(home, "data"), dir: filepath.Join(home, "project")}}
	model, err := StartCodexModel(codexScript)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	e.codex = Codex{Binary: bin, Home: home, Model: model}
	config := filepath.Join(home, ".codex", "config.toml")
	users := "# the user's own configuration, comments and all\n" + e.codex.ProviderConfig()
	for _, dir := range []string{e.dir, filepath.Dir(config)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(config, []byte(users), 0o600); err != nil {
		t.Fatal(err)
	}
	checkSetup(t, e, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	one := "My sister Ana moved to Lisbon in March."
	two := "I adopted a golden retriever named Biscuit 🐕, and I'm teaching him «sitz»."
	r1, r2 := e.prompt(ctx, one), e.prompt(ctx, two)
	want1 := []string{"user: " + one, "assistant: Noted: " + one}
	assertSession(t, e.env, r1.SessionID, want1)
	assertSession(t, e.env, r2.SessionID, []string{"user: " + two, "assistant: Noted: " + two})

	// the hook run again, three times: nothing stored twice
	rollout := findRollout(t, home, r1.SessionID)
	stop := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, r1.SessionID, rollout, e.dir)
	for range 3 {
		e.agentmem(stop, "hook", "codex")
	}
	assertSession(t, e.env, r1.SessionID, want1)

	// a resumed session appends its new turns
	three := "Ana's new flat is in Alfama."
	if r, err := e.codex.Resume(ctx, e.dir, r1.SessionID, three); err != nil || r.SessionID != r1.SessionID {
		t.Fatalf("resume: %+v %v", r, err)
	}
	assertSession(t, e.env, r1.SessionID, append(want1, "user: "+three, "assistant: Noted: "+three))

	// a third session recalls inside Codex
	before := len(model.Requests())
	e.prompt(ctx, "Recall: Where does my sister live?")
	reqs := model.Requests()[before:]
	checkRecallShown(t, reqs, r1.SessionID)

	// set up again with --auto-recall (every hook's command changes, so
	// does its trust): a prompt gets the memories bearing on it
	e.agentmem("", "setup", "codex", "--auto-recall", "--codex", bin)
	before = len(model.Requests())
	e.prompt(ctx, "Which city did Ana move to?")
	checkAutoRecall(t, model.Requests()[before:], r1.SessionID)

	// uninstall gives the user's config back, and removes the hooks.json
	// setup created
	e.agentmem("", "setup", "codex", "--uninstall", "--codex", bin)
	if got, _ := os.ReadFile(config); string(got) != users {
		t.Errorf("after --uninstall config.toml is:\n%s\nwant the user's:\n%s", got, users)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); !os.IsNotExist(err) {
		t.Errorf("after --uninstall the hooks.json setup created is left: %v", err)
	}
}

// checkSetup runs setup twice: the second run changes nothing.
func checkSetup(t *testing.T, e codexEnv, bin string) {
	t.Helper()
	out := e.agentmem("", "setup", "codex", "--codex", bin)
	if !strings.Contains(out, "run by "+filepath.Join(filepath.Dir(e.am), "agentmem-hook")) {
		t.Errorf("setup did not register the lean hooks binary beside agentmem: %s", out)
	}
	if !strings.Contains(out, "hooks.json: updated") || !strings.Contains(out, "config.toml: updated") {
		t.Fatalf("setup: %s", out)
	}
	out = e.agentmem("", "setup", "codex", "--codex", bin)
	if !strings.Contains(out, "hooks.json: unchanged") || !strings.Contains(out, "config.toml: unchanged") {
		t.Errorf("setup run again changed something: %s", out)
	}
}

// checkRecallShown asserts what the third session's model was given: the
// date from the SessionStart hook, agentmem's tools from the first request
// on, and recall's text: "Today is", then session's dated passage.
func checkRecallShown(t *testing.T, reqs []CodexRequest, session string) {
	t.Helper()
	if len(reqs) < 2 {
		t.Fatalf("the recall session made %d requests, want the call and the answer", len(reqs))
	}
	if !reqs[0].HasTool("mcp__agentmem__recall") {
		t.Errorf("the session's first request offers no mcp__agentmem__recall: Codex did not wait for agentmem's tools")
	}
	if !bytes.Contains(reqs[0].Raw, []byte("Today is ")) {
		t.Errorf("the session's first request carries no SessionStart 'Today is ...'")
	}
	var out CodexContent
	for _, r := range reqs {
		for _, o := range r.ToolOutputs() {
			out = o.Output
		}
	}
	if len(out) == 0 {
		t.Fatal("no request carried a tool output: Codex did not run recall")
	}
	// Codex hands the model a "Wall time ... Output:" part, then the tool's
	shown, text := out.Text(), out[len(out)-1].Text
	if !strings.HasPrefix(text, "Today is ") {
		t.Errorf("recall's text does not start with 'Today is': %q", text)
	}
	if strings.Contains(text, session) {
		t.Errorf("recall's text shows session %s's whole id:\n%s", session, text)
	}
	header := regexp.MustCompile(`(?m)^\[\d{4}-\d{2}-\d{2} [A-Z][a-z]{2} · session ` + startOf(session) + `\]$`)
	if !header.MatchString(text) || !strings.Contains(text, "\nuser: My sister Ana moved to Lisbon in March") {
		t.Errorf("the model was shown:\n%s\nwant 'Today is ...', then session %s's dated passage", shown, session)
	}
	if strings.Contains(shown, `"memories"`) {
		t.Errorf("the model was shown recall's JSON:\n%s", shown)
	}
}

// findRollout is the path of a session's rollout under home.
func findRollout(t *testing.T, home, session string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*-"+session+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("rollouts of session %s: %v", session, files)
	}
	return files[0]
}

// checkAutoRecall asserts that the prompt's first request carries the
// UserPromptSubmit hook's memories: session's dated passage.
func checkAutoRecall(t *testing.T, reqs []CodexRequest, session string) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the auto-recall session made no request")
	}
	for _, it := range reqs[0].Input {
		for _, p := range it.Content {
			if strings.HasPrefix(p.Text, "Memories that may bear on this prompt") {
				// a passage of the session's turns, or its one turn that
				// clears the hook's floor, alone under a header that names
				// its role (which turns clear the floor moves with the
				// vectors' last digits, which differ between CPUs)
				passage := regexp.MustCompile(`· session `+startOf(session)+`\]`).MatchString(p.Text) && strings.Contains(p.Text, "\nuser: My sister Ana moved to Lisbon in March")
				alone := regexp.MustCompile(`· session ` + startOf(session) + ` · user\]\n  My sister Ana moved to Lisbon in March`).MatchString(p.Text)
				if !passage && !alone {
					t.Errorf("the prompt's memories:\n%s\nwant session %s's passage", p.Text, session)
				}
				return
			}
		}
	}
	t.Errorf("no input of the prompt's request carries the UserPromptSubmit hook's memories")
}

// startOf is a pattern of the starts a recall's header may name a UUID
// session by: 8 characters of its id or more, to start no other session's
// (Codex's ids are UUIDv7, which begin with their time, so two sessions
// begun within a minute share their first 8), never the whole id.
func startOf(session string) string {
	var alts []string
	for n := 8; n < len(session); n++ {
		if session[n-1] != '-' {
			alts = append(alts, regexp.QuoteMeta(session[:n]))
		}
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// Codex keys a hook's trust by its place in hooks.json: a hook of the
// user's before agentmem's removed, agentmem's move up and setup trusts
// them there. The entries it wrote for their old places go too, when setup
// runs again and at --uninstall, which then gives the user's config.toml
// back byte for byte (a new user's trial found them left behind).
func TestCodexStaleTrust(t *testing.T) {
	bin := codexBinary(t)
	home := t.TempDir()
	e := codexEnv{env: env{t: t, am: agentmemBinary(t), home: home, data: filepath.Join(home, "data"), dir: filepath.Join(home, "project")}}
	codexDir := filepath.Join(home, ".codex")
	for _, dir := range []string{e.dir, codexDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config, hooks := filepath.Join(codexDir, "config.toml"), filepath.Join(codexDir, "hooks.json")
	users := "# the user's own configuration\n"
	if err := os.WriteFile(config, []byte(users), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`
	if err := os.WriteFile(hooks, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	e.agentmem("", "setup", "codex", "--codex", bin)
	// the user removes their own hook: agentmem's Stop hook moves up
	var doc map[string]any
	b, err := os.ReadFile(hooks)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	stop := doc["hooks"].(map[string]any)["Stop"].([]any)
	doc["hooks"].(map[string]any)["Stop"] = stop[1:]
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooks, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.agentmem("", "setup", "codex", "--codex", bin)
	got, _ := os.ReadFile(config)
	if n := strings.Count(string(got), ":stop:"); n != 1 {
		t.Errorf("config.toml trusts %d Stop hooks after setup ran again, want agentmem's one:\n%s", n, got)
	}
	e.agentmem("", "setup", "codex", "--uninstall", "--codex", bin)
	if got, _ := os.ReadFile(config); string(got) != users {
		t.Errorf("after --uninstall config.toml is:\n%s\nwant the user's:\n%s", got, users)
	}
}

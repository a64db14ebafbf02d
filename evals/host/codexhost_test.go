package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"agentmem/evals/peers"
)

// CodexVersion is the Codex CLI release the tests run (npm @openai/codex;
// its native binary comes as an optional npm package per platform).
const CodexVersion = "0.171.0"

var codexPackage = peers.Package{Name: "@openai/codex", Version: CodexVersion, Entry: "bin/codex.js"}

// codexTriples are the native binaries' folders, by platform.
var codexTriples = map[string]string{
	"linux/amd64": "codex-linux-x64/vendor/x86_64-unknown-linux-musl", "linux/arm64": "codex-linux-arm64/vendor/aarch64-unknown-linux-musl",
	"darwin/amd64": "codex-darwin-x64/vendor/x86_64-apple-darwin", "darwin/arm64": "codex-darwin-arm64/vendor/aarch64-apple-darwin",
}

// InstallCodex installs Codex CLI with npm into the peers' cache (cache ""
// is its default) and returns the path of its codex binary: the native one
// where npm installed it, else the Node launcher.
func InstallCodex(ctx context.Context, cache string, log func(string, ...any)) (string, error) {
	inst, err := peers.Installer{CacheDir: cache, Log: log}.Install(ctx, codexPackage)
	if err != nil {
		return "", err
	}
	if dir, ok := codexTriples[runtime.GOOS+"/"+runtime.GOARCH]; ok {
		native := filepath.Join(inst.Dir, "node_modules", "@openai", filepath.FromSlash(dir), "bin", "codex")
		if _, err := os.Stat(native); err == nil {
			return native, nil
		}
	}
	return inst.Entry, nil
}

// Codex runs real `codex exec` sessions against a scripted model, in a home
// of their own (its config, its rollouts).
type Codex struct {
	Binary string // the codex binary
	Home   string // HOME of every run; Codex's home is Home/.codex
	Model  *CodexModel
	Env    []string
}

// CodexRun is one finished codex exec run.
type CodexRun struct {
	SessionID string // Codex's session (thread) id
	Result    string // the model's last reply
	Output    string // what codex printed (its JSON Lines events)
	Stderr    string
}

// ProviderConfig is the config.toml text that makes the scripted model
// Codex's model provider, offline.
func (c Codex) ProviderConfig() string {
	return fmt.Sprintf(`model = "scripted"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted model (agentmem tests)"
base_url = %q
env_key = "AGENTMEM_SCRIPTED_KEY"
wire_api = "responses"
`, c.Model.URL)
}

// Prompt runs `codex exec prompt` in dir (a project directory).
func (c Codex) Prompt(ctx context.Context, dir, prompt string) (CodexRun, error) {
	return c.exec(ctx, dir, prompt)
}

// Resume runs `codex exec resume session prompt`: Codex appends to the
// session's rollout.
func (c Codex) Resume(ctx context.Context, dir, session, prompt string) (CodexRun, error) {
	return c.exec(ctx, dir, prompt, "resume", session)
}

func (c Codex) exec(ctx context.Context, dir, prompt string, sub ...string) (CodexRun, error) {
	args := append([]string{"exec", "--skip-git-repo-check", "--json"}, sub...)
	out, stderr, err := run(ctx, c.Binary, dir, append(args, "--", prompt), append(c.Environ(), c.Env...))
	r := CodexRun{Output: out.String(), Stderr: stderr}
	if err != nil {
		return r, fmt.Errorf("codex exec %.40q: %w\n%s", prompt, err, peers.Tail(r.Stderr+r.Output, 2000))
	}
	var failed string
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Item     struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "thread.started":
			r.SessionID = ev.ThreadID
		case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
			r.Result = ev.Item.Text
		case ev.Type == "turn.failed":
			failed = ev.Error.Message
		}
	}
	if r.SessionID == "" || failed != "" {
		return r, fmt.Errorf("codex exec %.40q: no session, or the turn failed (%s)\n%s", prompt, failed, peers.Tail(r.Stderr+r.Output, 2000))
	}
	return r, nil
}

// Environ is what codex runs with: offline, against the scripted model, in
// its own home.
func (c Codex) Environ() []string {
	return offline("HOME="+c.Home, "CODEX_HOME="+filepath.Join(c.Home, ".codex"), "AGENTMEM_SCRIPTED_KEY=scripted", "NO_COLOR=1")
}

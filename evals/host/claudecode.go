package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"agentmem/evals/peers"
)

// ClaudeCodeVersion is the Claude Code release the tests and the host
// eval run (npm @anthropic-ai/claude-code; its native binary comes as an
// optional npm package).
const ClaudeCodeVersion = "2.1.328"

var claudePackage = peers.Package{
	Name: "@anthropic-ai/claude-code", Version: ClaudeCodeVersion, Entry: "bin/claude.exe",
	AllowScripts: []string{"@anthropic-ai/claude-code"},
}

// InstallClaudeCode installs Claude Code with npm into the peers' cache
// (cache "" is its default) and returns the path of its claude binary.
func InstallClaudeCode(ctx context.Context, cache string, log func(string, ...any)) (string, error) {
	inst, err := peers.Installer{CacheDir: cache, Log: log}.Install(ctx, claudePackage)
	if err != nil {
		return "", err
	}
	return inst.Entry, nil
}

// ClaudeCode runs real `claude -p` sessions against a scripted model, in a
// home of their own (its settings, its transcripts).
type ClaudeCode struct {
	Binary string // the claude binary
	Home   string // HOME of every run
	Model  *Model
	// Args are added to every run (e.g. --mcp-config FILE); Env to its
	// environment.
	Args []string
	Env  []string
}

// Run is one finished claude -p run.
type Run struct {
	SessionID string // Claude Code's session id
	Result    string // the model's last reply
	Output    string // what claude printed (its JSON result)
	Stderr    string
}

// Prompt runs `claude -p prompt` in dir (a project directory) with extra
// arguments (e.g. --resume ID), and returns when the session has ended.
func (c ClaudeCode) Prompt(ctx context.Context, dir, prompt string, extra ...string) (Run, error) {
	args := append([]string{"-p", prompt, "--output-format", "json", "--allowedTools", "mcp__agentmem__recall,mcp__agentmem__today"}, c.Args...)
	out, stderr, err := run(ctx, c.Binary, dir, append(args, extra...), append(c.environ(), c.Env...))
	r := Run{Output: out.String(), Stderr: stderr}
	if err != nil {
		return r, fmt.Errorf("claude -p %.40q: %w\n%s", prompt, err, peers.Tail(r.Stderr+r.Output, 2000))
	}
	var res struct {
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.SessionID == "" {
		return r, fmt.Errorf("claude -p %.40q printed no JSON result with a session id: %v\n%s", prompt, err, peers.Tail(r.Output, 2000))
	}
	r.SessionID, r.Result = res.SessionID, res.Result
	if res.IsError {
		return r, fmt.Errorf("claude -p %.40q ended in an error: %s", prompt, res.Result)
	}
	return r, nil
}

// environ is what claude runs with: offline, against the scripted model,
// in its own home, with MCP tools offered directly (not behind a search).
func (c ClaudeCode) environ() []string {
	return offline(
		"HOME="+c.Home,
		"ANTHROPIC_BASE_URL="+c.Model.URL,
		"ANTHROPIC_API_KEY=scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"ENABLE_TOOL_SEARCH=false",
	)
}

// run runs binary in dir with args and env, and no input, and returns what
// it printed.
func run(ctx context.Context, binary, dir string, args, env []string) (stdout *bytes.Buffer, stderr string, err error) {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Stdin = strings.NewReader("")
	err = cmd.Run()
	return &out, errOut.String(), err
}

// offline is the environment of a host's run: the caller's PATH, TMPDIR,
// LANG and TZ, then extra.
func offline(extra ...string) []string {
	var env []string
	for _, k := range []string{"PATH", "TMPDIR", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Agent is the eval's scripted agent behind real Claude Code: each
// question is one `claude -p QUESTION` session whose scripted model calls
// recall once with the question (in the question's namespace, a detail of
// the harness), and the host's handing of the result to the model is what
// is scored. It implements evals.Host.
type Agent struct {
	CC  ClaudeCode
	Dir string // the project directory claude runs in
	// SetClock sets the clock of the server that the next session's
	// agentmem reaches (the eval serves the memory on the data dir's
	// socket; Claude Code's agentmem relays to it).
	SetClock func(time.Time)

	mu sync.Mutex
	ns string
}

// NewAgent starts the scripted model and writes the MCP configuration
// that makes Claude Code start `agentmem serve` on dataDir (args are
// agentmem's global flags).
func NewAgent(claude, agentmem, dataDir, work string, setClock func(time.Time)) (*Agent, error) {
	a := &Agent{Dir: filepath.Join(work, "project"), SetClock: setClock}
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return nil, err
	}
	cfg := map[string]any{"mcpServers": map[string]any{"agentmem": map[string]any{
		"type": "stdio", "command": agentmem, "args": []string{"--data-dir", dataDir, "--log-level", "warn", "serve"},
	}}}
	b, _ := json.Marshal(cfg)
	mcp := filepath.Join(work, "mcp.json")
	if err := os.WriteFile(mcp, b, 0o600); err != nil {
		return nil, err
	}
	model, err := StartModel(a.script)
	if err != nil {
		return nil, err
	}
	a.CC = ClaudeCode{Binary: claude, Home: filepath.Join(work, "home"), Model: model, Args: []string{"--mcp-config", mcp, "--strict-mcp-config"}}
	return a, os.MkdirAll(a.CC.Home, 0o700)
}

// Close stops the scripted model.
func (a *Agent) Close() error { return a.CC.Model.Close() }

// Name names the host in results.
func (a *Agent) Name() string { return "claude-code" }

func (a *Agent) script(r Request) Reply {
	if len(r.ToolResults()) > 0 {
		return Reply{Text: "Done."}
	}
	return Reply{ToolName: "mcp__agentmem__recall", ToolArgs: map[string]any{"query": prompt(r), "namespace": a.ns}}
}

// Ask runs one session and returns the text of the tool result Claude
// Code handed its model.
func (a *Agent) Ask(ctx context.Context, question, ns string, now time.Time) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ns = ns
	a.SetClock(now)
	before := len(a.CC.Model.Requests())
	if _, err := a.CC.Prompt(ctx, a.Dir, question); err != nil {
		return "", err
	}
	for _, r := range a.CC.Model.Requests()[before:] {
		for _, b := range r.ToolResults() {
			if b.IsError {
				return "", fmt.Errorf("recall inside Claude Code: %s", b.Content.Text())
			}
			return b.Content.Text(), nil
		}
	}
	return "", errors.New("Claude Code did not run recall")
}

// prompt is the user's prompt in a request: the last user text that is
// not a system reminder (a hook's context comes as one, or as a system
// message).
func prompt(r Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		for j := len(m.Content) - 1; j >= 0; j-- {
			if b := m.Content[j]; b.Type == "text" && !strings.HasPrefix(b.Text, "<") {
				return strings.TrimSpace(b.Text)
			}
		}
	}
	return ""
}

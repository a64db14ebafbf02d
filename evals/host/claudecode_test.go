package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real host: Claude Code from npm, run as `claude -p` against a
// scripted model on loopback, with agentmem registered by its own setup
// command. Two sessions are captured through the hooks, the hook is run
// again (nothing stored twice), one session is resumed (its new turns
// appended), a third session's recall inside Claude Code shows the model
// the dated passages after "Today is", a question of the last few days
// alone its digest, and a recall asked as JSON shows
// it a long turn's excerpt, not the whole turn. Where npm or the package is
// unreachable the test skips and says why; AGENTMEM_TEST_CLAUDE=PATH runs
// a claude binary already installed.

// claudeBinary installs Claude Code (or takes AGENTMEM_TEST_CLAUDE).
func claudeBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTMEM_TEST_CLAUDE"); p != "" {
		return p
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("Claude Code's npm package is tested on Linux and macOS, not %s", runtime.GOOS)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("skipping the real-host test: npm is not installed (it installs Claude Code from npm)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := InstallClaudeCode(ctx, "", t.Logf)
	if err != nil {
		t.Skipf("skipping the real-host test: Claude Code could not be installed from npm: %v", err)
	}
	return bin
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// agentmemBinary builds cmd/agentmem once per test binary, with the lean
// hooks binary cmd/agentmem-hook beside it (as go install ./cmd/...
// installs them), so that setup registers the lean one.
func agentmemBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentmem-host")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "agentmem")
		out, err := exec.Command("go", "build", "-o", dir, "agentmem/cmd/agentmem", "agentmem/cmd/agentmem-hook").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		buildErr = WatchSources("agentmem/cmd/agentmem", "agentmem/cmd/agentmem-hook")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	os.Exit(code)
}

// script is the test's model: "Recall: Q" makes it call recall with Q,
// "Recall as JSON: Q" the same with format json; "Keep: P" it answers
// "Noted." (a short turn after a long one), any other prompt "Noted:
// PROMPT"; after a tool result it says it has read it.
func script(r Request) Reply {
	if len(r.ToolResults()) > 0 {
		return Reply{Text: "I have read the memories."}
	}
	p := prompt(r)
	if q, ok := strings.CutPrefix(p, "Recall: "); ok {
		return Reply{ToolName: "mcp__agentmem__recall", ToolArgs: map[string]any{"query": q}}
	}
	if q, ok := strings.CutPrefix(p, "Recall as JSON: "); ok {
		return Reply{ToolName: "mcp__agentmem__recall", ToolArgs: map[string]any{"query": q, "format": "json"}}
	}
	if strings.HasPrefix(p, "Keep: ") {
		return Reply{Text: "Noted."}
	}
	return Reply{Text: "Noted: " + p}
}

type env struct {
	t         *testing.T
	am, data  string
	home, dir string
	cc        ClaudeCode
}

func (e env) agentmem(stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.am, append([]string{"--data-dir", e.data, "--log-level", "warn"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "NO_COLOR=1")
	cmd.Dir = e.dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("agentmem %v: %v\n%s%s", args, err, out.String(), stderr.String())
	}
	return out.String()
}

type stored struct {
	Session, Role, Text, Key string
}

// memories reads the whole memory through agentmem export.
func (e env) memories() []stored {
	e.t.Helper()
	var out []stored
	sc := bufio.NewScanner(strings.NewReader(e.agentmem("", "export")))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var m struct {
			Format    string `json:"format"`
			SessionID string `json:"session_id"`
			Role      string `json:"role"`
			Text      string `json:"text"`
			Key       string `json:"key"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			e.t.Fatalf("export line: %v", err)
		}
		if m.Format == "" {
			out = append(out, stored{m.SessionID, m.Role, m.Text, m.Key})
		}
	}
	return out
}

func (e env) session(id string) []string {
	var out []string
	for _, m := range e.memories() {
		if m.Session == id {
			out = append(out, m.Role+": "+m.Text)
		}
	}
	return out
}

func TestClaudeCodeRealHost(t *testing.T) {
	claude := claudeBinary(t)
	home := t.TempDir()
	e := env{t: t, am: agentmemBinary(t), home: home, data: filepath.Join(home, "data"), dir: filepath.Join(home, "project")}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	model, err := StartModel(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	e.cc = ClaudeCode{Binary: claude, Home: home, Model: model}
	out := e.agentmem("", "setup", "claude-code")
	if !strings.Contains(out, "settings.json: updated") {
		t.Fatalf("setup: %s", out)
	}
	if !strings.Contains(out, "run by "+filepath.Join(filepath.Dir(e.am), "agentmem-hook")) {
		t.Errorf("setup did not register the lean hooks binary beside agentmem: %s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	one := "My sister Ana moved to Lisbon in March."
	two := "I adopted a golden retriever named Biscuit 🐕, and I'm teaching him «sitz»."
	r1 := mustPrompt(t, e, ctx, one)
	r2 := mustPrompt(t, e, ctx, two)
	want1 := []string{"user: " + one, "assistant: Noted: " + one}
	assertSession(t, e, r1.SessionID, want1)
	assertSession(t, e, r2.SessionID, []string{"user: " + two, "assistant: Noted: " + two})

	// the hook run again, three times: nothing stored twice
	stop := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, r1.SessionID, e.cc.Transcript(e.dir, r1.SessionID), e.dir)
	for range 3 {
		e.agentmem(stop, "hook", "claude-code")
	}
	assertSession(t, e, r1.SessionID, want1)

	// a resumed session appends its new turns
	three := "Ana's new flat is in Alfama."
	if r, err := e.cc.Prompt(ctx, e.dir, three, "--resume", r1.SessionID); err != nil || r.SessionID != r1.SessionID {
		t.Fatalf("resume: %+v %v", r, err)
	}
	assertSession(t, e, r1.SessionID, append(want1, "user: "+three, "assistant: Noted: "+three))

	// a third session recalls inside Claude Code
	before := len(model.Requests())
	mustPrompt(t, e, ctx, "Recall: Where does my sister live?")
	shown := toolResult(t, model.Requests()[before:])
	// Claude Code's session ids are UUIDs: the header names one by a start
	// of 8 characters or more, which the session's resource and recall take
	header := regexp.MustCompile(`(?m)^\[\d{4}-\d{2}-\d{2} [A-Z][a-z]{2} · session ` + startOf(r1.SessionID) + `\]$`)
	if !strings.HasPrefix(shown, "Today is ") || !header.MatchString(shown) || !strings.Contains(shown, "\nuser: My sister Ana moved to Lisbon in March") {
		t.Errorf("the model was shown:\n%s\nwant 'Today is ...', then session %s's dated passage, headed by a start of its id", shown, r1.SessionID)
	}
	if strings.Contains(shown, r1.SessionID) {
		t.Errorf("the model was shown session %s's whole id:\n%s", r1.SessionID, shown)
	}
	if strings.Contains(shown, `"memories"`) {
		t.Errorf("the model was shown recall's JSON:\n%s", shown)
	}
	if !sessionStartShown(model.Requests()[before:]) {
		t.Errorf("no request of the third session carries the SessionStart hook's 'Today is ...'")
	}
	// a question of a period alone is shown a digest of its sessions
	// (the last few days: today's sessions, even just past midnight)
	before = len(model.Requests())
	mustPrompt(t, e, ctx, "Recall: What did we talk about in the last few days?")
	shown = toolResult(t, model.Requests()[before:])
	if !strings.HasPrefix(shown, "Today is ") || !strings.Contains(shown, "\n\nA digest of the sessions of \"the last few days\" (") || !strings.Contains(shown, "Ana moved to Lisbon") || !strings.Contains(shown, "Biscuit") {
		t.Errorf("asked what we talked about in the last few days, the model was shown:\n%s\nwant the digest's note, then the sessions", shown)
	}
	recallJSON(t, e, ctx, model)
}

// A long turn (about 150 words) with one fact in its middle, far from its
// first and last sentences.
const (
	longFirst = "This morning the tram to Belém broke down twice"
	longFact  = "My grandfather's violin was made in Cremona in 1921 by a luthier called Ettore Soffritti."
	longLast  = "we cooked a pumpkin risotto with sage"
	longTurn  = longFirst + ", so I walked along the river past the fish market and the old customs house. " +
		"The wind was cold, the cafés were still closed, and a street sweeper told me the ferries had stopped running because of the fog. " +
		"I bought bread at a kiosk, sat on a bench and watched the gulls fight over crumbs for half an hour. " +
		"A man selling roast chestnuts complained about the price of coal this winter. " + longFact +
		" Afterwards I phoned my cousin about the weekend, but she was busy repainting her kitchen and asked me to call back later. " +
		"The afternoon drifted by with laundry, emails and a long nap on the sofa. " +
		"In the evening " + longLast + " and watched the storm roll slowly over the hills."
)

// recallJSON stores a session of one long turn and one short one through
// Claude Code, then recalls with format json in another: Claude Code hands
// its model the structured result (docs/claude-code.md, "What the model
// reads"), which must show the long turn's excerpt, not the whole turn,
// and today's date.
func recallJSON(t *testing.T, e env, ctx context.Context, model *Model) {
	t.Helper()
	kept := mustPrompt(t, e, ctx, "Keep: "+longTurn)
	assertSession(t, e, kept.SessionID, []string{"user: Keep: " + longTurn, "assistant: Noted."})
	before := len(model.Requests())
	mustPrompt(t, e, ctx, "Recall as JSON: Where was my grandfather's violin made?")
	shown := toolResult(t, model.Requests()[before:])
	// an excerpt, of at most three times the excerpt's length when the
	// budget has room for the best hits shown longer: never both ends
	if strings.Contains(shown, longFirst) && strings.Contains(shown, longLast) || !strings.Contains(shown, `"excerpt":true`) {
		t.Errorf("the model was shown the long turn whole, or no excerpt:\n%s", shown)
	}
	shownOf := keptMemories(t, shown, kept.SessionID)
	long, short := shownOf["user"], shownOf["assistant"]
	if !long.Excerpt || !strings.Contains(long.Text, longFact) || !(strings.HasPrefix(long.Text, "…") || strings.HasSuffix(long.Text, "…")) {
		t.Errorf("the long memory the model was shown: excerpt %v, text %q; want its excerpt around %q, marked with …", long.Excerpt, long.Text, longFact)
	}
	if short.Excerpt || short.Text != "Noted." {
		t.Errorf("the short memory the model was shown: excerpt %v, text %q; want it whole", short.Excerpt, short.Text)
	}
	// the date, which the text result's first line gives, is there too
	if !strings.Contains(shown, `"today":"Today is `) {
		t.Errorf("the structured result the model was shown has no today:\n%.300s", shown)
	}
}

type shownMemory struct {
	Text      string `json:"text"`
	Excerpt   bool   `json:"excerpt"`
	Role      string `json:"role"`
	SessionID string `json:"session_id"`
}

// keptMemories decodes the structured recall the model was shown and
// returns session's memories by role (each role holds one turn there).
func keptMemories(t *testing.T, shown, session string) map[string]shownMemory {
	t.Helper()
	var res struct{ Memories []shownMemory }
	if err := json.Unmarshal([]byte(shown), &res); err != nil {
		t.Fatalf("the model was not shown recall's JSON (%v):\n%s", err, shown)
	}
	byRole := map[string]shownMemory{}
	for _, m := range res.Memories {
		if m.SessionID == session {
			byRole[m.Role] = m
		}
	}
	if len(byRole) != 2 {
		t.Fatalf("the model was not shown both turns of session %s:\n%s", session, shown)
	}
	return byRole
}

func mustPrompt(t *testing.T, e env, ctx context.Context, p string) Run {
	t.Helper()
	r, err := e.cc.Prompt(ctx, e.dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func assertSession(t *testing.T, e env, id string, want []string) {
	t.Helper()
	got := e.session(id)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("session %s holds:\n%s\nwant:\n%s", id, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// toolResult is the text of the recall result the model was handed.
func toolResult(t *testing.T, reqs []Request) string {
	t.Helper()
	for _, r := range reqs {
		for _, b := range r.ToolResults() {
			if b.IsError {
				t.Fatalf("recall failed inside Claude Code: %s", b.Content.Text())
			}
			return b.Content.Text()
		}
	}
	t.Fatal(errors.New("no request carried a tool result: Claude Code did not run recall"))
	return ""
}

// sessionStartShown says whether the session's first request (made
// before any tool ran) carries the SessionStart hook's date.
func sessionStartShown(reqs []Request) bool {
	return len(reqs) > 0 && bytes.Contains(reqs[0].Raw, []byte("Today is "))
}

// Transcript is the path of a session's transcript under Home, as Claude
// Code names it (the project directory with every / as -).
func (c ClaudeCode) Transcript(dir, session string) string {
	abs, _ := filepath.Abs(dir)
	return filepath.Join(c.Home, ".claude", "projects", strings.NewReplacer("/", "-", ".", "-").Replace(abs), session+".jsonl")
}

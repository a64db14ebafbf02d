package tools_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.json")

func connect(t *testing.T) *client.Client {
	t.Helper()
	ctx := context.Background()
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, svc)
}

// inProcess is an initialised MCP client of a server over svc.
func inProcess(t *testing.T, svc *memory.Service) *client.Client {
	t.Helper()
	ctx := context.Background()
	c, err := client.NewInProcessClient(server.New(svc, server.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(t *testing.T, c *client.Client, tool string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

func TestToolSchemas(t *testing.T) {
	c := connect(t)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][4]bool{ // readOnly, destructive, idempotent, openWorld
		"remember": {false, false, true, false},
		"recall":   {true, false, true, false},
		"today":    {true, false, true, false},
		"forget":   {false, true, true, false},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		for i, hint := range []*bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint} {
			if hint == nil || *hint != w[i] {
				t.Errorf("%s: hint %d = %v, want %v set explicitly", tool.Name, i, hint, w[i])
			}
		}
		if tool.OutputSchema.Type != "object" {
			t.Errorf("%s has no output schema", tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tools.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantJSON, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -update)", err)
	}
	if strings.TrimSpace(string(wantJSON)) != strings.TrimSpace(string(got)) {
		t.Errorf("tool schemas changed (the public contract); if intended, run go test ./tools -update and review the diff")
	}
}

func TestToolsRoundTrip(t *testing.T) {
	c := connect(t)
	res, text := call(t, c, "remember", map[string]any{
		"session_id": "s-may", "session_date": "2023-05-07",
		"messages": []map[string]any{
			{"role": "user", "content": "Yesterday I ran the Boston marathon!", "speaker": "Caroline"},
			{"role": "assistant", "content": "Congratulations on finishing."},
		},
	})
	if res.IsError || !strings.Contains(text, "Stored 2 turn(s) of session s-may (2023-05-07 Sun)") {
		t.Fatalf("remember: %s", text)
	}
	res, text = call(t, c, "recall", map[string]any{"query": "What did Caroline run?", "k": 1})
	if res.IsError {
		t.Fatal(text)
	}
	if !strings.HasPrefix(text, "[2023-05-07 Sun · session s-may · Caroline (user)]\nYesterday I ran the Boston marathon!") {
		t.Errorf("recall text = %q", text)
	}
	var out struct {
		Memories []map[string]any `json:"memories"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Memories) != 1 {
		t.Fatalf("structured = %s", raw)
	}
	m := out.Memories[0]
	for k, v := range map[string]any{"id": "s-may:0", "role": "user", "speaker": "Caroline", "session_id": "s-may", "session_date": "2023-05-07T00:00:00Z"} {
		if m[k] != v {
			t.Errorf("memory[%s] = %v, want %v", k, m[k], v)
		}
	}
	if _, ok := m["score"].(float64); !ok {
		t.Errorf("memory has no score: %v", m)
	}

	res, text = call(t, c, "today", map[string]any{})
	if res.IsError || text != "Today is Sunday, 7 May 2023 (2023-05-07), 14:00 UTC." {
		t.Errorf("today = %q", text)
	}
	raw, _ = json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"datetime":"2023-05-07T14:00:00Z"`) || !strings.Contains(string(raw), `"weekday":"Sunday"`) {
		t.Errorf("today structured = %s", raw)
	}

	res, text = call(t, c, "recall", map[string]any{"query": "marathon", "namespace": "empty"})
	if res.IsError || text != "No stored memories match." {
		t.Errorf("recall in an empty namespace = %q (error %v)", text, res.IsError)
	}
	res, text = call(t, c, "forget", map[string]any{"session_id": "s-may"})
	if res.IsError || !strings.Contains(text, "Deleted 2 memories") {
		t.Errorf("forget = %q", text)
	}
}

func TestBadInput(t *testing.T) {
	c := connect(t)
	cases := []struct {
		tool string
		args any
		want string
	}{
		{"remember", map[string]any{}, "messages: must hold at least one message"},
		{"remember", map[string]any{"messages": "hello"}, "messages: must be an array"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": 5}}}, "messages.content: must be a string"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": strings.Repeat("x", memory.MaxContentBytes+1)}}}, "limit is 65536 bytes"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}}, "session_date": "the other day-ish"}, "session_date: cannot read"},
		{"recall", map[string]any{"query": "x", "k": 0.5}, "k: must be a number"},
		{"recall", map[string]any{"query": "x", "k": 101}, "k: must be between 1 and 100, got 101"},
		{"recall", map[string]any{"query": "x", "k": "ten"}, "k: must be a number"},
		{"recall", map[string]any{}, "query: must not be empty"},
		{"recall", map[string]any{"query": "x", "before": "someday"}, "before: cannot read"},
		{"recall", map[string]any{"query": "x", "fusion": "vector"}, "needs vectors"},
		{"forget", map[string]any{"all": true}, "confirm: must be true"},
		{"forget", map[string]any{}, "exactly one of ids, session_id or all"},
	}
	for _, tc := range cases {
		res, text := call(t, c, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error=%v %q, want an error containing %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
	// nothing of the rejected calls was stored
	if _, text := call(t, c, "recall", map[string]any{"query": "x"}); text != "No stored memories match." {
		t.Errorf("rejected calls stored something: %q", text)
	}
}

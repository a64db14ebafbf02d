package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"agentmem/tools/client"
)

var fuzzTools = []string{"remember", "recall", "today", "forget"}

// FuzzToolArgs sends arbitrary arguments to every tool through an
// in-process MCP client: each call answers (within a generous bound, so a
// parse that never ends is caught) with a result or with a tool error that
// is the client's to fix, never an internal error, a panic or a result that
// cannot be encoded.
func FuzzToolArgs(f *testing.F) {
	seeds := []struct {
		tool byte
		args string
	}{
		{0, `{"messages":[{"role":"user","content":"Yesterday I ran the Boston marathon."}],"session_id":"s-1","session_date":"2023-05-07"}`},
		{0, `{"messages":[{"role":"user","content":"yes","id":"m1","timestamp":"1:56 pm on 8 May, 2023"}],"namespace":"a"}`},
		{0, `{"messages":[{"role":"robot","content":""}],"session_date":"1600-01-01"}`},
		{1, `{"query":"marathon","k":3,"after":"2023-05-01","before":"2023-05-31","order":"recency"}`},
		{1, `{"query":"marathon","weights":{"text":100,"vector":1e-300,"session":0,"time":100,"rank_constant":1},"context":3,"excerpt":1,"max_tokens":5}`},
		{1, `{"query":"x","k":1e308,"pool":-1,"fusion":"vector"}`},
		{1, `{"query":"\u0000\ud800","after":"` + strings.Repeat("9", 100) + `"}`},
		{2, `{}`},
		{3, `{"ids":["s-1:0","nope"]}`},
		{3, `{"all":true}`},
		{3, `[1,2,3]`},
		{1, `"just a string"`},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.args)
	}
	c := connect(f)
	f.Fuzz(func(t *testing.T, tool byte, raw string) {
		name := fuzzTools[int(tool)%len(fuzzTools)]
		var args any = raw
		if json.Valid([]byte(raw)) {
			// numbers as written: "1e700" is valid JSON, no float64
			d := json.NewDecoder(strings.NewReader(raw))
			d.UseNumber()
			if err := d.Decode(&args); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		text, structured, err := c.Call(ctx, name, args)
		var te *client.ToolError
		switch {
		case errors.As(err, &te):
			if strings.Contains(te.Text, "internal error") || te.Text == "" {
				t.Fatalf("%s %s: %q", name, raw, te.Text)
			}
		case err != nil && strings.Contains(err.Error(), "is out of the range of a number"):
			// mcp-go decodes a call before any tool sees it: an invalid
			// request naming the argument (docs/tools.md, "Limits")
		case err != nil:
			t.Fatalf("%s %s: %v", name, raw, err)
		default:
			if text == "" || structured != nil && !json.Valid(structured) {
				t.Fatalf("%s %s: text %q, structured %s", name, raw, text, structured)
			}
		}
	})
}

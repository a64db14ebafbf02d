package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

// The server checks every structured result against its tool's output
// schema (mcp-go's output validation, which New turns on): a result that
// breaks it reaches the client as a tool error, never as a result.
func TestOutputSchemaEnforced(t *testing.T) {
	ctx := context.Background()
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(svc, server.Options{})
	tool := mcp.NewTool("broken", mcp.WithRawOutputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)))
	s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"n": "not a number"}, "n"), nil
	})
	res, err := json.Marshal(s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"broken","arguments":{}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"isError":true`) || strings.Contains(string(res), "not a number") {
		t.Errorf("a result that breaks its output schema was sent: %s", res)
	}
}

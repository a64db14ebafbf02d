package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
)

// panicStore fails in the worst way a store can.
type panicStore struct{ memory.Store }

func (panicStore) Search(context.Context, memory.Query) ([]memory.Hit, error) {
	panic("index corrupted")
}

func (panicStore) Embedder() (string, int) { return "", 0 }

// A panic inside a tool becomes a tool error; the server keeps serving.
func TestPanicDoesNotReachClient(t *testing.T) {
	svc, err := memory.New(memory.Options{Store: panicStore{}})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, svc)
	ctx := context.Background()
	req := mcp.CallToolRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]any{"query": "anything"}
	res, err := c.CallTool(ctx, req)
	if err != nil || !res.IsError {
		t.Fatalf("a panicking recall: err %v, result %+v; want a tool error", err, res)
	}
	if text := res.Content[0].(mcp.TextContent).Text; !strings.Contains(text, "recall failed: internal error (index corrupted)") {
		t.Errorf("error text = %q", text)
	}
	req.Params.Name = "today"
	req.Params.Arguments = nil
	if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("server did not survive the panic: %v %+v", err, res)
	}
}

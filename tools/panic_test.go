package tools_test

import (
	"context"
	"strings"
	"testing"

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
	text, _, isErr := call(t, c, "recall", map[string]any{"query": "anything"})
	if !isErr || !strings.Contains(text, "recall failed: internal error (index corrupted)") {
		t.Fatalf("a panicking recall: error %v, text %q; want a tool error", isErr, text)
	}
	if _, _, isErr := call(t, c, "today", nil); isErr {
		t.Fatal("server did not survive the panic")
	}
}

package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/server"
)

// A client that sends a call and closes stdin at once (a script's pipe,
// a host exiting) gets the call finished and answered: mcp-go's stdio
// server cancels every call in progress when its input ends, which lost
// a remember that a client had sent just before. A call the client
// cancels is not waited for.
func TestStdioFinishesCallsAtEOF(t *testing.T) {
	const (
		initLine    = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}` + "\n"
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
		slowCall    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"
		cancelSlow  = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n"
	)
	for _, tc := range []struct {
		name   string
		lines  string
		wrap   bool // the last bytes come with EOF in the same Read
		answer bool
	}{
		{"call then EOF", initLine + initialized + slowCall, false, true},
		{"call with EOF in the same read", initLine + initialized + slowCall, true, true},
		{"cancelled call", initLine + initialized + slowCall + cancelSlow, false, false},
		// requests that get no answer before the session ends are not
		// waited for (a review found each one holding the end for 30 s)
		{"listen stream", initLine + initialized + `{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true}}}` + "\n", false, false},
		{"id mcp-go cannot read", initLine + initialized + `{"jsonrpc":"2.0","id":1e400,"method":"ping"}` + "\n", false, false},
		{"request with a result", initLine + initialized + `{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}` + "\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcpserver.NewMCPServer("t", "1", mcpserver.WithToolCapabilities(false))
			release := make(chan struct{})
			s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-release:
					return mcp.NewToolResultText("finished"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			})
			in := iotest.OneByteReader(strings.NewReader(tc.lines))
			if tc.wrap {
				in = iotest.DataErrReader(strings.NewReader(tc.lines))
			}
			out := &syncBuffer{}
			served := make(chan error, 1)
			go func() {
				served <- server.ServeStdio(context.Background(), s, in, out, slog.New(slog.DiscardHandler))
			}()
			if tc.answer {
				// the input has ended by now; the call must still run
				select {
				case err := <-served:
					t.Fatalf("ServeStdio returned (%v) before the call it was sent had finished; out:\n%s", err, out)
				case <-time.After(300 * time.Millisecond):
				}
				close(release)
			}
			select {
			case err := <-served:
				if err != nil {
					t.Errorf("ServeStdio: %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("ServeStdio did not return 20 s after its input ended; out:\n%s", out)
			}
			got := strings.Contains(out.String(), `"finished"`)
			if tc.answer && !got {
				t.Errorf("the call sent before stdin closed was not answered with its result; out:\n%s", out)
			}
			if !tc.answer && got {
				t.Errorf("the cancelled call finished; out:\n%s", out)
			}
		})
	}
}

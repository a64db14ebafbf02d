// Package tools adapts the memory service to MCP: one file per tool with its
// arguments, validation and results, all registered by Register. It knows
// nothing of storage engines.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
)

// Instructions tell a model when to call each tool.
const Instructions = `agentmem is your long-term memory of past conversations with this user.
- Call "recall" before answering anything that may depend on earlier conversations: the user's facts, preferences, plans, what either of you said before, or "when did…" questions. Query with the question in the user's own words; names and exact phrases help.
- Call "today" when an answer depends on the current date ("how long ago", "last week", "how many days until"). Memories carry the date of their session: resolve "yesterday" or "last week" inside a memory against that session date, never against today.
- Call "remember" at the end of each exchange (or session) with the raw turns, verbatim, and the session's date. Do not summarise: exact wording is what later questions need. Re-sending turns already stored is harmless.
- Call "forget" only when the user asks you to delete something.`

// Register adds every agentmem tool to s.
func Register(s *server.MCPServer, svc *memory.Service, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := handlers{svc: svc, log: log}
	s.AddTool(rememberTool(), h.safe("remember", h.remember))
	s.AddTool(recallTool(), h.safe("recall", h.recall))
	s.AddTool(todayTool(), h.safe("today", h.today))
	s.AddTool(forgetTool(), h.safe("forget", h.forget))
}

// safe turns a panic in a tool into a tool error the model can read, logged
// with its stack; the server goes on serving.
func (h handlers) safe(tool string, f server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				h.log.ErrorContext(ctx, "tool panicked", "tool", tool, "panic", p, "stack", string(debug.Stack()))
				res, err = mcp.NewToolResultError(fmt.Sprintf("%s failed: internal error (%v); the server logged the details", tool, p)), nil
			}
		}()
		return f(ctx, req)
	}
}

type handlers struct {
	svc *memory.Service
	log *slog.Logger
}

// annotate sets all four hints explicitly: mcp-go defaults destructiveHint
// and openWorldHint to true, which would misdescribe every tool here.
func annotate(title string, readOnly, destructive, idempotent bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    &readOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  &idempotent,
		OpenWorldHint:   mcp.ToBoolPtr(false),
	})
}

// bind decodes a call's arguments into args, naming the argument a client
// got wrong instead of echoing a Go type.
func bind(req mcp.CallToolRequest, args any) error {
	raw, err := json.Marshal(req.GetRawArguments())
	if err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	err = json.Unmarshal(raw, args)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return &memory.FieldError{Field: te.Field, Msg: fmt.Sprintf("must be %s, got %s", jsonType(te.Type.Kind().String()), te.Value)}
	case err != nil:
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

func jsonType(kind string) string {
	switch kind {
	case "int", "int64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// failure turns an error into a tool error a model can act on. Bad input is
// reported as such; anything else is logged and reported without internals
// the model cannot use.
func (h handlers) failure(ctx context.Context, tool string, err error) (*mcp.CallToolResult, error) {
	var fe *memory.FieldError
	if errors.As(err, &fe) {
		return mcp.NewToolResultError("invalid argument " + fe.Error()), nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return mcp.NewToolResultError(tool + " was cancelled or timed out: " + err.Error()), nil
	}
	h.log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	return mcp.NewToolResultError(tool + " failed: " + err.Error()), nil
}

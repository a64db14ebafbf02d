// Package tools adapts the memory service to MCP: one file per tool, each a
// typed handler from its arguments struct to its result struct (both in
// package spec, the single source of the tool's schemas), registered by
// Register; Middleware is the one recovery-and-logging wrapper every tool
// runs in. It knows nothing of storage engines.
package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// Instructions tell a model when to call each tool.
const Instructions = `agentmem is your long-term memory of past conversations with this user.
- Call "recall" before answering anything that may depend on earlier conversations: the user's facts, preferences, plans, what either of you said before, or "when did…" questions. Query with the question in the user's own words; names and exact phrases help.
- Call "today" when an answer depends on the current date ("how long ago", "last week", "how many days until"). Memories carry the date of their session: resolve "yesterday" or "last week" inside a memory against that session date, never against today.
- Call "remember" at the end of each exchange (or session) with the raw turns, verbatim, and the session's date, unless your host stores the conversation for you (agentmem's hooks say so at the start of the session; then never call it for this conversation). Do not summarise: exact wording is what later questions need. Re-sending turns already stored is harmless.
- Call "forget" only when the user asks you to delete something.`

// Register adds every agentmem tool to s, over mem: a call validates its
// arguments at once, then waits for the memory if it is still loading.
func Register(s *server.MCPServer, mem *Loading) {
	add(s, rememberTool(), via(mem, handlers.remember), nil)
	add(s, recallTool(), via(mem, handlers.recall), recallStructured)
	add(s, todayTool(), via(mem, handlers.today), nil)
	add(s, forgetTool(), via(mem, handlers.forget), nil)
}

type handlers struct {
	svc *memory.Service
}

// handler is a tool's typed body: its decoded, validated arguments in, its
// structured result and the text a model reads out.
type handler[In, Out any] func(ctx context.Context, in In) (Out, string, error)

// add registers t with the input schema of In and a handler that
// validates the call's arguments against it, decodes them, and turns h's
// result or error into a tool result. With structured nil the result is
// always structured, and Out's schema is t's output schema; otherwise t has
// none, its result is the text for a model, with the structured result as
// well only when structured says the call asked for it.
func add[In, Out any](s *server.MCPServer, t mcp.Tool, h handler[In, Out], structured func(In) bool) {
	t.InputSchema = mcp.ToolInputSchema{}
	t.RawInputSchema = spec.SchemaJSON[In]()
	if structured == nil {
		t.RawOutputSchema = spec.SchemaJSON[Out]()
	}
	s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := spec.Decode[In](req.GetRawArguments())
		if err != nil {
			return failure(ctx, t.Name, err), nil
		}
		out, text, err := h(ctx, in)
		if err != nil {
			return failure(ctx, t.Name, err), nil
		}
		if structured == nil || structured(in) {
			return mcp.NewToolResultStructured(out, text), nil
		}
		return mcp.NewToolResultText(text), nil
	})
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

type logKey struct{}

// Middleware is the one wrapper of every tool call: it logs the call (its
// tool, duration and outcome, at debug; failures at error) and turns a
// panic into a tool error the model can read, logged with its stack, so
// the server goes on serving.
func Middleware(log *slog.Logger) server.ToolHandlerMiddleware {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			tool := req.Params.Name
			start := time.Now()
			ctx = context.WithValue(ctx, logKey{}, log)
			defer func() {
				if p := recover(); p != nil {
					log.ErrorContext(ctx, "tool panicked", "tool", tool, "panic", p, "stack", string(debug.Stack()))
					res, err = mcp.NewToolResultError(fmt.Sprintf("%s failed: internal error (%v); the server logged the details", tool, p)), nil
				}
				log.DebugContext(ctx, "tool call", "tool", tool, "took", time.Since(start), "error", res != nil && res.IsError)
			}()
			return next(ctx, req)
		}
	}
}

// failure turns an error into a tool error a model can act on. Bad input
// is reported as such; anything else is logged and reported without
// internals the model cannot use.
func failure(ctx context.Context, tool string, err error) *mcp.CallToolResult {
	var fe *memory.FieldError
	var se *spec.FieldError
	switch {
	case errors.As(err, &fe):
		return mcp.NewToolResultError("invalid argument " + fe.Error())
	case errors.As(err, &se):
		return mcp.NewToolResultError("invalid argument " + se.Error())
	case errors.Is(err, memory.ErrForbidden):
		return mcp.NewToolResultError(tool + " refused: " + err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return mcp.NewToolResultError(tool + " was cancelled or timed out: " + err.Error())
	}
	if log, ok := ctx.Value(logKey{}).(*slog.Logger); ok {
		log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	}
	return mcp.NewToolResultError(tool + " failed: " + err.Error())
}

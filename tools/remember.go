package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
)

type rememberArgs struct {
	Messages    []memory.Message `json:"messages"`
	SessionID   string           `json:"session_id"`
	SessionDate string           `json:"session_date"`
	Namespace   string           `json:"namespace"`
}

func rememberTool() mcp.Tool {
	return mcp.NewTool("remember",
		mcp.WithDescription("Store conversation turns verbatim, one memory per turn, with the date of their session. "+
			"Send raw messages, never summaries. Idempotent: re-sending a session stores nothing twice, and sending only new turns of a session (same session_id) appends them in order. "+
			"All-or-nothing: if any message is invalid nothing is stored."),
		mcp.WithArray("messages", mcp.Required(),
			mcp.Description(fmt.Sprintf("The turns, in order (at most %d per call, %d bytes of content each).", memory.MaxMessages, memory.MaxContentBytes)),
			mcp.MinItems(1), mcp.MaxItems(memory.MaxMessages),
			mcp.Items(map[string]any{
				"type":     "object",
				"required": []string{"role", "content"},
				"properties": map[string]any{
					"role":      map[string]any{"type": "string", "enum": memory.Roles},
					"content":   map[string]any{"type": "string", "description": "The turn's text, verbatim.", "maxLength": memory.MaxContentBytes},
					"speaker":   map[string]any{"type": "string", "description": "Who spoke, when role is not enough (a person's name)."},
					"timestamp": map[string]any{"type": "string", "description": "When this turn was said, if known (ISO 8601)."},
				},
			})),
		mcp.WithString("session_id", mcp.Description("Stable id of the conversation session; reuse it to append turns. Generated from the content when absent.")),
		mcp.WithString("session_date", mcp.Description("When the session took place: ISO 8601 date or date-time, or forms like '1:56 pm on 8 May, 2023' or '2023/05/30 (Tue) 23:40'. Default: the session's existing date, else now.")),
		mcp.WithString("namespace", mcp.Description("Memory space (one per user or agent). Default: the server's namespace.")),
		mcp.WithOutputSchema[memory.RememberResult](),
		annotate("Remember conversation turns", false, false, true),
	)
}

func (h handlers) remember(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args rememberArgs
	if err := bind(req, &args); err != nil {
		return h.failure(ctx, "remember", err)
	}
	res, err := h.svc.Remember(ctx, memory.RememberRequest{
		Messages:    args.Messages,
		SessionID:   args.SessionID,
		SessionDate: args.SessionDate,
		Namespace:   args.Namespace,
	})
	if err != nil {
		return h.failure(ctx, "remember", err)
	}
	if res.IDs == nil {
		res.IDs = []string{}
	}
	text := fmt.Sprintf("Stored %d turn(s) of session %s (%s) in namespace %s", res.Stored, res.SessionID, res.SessionDate.Format("2006-01-02 Mon"), res.Namespace)
	if res.Skipped > 0 {
		text += fmt.Sprintf("; %d turn(s) were already stored", res.Skipped)
	}
	return mcp.NewToolResultStructured(res, text+"."), nil
}

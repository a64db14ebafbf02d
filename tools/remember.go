package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/tools/spec"
)

func rememberTool() mcp.Tool {
	return mcp.NewTool("remember",
		mcp.WithDescription("Store conversation turns verbatim, one memory per turn, with the date of their session. "+
			"Send raw messages, never summaries. Idempotent: re-sending a session stores nothing twice, and sending only new turns of a session (same session_id) appends them in order. "+
			"All-or-nothing: if any message is invalid nothing is stored. "+
			"A long call is acknowledged once stored, its text searchable at once; its semantic vectors follow in the background (recall's pending counts the memories still waiting)."),
		annotate("Remember conversation turns", false, false, true),
	)
}

func (h handlers) remember(ctx context.Context, in spec.RememberArgs) (spec.RememberResult, string, error) {
	msgs := make([]memory.Message, len(in.Messages))
	for i, m := range in.Messages {
		msgs[i] = memory.Message{Role: m.Role, Content: m.Content, Speaker: m.Speaker, Timestamp: m.Timestamp, Key: m.ID}
	}
	res, err := h.svc.Remember(ctx, memory.RememberRequest{
		Messages: msgs, SessionID: in.SessionID, SessionDate: in.SessionDate, Namespace: in.Namespace, Turn: in.Turn,
		VectorsLater: in.Vectors == "later",
	})
	if err != nil {
		return spec.RememberResult{}, "", err
	}
	out := spec.RememberResult{
		Namespace: res.Namespace, SessionID: res.SessionID, SessionDate: res.SessionDate.Format(time.RFC3339),
		Stored: res.Stored, Skipped: res.Skipped, Forgotten: res.Forgotten, IDs: res.IDs,
	}
	text := fmt.Sprintf("Stored %s of session %s (%s) in namespace %s", spec.Count(res.Stored, "turn"), res.SessionID, res.SessionDate.Format("2006-01-02 Mon"), res.Namespace)
	if res.Skipped > 0 {
		verb := "were"
		if res.Skipped == 1 {
			verb = "was"
		}
		text += fmt.Sprintf("; %s %s already stored", spec.Count(res.Skipped, "turn"), verb)
	}
	if res.Forgotten > 0 {
		text += fmt.Sprintf("; %s forgotten before, not stored again", spec.Count(res.Forgotten, "turn"))
	}
	return out, text + ".", nil
}

package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/tools/spec"
)

func forgetTool() mcp.Tool {
	return mcp.NewTool("forget",
		mcp.WithDescription("Delete memories permanently: by ids (from recall), by session, or a whole namespace (all=true, which also needs confirm=true). Give exactly one of ids, session_id, all. Turns forgotten by ids or with their session stay forgotten when the conversation is captured again or imported from a history. Only when the user asks."),
		annotate("Forget memories", false, true, true),
	)
}

func (h handlers) forget(ctx context.Context, in spec.ForgetArgs) (spec.ForgetResult, string, error) {
	res, err := h.svc.Forget(ctx, memory.ForgetRequest{
		Namespace: in.Namespace, IDs: in.IDs, SessionID: in.SessionID, All: in.All, Confirm: in.Confirm, Reimport: in.Reimport,
	})
	if err != nil {
		return spec.ForgetResult{}, "", err
	}
	return spec.ForgetResult{Namespace: res.Namespace, SessionID: res.SessionID, Deleted: res.Deleted, Unknown: res.Unknown, Before: res.Before, Note: res.Note}, forgetText(in, res), nil
}

// forgetText is what a forget says: what it deleted, whether that stays
// forgotten, the ids that named nothing, and its note.
func forgetText(in spec.ForgetArgs, res memory.ForgetResult) string {
	deleted := spec.Count(res.Deleted, "memory")
	they, them := "they stay", "them"
	if res.Deleted == 1 {
		they, them = "it stays", "it"
	}
	var text string
	switch {
	case res.SessionID != "" && in.Reimport:
		text = fmt.Sprintf("Deleted %s of session %s from namespace %s; an import of the session, or a client sending it again, may store %s again.", deleted, res.SessionID, res.Namespace, them)
	case res.SessionID != "":
		text = fmt.Sprintf("Deleted %s of session %s from namespace %s; %s forgotten when the session is captured again or imported from a history.", deleted, res.SessionID, res.Namespace, they)
	case in.SessionID != "" && in.Reimport:
		// it may have held forgotten turns only, whose marks are gone
		text = fmt.Sprintf("Deleted nothing: namespace %s holds no memory of that session; an import of it, or a client sending it again, may store its turns again.", res.Namespace)
	case in.SessionID != "":
		// as for ids, say that the session named nothing (a typo, a
		// session forgotten before) rather than leave the caller guessing
		text = fmt.Sprintf("Deleted nothing: namespace %s has no session of that id.", res.Namespace)
	case res.Deleted > 0 && len(in.IDs) > 0:
		text = fmt.Sprintf("Deleted %s from namespace %s; %s forgotten when the session is captured again or imported from a history.", deleted, res.Namespace, they)
	default:
		text = fmt.Sprintf("Deleted %s from namespace %s.", deleted, res.Namespace)
	}
	if n := len(res.Unknown); n > 0 && n == len(res.Before) {
		verb := "was"
		if n > 1 {
			verb = "were"
		}
		text = strings.TrimSuffix(text, ".") + fmt.Sprintf("; %s %s forgotten before.", strings.Join(res.Before, ", "), verb)
	} else if n > 0 {
		text = strings.TrimSuffix(text, ".") + fmt.Sprintf("; %d of the ids named no memory there: %s.", n, strings.Join(res.Unknown, ", "))
		if len(res.Before) > 0 {
			text = strings.TrimSuffix(text, ".") + fmt.Sprintf(" (forgotten before: %s).", strings.Join(res.Before, ", "))
		}
		if slices.ContainsFunc(res.Unknown, func(id string) bool { return !strings.Contains(id, ":") }) {
			text += " A memory id is its session's id, a colon and the turn (01680260:2); to delete a whole session, name it as the session (session_id; --session-id on the command line)."
		}
	}
	if res.Note != "" {
		text += " " + res.Note
	}
	return text
}

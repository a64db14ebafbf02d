package tools

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
)

type forgetArgs struct {
	IDs       []string `json:"ids"`
	SessionID string   `json:"session_id"`
	All       bool     `json:"all"`
	Confirm   bool     `json:"confirm"`
	Namespace string   `json:"namespace"`
}

func forgetTool() mcp.Tool {
	return mcp.NewTool("forget",
		mcp.WithDescription("Delete memories permanently: by ids (from recall), by session, or a whole namespace (all=true, which also needs confirm=true). Give exactly one of ids, session_id, all. Only when the user asks."),
		mcp.WithArray("ids", mcp.WithStringItems(), mcp.MaxItems(memory.MaxIDs), mcp.Description("Memory ids to delete, as recall returns them.")),
		mcp.WithString("session_id", mcp.Description("Delete every memory of this session.")),
		mcp.WithBoolean("all", mcp.Description("Delete every memory of the namespace; needs confirm=true.")),
		mcp.WithBoolean("confirm", mcp.Description("Must be true with all=true.")),
		mcp.WithString("namespace", mcp.Description("Memory space. Default: the server's namespace.")),
		mcp.WithOutputSchema[memory.ForgetResult](),
		annotate("Forget memories", false, true, true),
	)
}

func (h handlers) forget(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args forgetArgs
	if err := bind(req, &args); err != nil {
		return h.failure(ctx, "forget", err)
	}
	res, err := h.svc.Forget(ctx, memory.ForgetRequest{
		Namespace: args.Namespace, IDs: args.IDs, SessionID: args.SessionID, All: args.All, Confirm: args.Confirm,
	})
	if err != nil {
		return h.failure(ctx, "forget", err)
	}
	return mcp.NewToolResultStructured(res, fmt.Sprintf("Deleted %d memories from namespace %s.", res.Deleted, res.Namespace)), nil
}

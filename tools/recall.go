package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
)

type recallArgs struct {
	Query     string          `json:"query"`
	K         int             `json:"k"`
	Namespace string          `json:"namespace"`
	SessionID string          `json:"session_id"`
	After     string          `json:"after"`
	Before    string          `json:"before"`
	Order     memory.Order    `json:"order"`
	Fusion    memory.Fusion   `json:"fusion"`
	Pool      int             `json:"pool"`
	Weights   *memory.Weights `json:"weights"`
}

// Recalled is one memory in recall's structured result.
type Recalled struct {
	ID          string  `json:"id"`
	Text        string  `json:"text"`
	Role        string  `json:"role"`
	Speaker     string  `json:"speaker"`
	SessionID   string  `json:"session_id"`
	SessionDate string  `json:"session_date"`
	Score       float64 `json:"score"`
}

// RecallResult is recall's structured result, best first (or in the
// requested order).
type RecallResult struct {
	Memories []Recalled `json:"memories"`
}

func recallTool() mcp.Tool {
	fusions := make([]string, len(memory.Fusions))
	for i, f := range memory.Fusions {
		fusions[i] = string(f)
	}
	return mcp.NewTool("recall",
		mcp.WithDescription("Find the stored conversation turns that best answer a question: hybrid search (BM25 over the text, a match on the names and dates in the query, and semantic similarity), fused. "+
			"Returns each memory prefixed with its session date, ready to paste into a prompt; resolve relative dates in a memory against its session date."),
		mcp.WithString("query", mcp.Required(), mcp.Description("The question or topic, in natural language."), mcp.MaxLength(memory.MaxQueryBytes)),
		mcp.WithInteger("k", mcp.Description(fmt.Sprintf("How many memories to return (1-%d). About 10 suits ~50 sessions of history, about 20 suits ~500.", memory.MaxK)), mcp.Min(1), mcp.Max(memory.MaxK), mcp.DefaultNumber(memory.DefaultK)),
		mcp.WithString("namespace", mcp.Description("Memory space to search. Default: the server's namespace.")),
		mcp.WithString("session_id", mcp.Description("Only memories of this session.")),
		mcp.WithString("after", mcp.Description("Only sessions on or after this date (ISO 8601).")),
		mcp.WithString("before", mcp.Description("Only sessions on or before this date (ISO 8601; a bare date includes that whole day). Not set by default: memories are never hidden for being recent.")),
		mcp.WithString("order", mcp.Enum(string(memory.ByRelevance), string(memory.Chronological), string(memory.Recency)),
			mcp.Description("Order of the returned memories: relevance (default, best first), chronological (oldest first) or recency (newest first). The choice of memories is always by relevance.")),
		mcp.WithString("fusion", mcp.Enum(fusions...), mcp.Description("Advanced: how text and vector rankings combine: rrf (default), rsf, text, vector, or rerank (BM25 re-ranks the vector pool).")),
		mcp.WithInteger("pool", mcp.Description("Advanced: candidates per ranking before fusion. Default max(3k, 30)."), mcp.Min(1), mcp.Max(memory.MaxPool)),
		mcp.WithObject("weights", mcp.Description("Advanced: fusion weights."), mcp.Properties(map[string]any{
			"text":          map[string]any{"type": "number", "minimum": 0},
			"vector":        map[string]any{"type": "number", "minimum": 0},
			"entity":        map[string]any{"type": "number", "minimum": 0},
			"rank_constant": map[string]any{"type": "integer", "minimum": 1},
		})),
		mcp.WithOutputSchema[RecallResult](),
		annotate("Recall memories", true, false, true),
	)
}

func (h handlers) recall(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args recallArgs
	if err := bind(req, &args); err != nil {
		return h.failure(ctx, "recall", err)
	}
	res, err := h.svc.Recall(ctx, memory.RecallRequest{
		Query: args.Query, K: args.K, Namespace: args.Namespace, SessionID: args.SessionID,
		After: args.After, Before: args.Before, Order: args.Order, Fusion: args.Fusion,
		Pool: args.Pool, Weights: args.Weights,
	})
	if err != nil {
		return h.failure(ctx, "recall", err)
	}
	out := RecallResult{Memories: make([]Recalled, len(res.Hits))}
	for i, hit := range res.Hits {
		m := hit.Memory
		out.Memories[i] = Recalled{
			ID: m.ID, Text: m.Text, Role: m.Role, Speaker: m.Speaker,
			SessionID: m.SessionID, SessionDate: m.SessionDate.Format(time.RFC3339), Score: hit.Score,
		}
	}
	return mcp.NewToolResultStructured(out, Prompt(res.Hits)), nil
}

// Prompt renders memories as text to paste into a prompt: each on its own,
// introduced by its session date, so relative dates inside it can be
// resolved.
func Prompt(hits []memory.Hit) string {
	if len(hits) == 0 {
		return "No stored memories match."
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(h.Memory.Header())
		b.WriteByte('\n')
		b.WriteString(h.Memory.Text)
	}
	return b.String()
}

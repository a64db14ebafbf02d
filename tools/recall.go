package tools

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/tools/spec"
)

func recallTool() mcp.Tool {
	return mcp.NewTool("recall",
		mcp.WithDescription("Find the stored conversation turns that best answer a question: hybrid search (BM25 over the text, a match on the names and dates in the query, and semantic similarity), fused. "+
			"Returns each memory prefixed with its session date, ready to paste into a prompt; resolve relative dates in a memory against its session date."),
		annotate("Recall memories", true, false, true),
	)
}

func (h handlers) recall(ctx context.Context, in spec.RecallArgs) (spec.RecallResult, string, error) {
	req := memory.RecallRequest{
		Query: in.Query, K: in.K, Namespace: in.Namespace, SessionID: in.SessionID,
		After: in.After, Before: in.Before, Order: memory.Order(in.Order), Fusion: memory.Fusion(in.Fusion), Pool: in.Pool,
	}
	if w := in.Weights; w != nil {
		req.Weights = &memory.Weights{Text: w.Text, Vector: w.Vector, Entity: w.Entity, RankConstant: w.RankConstant,
			Context: offOrValue(w.Context), Session: offOrValue(w.Session)}
	}
	res, err := h.svc.Recall(ctx, req)
	if err != nil {
		return spec.RecallResult{}, "", err
	}
	out := spec.RecallResult{Memories: make([]spec.Recalled, len(res.Hits))}
	for i, hit := range res.Hits {
		m := hit.Memory
		score := hit.Score
		if math.IsNaN(score) || math.IsInf(score, 0) {
			score = 0 // never sent: JSON has no NaN, and a result that cannot be encoded never answers
		}
		out.Memories[i] = spec.Recalled{
			ID: m.ID, Text: m.Text, Role: m.Role, Speaker: m.Speaker,
			SessionID: m.SessionID, SessionDate: m.SessionDate.Format(time.RFC3339), Score: score,
			TextRank: hit.TextRank, VectorRank: hit.VectorRank,
		}
	}
	return out, Prompt(res.Hits), nil
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

// offOrValue maps an optional weight whose 0 means "off" to the domain's
// convention: 0 for unset (the default), negative for off.
func offOrValue(w *float64) float64 {
	switch {
	case w == nil:
		return 0
	case *w == 0:
		return -1
	}
	return *w
}

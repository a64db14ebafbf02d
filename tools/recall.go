package tools

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/memory/hybrid"
	"agentmem/tools/spec"
)

func recallTool() mcp.Tool {
	return mcp.NewTool("recall",
		mcp.WithDescription("Find the stored conversation turns that best answer a question: hybrid search (BM25 over the text, a match on the names and dates in the query, and semantic similarity), fused. "+
			"Returns a first line 'Today is ...', then the memories grouped by session, each session introduced by its date; resolve relative dates in a memory against its session date."),
		annotate("Recall memories", true, false, true),
	)
}

func (h handlers) recall(ctx context.Context, in spec.RecallArgs) (spec.RecallResult, string, error) {
	if in.Explain && !recallStructured(in) {
		return spec.RecallResult{}, "", &memory.FieldError{Field: "explain", Msg: "needs format json: the candidates are in the structured result"}
	}
	res, err := h.svc.Recall(ctx, recallRequest(in))
	if err != nil {
		return spec.RecallResult{}, "", err
	}
	// the dates only where the structured result is returned: a text
	// call's are in its text (each shown memory's read once, not twice)
	text, out := res.Text(), recalled(res, false, recallStructured(in))
	// notes are in the structured result too: a host may show the model
	// only that (Claude Code does)
	if res.Digest {
		out.Note = res.DigestNote()
		text = out.Note + "\n\n" + text
	} else if out.Note = res.PeriodNote(); out.Note != "" {
		text = out.Note + "\n\n" + text
	} else if len(res.Passages) == 0 {
		if out.Note = emptyNote(ctx, h.svc, res.Namespace, in.SessionID); out.Note != "" {
			text += "\n" + out.Note
		}
	}
	out.Today = memory.TodayAt(h.svc.Now()).Text()
	return out, out.Today + ".\n\n" + text, nil
}

// emptyNote is what a recall that found nothing says when its namespace
// holds no memory at all: the namespaces that do (those the caller may
// read), so that a model that left out or misspelt its project's
// namespace can ask again; or, when the session it named holds none,
// where the namespace's sessions are listed.
func emptyNote(ctx context.Context, svc *memory.Service, ns, session string) string {
	all, err := svc.Namespaces(ctx)
	if err != nil {
		return ""
	}
	if slices.ContainsFunc(all, func(n memory.NamespaceInfo) bool { return n.Name == ns }) {
		if session == "" {
			return ""
		}
		if has, err := svc.HasSession(ctx, ns, session); has || err != nil {
			return ""
		}
		return fmt.Sprintf("The session_id given names no session of namespace %s; the sessions resource (agentmem://%s/sessions) lists its sessions.", ns, ns)
	}
	if len(all) == 0 {
		return fmt.Sprintf("Namespace %s holds no memories, and no namespace readable here does.", ns)
	}
	slices.SortStableFunc(all, func(a, b memory.NamespaceInfo) int { return cmp.Compare(b.Memories, a.Memories) })
	var names []string
	for _, n := range all[:min(len(all), 5)] {
		names = append(names, fmt.Sprintf("%s (%s)", n.Name, spec.Count(n.Memories, "memory")))
	}
	more := ""
	if len(all) > 5 {
		more = fmt.Sprintf(" and %d more", len(all)-5)
	}
	return fmt.Sprintf("Namespace %s holds no memories; these do: %s%s. Recall in one of them by naming it as the namespace.", ns, strings.Join(names, ", "), more)
}

// recallRequest is the domain's request for the tool's arguments.
func recallRequest(in spec.RecallArgs) memory.RecallRequest {
	req := memory.RecallRequest{
		Query: in.Query, K: in.K, Namespace: in.Namespace, SessionID: in.SessionID, ExcludeSession: in.ExcludeSession,
		After: in.After, Before: in.Before, Order: memory.Order(in.Order), Fusion: memory.Fusion(in.Fusion), Pool: in.Pool,
		Context: in.Context, MaxTokens: in.MaxTokens, Excerpt: memory.DefaultExcerpt, Reranker: in.Reranker,
		Explain: in.Explain, Budget: memory.Budget(in.Budget), Ranks: recallStructured(in),
	}
	if in.Excerpt != nil {
		req.Excerpt = *in.Excerpt
	}
	req.Fill = req.Excerpt > 0
	if w := in.Weights; w != nil {
		req.Weights = &memory.Weights{Text: w.Text, Vector: w.Vector, Entity: w.Entity, RankConstant: w.RankConstant,
			Time: offOrValue(w.Time), Adjacent: offOrValue(w.Adjacent), Kinds: offOrValue(w.Kinds), Learned: offOrValue(w.Learned)}
	}
	return req
}

// recalled is the structured result of res: each memory as the text
// shows it (a long one's excerpt), or whole, with its scores and ranks,
// and with its dates when asked.
func recalled(res memory.RecallResult, whole, dates bool) spec.RecallResult {
	out := spec.RecallResult{Namespace: res.Namespace, K: res.K, Memories: []spec.Recalled{}}
	hits := map[string]memory.Hit{}
	for _, h := range res.Hits {
		hits[h.Memory.ID] = h
	}
	for n, p := range res.Passages {
		for i, m := range p.Memories {
			score := finite(p.Score[i])
			text, part := m.Text, !whole && len(p.Excerpt) > i && p.Excerpt[i] != ""
			if part {
				text = p.Excerpt[i] // what the text shows; the whole turn is in its session
			}
			out.Memories = append(out.Memories, spec.Recalled{
				ID: m.ID, Text: text, Excerpt: part, Role: m.Role, Speaker: m.Speaker,
				SessionID: m.SessionID, SessionDate: m.SessionDate.Format(time.RFC3339), Score: score,
				Hit: p.Hit[i], Passage: n,
			})
			if dates {
				out.Memories[len(out.Memories)-1].Dates = periods(memory.Annotations(text, m.SessionDate))
			}
			if p.Hit[i] {
				h := hits[m.ID]
				r := &out.Memories[len(out.Memories)-1]
				r.TextRank, r.VectorRank, r.FusedRank = h.TextRank, h.VectorRank, h.FusedRank
			}
		}
	}
	out.Periods = periods(res.Periods)
	out.TimeBoost, out.Digest = res.TimeBoost, res.Digest
	out.Pending, out.PendingError = res.Pending, res.PendingError
	out.Reranker, out.RerankError = res.Reranker, res.RerankError
	if res.Candidates != nil {
		out.FeatureNames = hybrid.FeatureNames()
	}
	for _, h := range res.Candidates {
		c := spec.Candidate{ID: h.Memory.ID, Score: finite(h.Score), TextRank: h.TextRank, VectorRank: h.VectorRank, Features: map[string]float64{}}
		for i, f := range h.Features {
			c.Features[out.FeatureNames[i]] = finite(f)
		}
		out.Candidates = append(out.Candidates, c)
	}
	return out
}

// finite is f, or 0 for a NaN or an infinity: JSON has neither, and a
// result that cannot be encoded never answers.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// periods are ps as the structured result writes them.
func periods(ps []memory.Period) []spec.Period {
	var out []spec.Period
	for _, p := range ps {
		out = append(out, spec.Period{Expression: p.Text, From: p.From.Format(time.RFC3339), To: p.To.Format(time.RFC3339)})
	}
	return out
}

// recallStructured says whether a recall returns its structured result
// too: only when asked (format json). A host that has structured content
// shows its model that JSON instead of the text (Claude Code does), so by
// default a model reads the dated passages (docs/claude-code.md, "What the model reads").
func recallStructured(in spec.RecallArgs) bool { return in.Format == "json" }

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

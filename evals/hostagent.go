package evals

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"agentmem/tools/spec"
)

// Host is an agent host (Claude Code) with a scripted model behind it:
// Ask runs one session in which the model calls recall once with the
// question, in namespace ns, against a server whose clock reads now, and
// returns what the host handed the model as the tool's result.
type Host interface {
	Name() string
	Ask(ctx context.Context, question, ns string, now time.Time) (shown string, err error)
}

// hostAgent asks the question through the host, and scores what its
// model was shown: the memories of the same recall in process whose text
// (or excerpt) reached the model, the tokens as received (the "Today is"
// line included), and the latency of the whole host session. The
// in-process recall tells which memory each shown passage line is.
func (r *runner) hostAgent(ctx context.Context, a asked, cfg Config) (Result, error) {
	ns := a.ns[cfg.Granularity]
	args := cfg.RecallArgs(a.q, ns)
	args.Format = "json"
	rec, text, err := a.conn.Recall(ctx, args)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	shown, err := r.o.Host.Ask(ctx, a.q.Text, ns, a.now)
	if err != nil {
		return Result{}, err
	}
	res := r.result(r.o.Host.Name(), cfg, a)
	res.RecallMS = float64(time.Since(start).Microseconds()) / 1000
	res.Recalls = 1
	res.Recalled = shownIDs(rec.Memories, shown)
	res.RerankError = rec.RerankError
	res.Retrieval = Score(a.q, res.Recalled, a.ids[cfg.Granularity])
	res.Tokens = r.o.Tokenizer.Count(shown)
	// the answer's words in the memories, not in the date line
	res.AnswerShown = AnswerShown(res.Gold, WithoutToday(shown))
	res.HostSame = new(shown == text)
	return res, nil
}

// shownIDs are the ids of the memories whose text, or a part of it as an
// excerpt shows it, is in shown.
func shownIDs(ms []spec.Recalled, shown string) []string {
	var out []string
	for _, m := range ms {
		if inText(m.Text, shown) {
			out = append(out, m.ID)
		}
	}
	return out
}

// inText says whether a piece of text of at least 24 characters (or the
// whole of a shorter one), taken from its start or from a part between
// excerpt marks, is in shown, as recall renders it (later lines
// indented).
func inText(text, shown string) bool {
	first, _, _ := strings.Cut(text, "\n")
	if utf8.RuneCountInString(first) <= 24 {
		return strings.Contains(shown, ": "+first) || strings.Contains(shown, "]\n"+first)
	}
	for i := 0; i+24 <= len(first); i += 24 {
		for !utf8.RuneStart(first[i]) {
			i++
		}
		end := i + 24
		for end < len(first) && !utf8.RuneStart(first[end]) {
			end++
		}
		if strings.Contains(shown, first[i:min(end, len(first))]) {
			return true
		}
	}
	return false
}

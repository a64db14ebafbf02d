package evals

import (
	"cmp"
	"fmt"
	"io"
	"strings"
)

// WriteReport writes report.md: what was run, then configuration ×
// category tables.
func WriteReport(w io.Writer, s Summary, chart string) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	reportRun(p, s)
	reportSpeed(p, s)
	reportOverall(p, s)
	cats := Categories(s.Benchmark)
	names, by := make([]string, len(s.Configs)), make([]map[string]Category, len(s.Configs))
	for i, c := range s.Configs {
		names[i], by[i] = c.Config, c.ByCategory
	}
	table := retrievalTables(p, "config", " (baseline)", cats, names, by, true)
	reportAnswers(p, s, table)
	p("\n## Configurations\n\n| config | settings |\n| --- | --- |\n")
	for _, c := range s.Configs {
		p("| %s | %s |\n", c.Config, c.Description)
	}
	if chart != "" {
		p("\n![recall by category and tokens against k](%s)\n", chart)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reportRun writes the report's title and what was run: the data, the
// server, the models, what the figures count.
func reportRun(p func(string, ...any), s Summary) {
	p("# agentmem on %s\n\n", s.Benchmark)
	p("- data: %s (%d questions, %d turns, %.1f sessions per %s)\n", s.Data, s.Questions, s.Turns, s.Sessions, unitName(s.Benchmark))
	p("- server: %s\n", s.Server)
	if s.Version != "" {
		p("- code: %s\n", s.Version)
	}
	p("- answer model: %s\n", cmp.Or(s.AnswerModel, "none: retrieval only, no answers, J not measured"))
	if s.JudgeModel != "" {
		p("- judge model: %s (binary verdicts; the same judge for every configuration)\n", s.JudgeModel)
	} else {
		p("- judge model: none\n")
	}
	p("- retrieval counts evidence %ss; overall figures leave out LoCoMo's adversarial category and LongMemEval's abstention questions\n", s.Level)
	p("- the session-date prefix (`[date · session · speaker]`) is part of the context shown to the answer model; memories are stored as raw text, so the prefix changes answers and tokens, never retrieval\n")
	for _, n := range s.Notes {
		p("- %s\n", n)
	}
}

// reportSpeed writes the table of the ingest's speed at each granularity.
func reportSpeed(p func(string, ...any), s Summary) {
	p("\n## Speed\n\n| granularity | units | turns | seconds | turns/s |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, g := range []Granularity{ByTurn, ByRound, BySession} {
		if in, ok := s.Ingest[string(g)]; ok {
			p("| %s | %d | %d | %.1f | %.0f |\n", g, in.Units, in.Turns, in.Seconds, in.TurnsPerS)
		}
	}
	if len(s.Ingest) == 0 {
		p("| (all results were cached; nothing was stored in this run) | | | | |\n")
	}
}

// reportOverall writes the table of each configuration's overall figures,
// and for LongMemEval their session and turn levels.
func reportOverall(p func(string, ...any), s Summary) {
	p("\n## Overall\n\n| config | agent | k | answered | recall_all | recall_any | NDCG | tokens mean | p50 | p95 | recall ms p50 | p95 | recalls/q | J | sufficiency |\n")
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, c := range s.Configs {
		p("| %s | %s | %d | %d | %s | %s | %s | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %s | %s |\n",
			c.Config, c.Agent, c.K, c.Answered, Pct(c.Retrieval.RecallAll), Pct(c.Retrieval.RecallAny), num(c.Retrieval.NDCG),
			c.ContextTokens.Mean, c.ContextTokens.P50, c.ContextTokens.P95, c.RecallMS.P50, c.RecallMS.P95, c.RecallsPerQ,
			Pct(c.J), Pct(c.Sufficiency))
	}
	if s.Benchmark == "longmemeval" {
		p("\n## Session and turn level\n\n| config | session recall_all | session recall_any | session NDCG | turn recall_all | turn recall_any | turn NDCG | turn-scored questions |\n")
		p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, c := range s.Configs {
			se, tu := c.Retrieval.Session, c.Retrieval.Turn
			p("| %s | %s | %s | %s | %s | %s | %s | %d |\n", c.Config, Pct(se.RecallAll), Pct(se.RecallAny), num(se.NDCG),
				Pct(tu.RecallAll), Pct(tu.RecallAny), num(tu.NDCG), tu.Questions)
		}
	}
}

// reportAnswers writes what the answers were measured by, where they
// were: the answer shown, the judge's verdicts (J, context sufficiency,
// why answers were wrong) and the abstention questions; table writes a
// by-category table of the configurations.
func reportAnswers(p func(string, ...any), s Summary, table func(string, func(Category) string)) {
	if s.AnswerShown != nil {
		p("\n## Answer shown\n\nThe share of questions whose gold answer's words all appear in the context shown to the answer model (no model involved: a coincidental word counts, a paraphrase does not; it catches a recall that returns the right memory but shows the wrong part of it). Overall as retrieval: without LoCoMo's adversarial and LongMemEval's abstention questions.\n\n| config | answer shown |\n| --- | ---: |\n")
		for _, c := range s.Configs {
			p("| %s | %s |\n", c.Config, Pct(c.AnswerShown))
		}
		table("Answer shown by category", func(v Category) string { return Pct(v.AnswerShown) })
	}
	if s.JudgeModel != "" {
		table("J by category", func(v Category) string { return Pct(v.J) })
		table("Context sufficiency by category", func(v Category) string { return Pct(v.Sufficiency) })
		p("\n## Why answers were wrong\n\nA wrong answer whose context the sufficiency judge found insufficient is a retrieval failure; one whose context was sufficient is a reasoning failure.\n\n| config | wrong | retrieval failures | reasoning failures |\n| --- | ---: | ---: | ---: |\n")
		for _, c := range s.Configs {
			if f := c.Failures; f != nil {
				p("| %s | %d | %d | %d |\n", c.Config, f.Wrong, f.Retrieval, f.Reasoning)
			}
		}
	}
	if s.Abstention != nil {
		p("\n## Abstention questions (left out of retrieval metrics)\n\n| config | questions | J |\n| --- | ---: | ---: |\n")
		for _, c := range s.Configs {
			if a := c.Abstention; a != nil {
				p("| %s | %d | %s |\n", c.Config, a.Questions, Pct(a.J))
			}
		}
	}
}

func unitName(bench string) string {
	if bench == "locomo" {
		return "conversation"
	}
	return "question"
}

// Pct renders a share as a percentage, "–" when there is none.
func Pct(f *float64) string {
	if f == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100**f)
}

func num(f *float64) string {
	if f == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *f)
}

// retrievalTables writes the by-category section's retrieval tables
// (recall_all, recall_any, context tokens) of the rows names and by (first
// names their column), after the number of questions per category of the
// first row when count says so, and returns what writes another table of
// those rows.
func retrievalTables(p func(string, ...any), first, which string, cats, names []string, by []map[string]Category, count bool) (table func(string, func(Category) string)) {
	table = func(title string, cell func(Category) string) { categoryTable(p, title, first, cats, names, by, cell) }
	if count {
		var firstRow map[string]Category
		if len(by) > 0 {
			firstRow = by[0]
		}
		p("\n## By category\n\nQuestions per category%s:", which)
		for _, cat := range cats {
			p(" %s %d;", cat, firstRow[cat].Questions)
		}
		p("\n")
	}
	table("recall_all by category", func(v Category) string { return Pct(v.RecallAll) })
	table("recall_any by category", func(v Category) string { return Pct(v.RecallAny) })
	table("Context tokens (mean) by category", func(v Category) string { return fmt.Sprintf("%.0f", v.Tokens) })
	return table
}

// categoryTable writes a markdown table of one row per name (a run's
// configuration, or a compared server) and one cell per category, "–"
// where a row has none of it.
func categoryTable(p func(string, ...any), title, first string, cats, names []string, by []map[string]Category, cell func(Category) string) {
	p("\n## %s\n\n| %s |", title, first)
	for _, cat := range cats {
		p(" %s |", cat)
	}
	p("\n| --- |%s\n", strings.Repeat(" ---: |", len(cats)))
	for i, name := range names {
		p("| %s |", name)
		for _, cat := range cats {
			if v, ok := by[i][cat]; ok {
				p(" %s |", cell(v))
			} else {
				p(" – |")
			}
		}
		p("\n")
	}
}

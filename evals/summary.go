package evals

import (
	"slices"
	"strings"
)

// Summary is summary.json. Its top-level figures are those of the first
// configuration (the baseline); Configs holds every configuration.
type Summary struct {
	Benchmark string `json:"benchmark"`
	Data      string `json:"data"`
	Server    string `json:"server"`
	Version   string `json:"version,omitempty"`
	Questions int    `json:"questions"`
	Turns     int    `json:"turns"`
	// Sessions is the mean number of sessions per unit (conversation or
	// question haystack).
	Sessions float64 `json:"sessions_per_unit"`
	// Level is what the headline retrieval figures count: evidence turns
	// (LoCoMo) or evidence sessions (LongMemEval).
	Level       string            `json:"level"`
	AnswerModel string            `json:"answer_model,omitempty"`
	JudgeModel  string            `json:"judge_model,omitempty"`
	Ingest      map[string]Ingest `json:"ingest"`
	Notes       []string          `json:"notes,omitempty"`
	ConfigSummary
	Configs []ConfigSummary `json:"configs"`
}

// Ingest is the ingest speed at one granularity.
type Ingest struct {
	Units     int     `json:"units"`
	Turns     int     `json:"turns"`
	Seconds   float64 `json:"seconds"`
	TurnsPerS float64 `json:"turns_per_s"`
}

// ConfigSummary is one configuration's figures.
type ConfigSummary struct {
	Config          string              `json:"config"`
	Agent           string              `json:"agent"`
	Description     string              `json:"description"`
	Answered        int                 `json:"answered"`
	K               int                 `json:"k"`
	Retrieval       Level               `json:"retrieval"`
	ByCategory      map[string]Category `json:"by_category"`
	ContextTokens   Dist                `json:"context_tokens"`
	IngestTurnsPerS float64             `json:"ingest_turns_per_s"`
	RecallMS        Dist                `json:"recall_ms"`
	RecallsPerQ     float64             `json:"recalls_per_question"`
	J               *float64            `json:"j,omitempty"`
	Sufficiency     *float64            `json:"sufficiency,omitempty"`
	// AnswerShown is the share of the questions scored for retrieval
	// whose gold answer's words all appear in the context (see
	// AnswerShown).
	AnswerShown *float64    `json:"answer_shown,omitempty"`
	Failures    *Failures   `json:"failures,omitempty"`
	Abstention  *Abstention `json:"abstention,omitempty"`
	// RerankFailed counts the questions whose recall the server's
	// reranker did not order (rerank_error): they were answered in the
	// fused order, so a reranker's figures are mixed with them.
	RerankFailed int `json:"rerank_failed,omitempty"`
}

// Level is retrieval at one level of evidence: the headline one, and for
// LongMemEval both session and turn.
type Level struct {
	// Questions counts the questions scored (those with evidence).
	Questions int      `json:"scored"`
	RecallAll *float64 `json:"recall_all"`
	RecallAny *float64 `json:"recall_any"`
	NDCG      *float64 `json:"ndcg"`
	Session   *Level   `json:"session,omitempty"`
	Turn      *Level   `json:"turn,omitempty"`
}

// Category is one category's figures.
type Category struct {
	Questions int `json:"questions"`
	Level
	Tokens      float64  `json:"tokens_mean"`
	J           *float64 `json:"j,omitempty"`
	Sufficiency *float64 `json:"sufficiency,omitempty"`
	AnswerShown *float64 `json:"answer_shown,omitempty"`
}

// Failures tell wrong answers apart: the context lacked the answer
// (retrieval) or held it and the model still failed (reasoning).
type Failures struct {
	Wrong     int `json:"wrong"`
	Retrieval int `json:"retrieval"`
	Reasoning int `json:"reasoning"`
}

// Abstention is the abstention questions' figures, which retrieval metrics
// leave out.
type Abstention struct {
	Questions int      `json:"questions"`
	J         *float64 `json:"j,omitempty"`
}

// Meta is what Summarize cannot learn from the results.
type Meta struct {
	Data, Server, Version, AnswerModel, JudgeModel string
}

// Summarize aggregates results by configuration and category.
func Summarize(d *Dataset, configs []Config, out Outcome, m Meta) Summary {
	s := Summary{
		Benchmark: d.Name, Data: m.Data, Server: m.Server, Version: m.Version, Questions: d.Questions(), Turns: d.Turns(),
		Level: "turn", AnswerModel: m.AnswerModel, JudgeModel: m.JudgeModel, Notes: d.Notes,
		Ingest: map[string]Ingest{},
	}
	for _, u := range d.Units {
		s.Sessions += float64(len(u.Sessions)) / float64(len(d.Units))
	}
	if d.Name == "longmemeval" {
		s.Level = "session"
	}
	for g, st := range out.Ingest {
		s.Ingest[string(g)] = ingestOf(st)
	}
	by := map[string][]Result{}
	for _, r := range out.Results {
		by[r.Agent+"/"+r.Config] = append(by[r.Agent+"/"+r.Config], r)
	}
	for _, c := range configs {
		if rs := by["scripted/"+c.Name]; len(rs) > 0 {
			s.Configs = append(s.Configs, summarizeConfig(d.Name, c, "scripted", rs, s.Ingest))
		}
	}
	for _, c := range configs {
		for key, rs := range by {
			if agent, name, _ := strings.Cut(key, "/"); name == c.Name && agent != "scripted" && agent != "llm" {
				s.Configs = append(s.Configs, summarizeConfig(d.Name, c, agent, rs, s.Ingest))
			}
		}
	}
	if rs := by["llm/"+LLMConfig.Name]; len(rs) > 0 {
		s.Configs = append(s.Configs, summarizeConfig(d.Name, LLMConfig, "llm", rs, s.Ingest))
	}
	if len(s.Configs) > 0 {
		s.ConfigSummary = s.Configs[0]
	}
	return s
}

// reportedK is the median of the k the recalls reported (k=auto: the
// server's, from each history's size), or def when none did (results
// cached before they recorded it).
func reportedK(rs []Result, def int) int {
	var ks []int
	for _, r := range rs {
		if r.K > 0 {
			ks = append(ks, r.K)
		}
	}
	if len(ks) == 0 {
		return def
	}
	slices.Sort(ks)
	return ks[len(ks)/2]
}

func summarizeConfig(bench string, c Config, agent string, rs []Result, ingest map[string]Ingest) ConfigSummary {
	cs := ConfigSummary{
		Config: c.Name, Agent: agent, Description: c.Describe(), Answered: len(rs), K: c.K,
		ByCategory:      map[string]Category{},
		IngestTurnsPerS: ingest[string(c.Granularity)].TurnsPerS,
	}
	if agent == "llm" {
		cs.Description = "chat model with the recall and today tools (function calling)"
	}
	var tokens, ms []float64
	recalls := 0
	for _, r := range rs {
		tokens = append(tokens, float64(r.Tokens))
		ms = append(ms, r.RecallMS)
		recalls += r.Recalls
		if r.RerankError != "" {
			cs.RerankFailed++
		}
	}
	cs.ContextTokens, cs.RecallMS = NewDist(tokens), NewDist(ms)
	if c.AutoK {
		cs.K = reportedK(rs, c.K)
	}
	cs.RecallsPerQ = float64(recalls) / float64(len(rs))
	// Overall retrieval leaves out LoCoMo's adversarial questions, as is usual.
	overall := slices.DeleteFunc(slices.Clone(rs), func(r Result) bool { return r.Category == "adversarial" })
	cs.Retrieval = levels(overall, bench)
	cs.J, cs.Sufficiency = verdicts(rs)
	cs.AnswerShown = shown(overall)
	cs.Failures = failures(rs)
	for _, name := range Categories(bench) {
		in := where(rs, func(r Result) bool { return r.Category == name })
		if len(in) == 0 {
			continue
		}
		cat := Category{Questions: len(in), Level: levels(in, bench)}
		var t []float64
		for _, r := range in {
			t = append(t, float64(r.Tokens))
		}
		cat.Tokens = NewDist(t).Mean
		cat.J, cat.Sufficiency = verdicts(in)
		cat.AnswerShown = shown(in)
		cs.ByCategory[name] = cat
	}
	if bench == "longmemeval" {
		if abs := where(rs, func(r Result) bool { return r.Abstain }); len(abs) > 0 {
			a := &Abstention{Questions: len(abs)}
			a.J, _ = verdicts(abs)
			cs.Abstention = a
		}
	}
	return cs
}

// levels aggregates retrieval over rs at the headline level (sessions for
// LongMemEval, turns otherwise), and both levels for LongMemEval.
func levels(rs []Result, bench string) Level {
	turn := aggregate(rs, func(r Retrieval) *Hits { return r.Turn })
	sess := aggregate(rs, func(r Retrieval) *Hits { return r.Session })
	if bench != "longmemeval" {
		return turn
	}
	l := sess
	l.Session, l.Turn = &sess, &turn
	return l
}

func aggregate(rs []Result, pick func(Retrieval) *Hits) Level {
	var all, any []bool
	var nd []float64
	for _, r := range rs {
		if h := pick(r.Retrieval); h != nil {
			all = append(all, h.All)
			any = append(any, h.Any)
			nd = append(nd, h.NDCG)
		}
	}
	l := Level{Questions: len(all), RecallAll: frac(all), RecallAny: frac(any)}
	if len(nd) > 0 {
		l.NDCG = new(NewDist(nd).Mean)
	}
	return l
}

func verdicts(rs []Result) (j, suff *float64) {
	var c, s []bool
	for _, r := range rs {
		if r.Correct != nil {
			c = append(c, *r.Correct)
		}
		if r.Sufficient != nil {
			s = append(s, *r.Sufficient)
		}
	}
	return frac(c), frac(s)
}

// shown is the share of rs, abstention questions left out, whose answer
// the context shows (see AnswerShown); nil when none was checked.
func shown(rs []Result) *float64 {
	var s []bool
	for _, r := range rs {
		if r.AnswerShown != nil && !r.Abstain {
			s = append(s, *r.AnswerShown)
		}
	}
	return frac(s)
}

func failures(rs []Result) *Failures {
	var f Failures
	judged := false
	for _, r := range rs {
		if r.Correct == nil {
			continue
		}
		judged = true
		if *r.Correct {
			continue
		}
		f.Wrong++
		if r.Sufficient != nil {
			if *r.Sufficient {
				f.Reasoning++
			} else {
				f.Retrieval++
			}
		}
	}
	if !judged {
		return nil
	}
	return &f
}

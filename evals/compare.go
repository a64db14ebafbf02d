package evals

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"agentmem/evals/peers"
)

// Comparison is compare.json: agentmem and the peers on the same questions
// with the same k, one System each, agentmem first.
type Comparison struct {
	Benchmark string   `json:"benchmark"`
	Data      string   `json:"data"`
	Questions int      `json:"questions"`
	Turns     int      `json:"turns"`
	Level     string   `json:"level"`
	K         int      `json:"k"`
	Notes     []string `json:"notes,omitempty"`
	Systems   []System `json:"systems"`
}

// System is one memory server's figures.
type System struct {
	Name string `json:"name"`
	// Server names the package, version and how it was run.
	Server string `json:"server"`
	ConfigSummary
	// Errors counts the questions that failed, by kind (peers.Kinds), and
	// Restarts how often the server was restarted.
	Errors   map[string]int `json:"errors"`
	Restarts int            `json:"restarts"`
}

// AgentmemSystem is agentmem's row: the first configuration of its summary.
func AgentmemSystem(s Summary) System {
	return System{Name: "agentmem", Server: s.Server, ConfigSummary: s.ConfigSummary, Errors: map[string]int{}}
}

// SummarizePeer aggregates a peer's results as the scripted agent's are.
func SummarizePeer(d *Dataset, o PeerOptions, out Outcome) System {
	ingest := map[string]Ingest{}
	if st := out.Ingest[ByTurn]; len(st) > 0 {
		ingest[string(ByTurn)] = ingestOf(st)
	}
	sys := System{Name: o.Name, Server: o.Describe(), Errors: map[string]int{}}
	if len(out.Results) > 0 {
		cfg := Config{Name: o.Name, K: o.K, Granularity: ByTurn}
		sys.ConfigSummary = summarizeConfig(d.Name, cfg, PeerAgent, out.Results, ingest)
		sys.Description = fmt.Sprintf("one search per question, k = %d, through the adapter of package peers", o.K)
	}
	for _, r := range out.Results {
		if r.FailureKind != "" {
			sys.Errors[r.FailureKind]++
		}
		if r.Restarted {
			sys.Restarts++
		}
	}
	return sys
}

// Compare puts agentmem's summary and the peers' side by side.
func Compare(s Summary, systems []System) Comparison {
	return Comparison{
		Benchmark: s.Benchmark, Data: s.Data, Questions: s.Questions, Turns: s.Turns, Level: s.Level,
		K: s.K, Notes: s.Notes, Systems: systems,
	}
}

// WriteComparison writes compare.json, compare.md and compare.svg into dir.
func WriteComparison(dir string, c Comparison) error {
	return writeFiles(dir,
		output{"compare.json", indented(c)},
		output{"compare.svg", func(w io.Writer) error { return WriteComparisonChart(w, c) }},
		output{"compare.md", func(w io.Writer) error { return WriteComparisonReport(w, c, "compare.svg") }})
}

// WriteComparisonReport writes compare.md: what was run, then one row per
// server in every table.
func WriteComparisonReport(w io.Writer, c Comparison, chart string) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# agentmem and other MCP memory servers on %s\n\n", c.Benchmark)
	p("- data: %s (%d questions, %d turns)\n", c.Data, c.Questions, c.Turns)
	p("- the same questions for every server, k = %d memories per question; retrieval only (no answer model)\n", c.K)
	p("- retrieval counts evidence %ss; overall figures leave out LoCoMo's adversarial category and LongMemEval's abstention questions\n", c.Level)
	p("- every server stores one memory per turn with its session date and speaker; each peer runs as a stdio subprocess, one process and data directory per %s, and is queried the way its adapter documents (package evals/peers)\n", unitName(c.Benchmark))
	p("- context tokens: o200k tokens of what the server returned for the question (agentmem: the recall tool's text; a peer: the text of its results)\n")
	p("- a question a peer failed to answer counts as a miss; after a crash or a timeout the peer is restarted in a fresh data directory and the %s stored again (that second store is not timed)\n", unitName(c.Benchmark))
	for _, n := range c.Notes {
		p("- %s\n", n)
	}
	p("\n## Servers\n\n| system | server |\n| --- | --- |\n")
	for _, s := range c.Systems {
		p("| %s | %s |\n", s.Name, s.Server)
	}
	p("\n## Overall\n\n| system | answered | recall_all | recall_any | NDCG | tokens mean | p95 | ingest turns/s | recall ms p50 | p95 |")
	for _, k := range peers.Kinds() {
		p(" %s |", k)
	}
	p(" restarts |\n| --- |%s\n", strings.Repeat(" ---: |", 9+len(peers.Kinds())+1))
	for _, s := range c.Systems {
		p("| %s | %d | %s | %s | %s | %.0f | %.0f | %s | %.1f | %.1f |", s.Name, s.Answered, Pct(s.Retrieval.RecallAll), Pct(s.Retrieval.RecallAny),
			num(s.Retrieval.NDCG), s.ContextTokens.Mean, s.ContextTokens.P95, rate(s.IngestTurnsPerS), s.RecallMS.P50, s.RecallMS.P95)
		for _, k := range peers.Kinds() {
			p(" %d |", s.Errors[k])
		}
		p(" %d |\n", s.Restarts)
	}
	if c.Benchmark == "longmemeval" {
		p("\n## Session and turn level\n\n| system | session recall_all | session recall_any | turn recall_all | turn recall_any | turn-scored questions |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
		for _, s := range c.Systems {
			se, tu := s.Retrieval.Session, s.Retrieval.Turn
			if se == nil || tu == nil {
				continue
			}
			p("| %s | %s | %s | %s | %s | %d |\n", s.Name, Pct(se.RecallAll), Pct(se.RecallAny), Pct(tu.RecallAll), Pct(tu.RecallAny), tu.Questions)
		}
	}
	cats := Categories(c.Benchmark)
	names, by := make([]string, len(c.Systems)), make([]map[string]Category, len(c.Systems))
	for i, s := range c.Systems {
		names[i], by[i] = s.Name, s.ByCategory
	}
	retrievalTables(p, "system", "", cats, names, by, len(c.Systems) > 0)
	if chart != "" {
		p("\n![recall_all by category and context tokens, per server](%s)\n", chart)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rate(r float64) string {
	if r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", r)
}

// WriteComparisonChart draws recall_all by category (and overall) as bars,
// one per server, and the mean context tokens per server.
func WriteComparisonChart(w io.Writer, c Comparison) error {
	groups := append(Categories(c.Benchmark), "overall")
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="400" viewBox="0 0 1000 400" font-family="sans-serif" font-size="12">`+"\n")
	b.WriteString(`<rect width="1000" height="400" fill="white"/>` + "\n")
	values := make([][]float64, len(c.Systems))
	for i, s := range c.Systems {
		for _, g := range groups {
			v := s.Retrieval.RecallAll
			if g != "overall" {
				v = s.ByCategory[g].RecallAll
			}
			if v == nil {
				values[i] = append(values[i], -1)
			} else {
				values[i] = append(values[i], 100**v)
			}
		}
	}
	bars(&b, 60, 40, 560, 280, fmt.Sprintf("%s: recall_all (%s level, k = %d)", c.Benchmark, c.Level, c.K), "% of questions", groups, values, 100)
	tokens := make([][]float64, len(c.Systems))
	for i, s := range c.Systems {
		tokens[i] = []float64{s.ContextTokens.Mean}
	}
	bars(&b, 700, 40, 120, 280, "context tokens (mean)", "tokens per question", []string{""}, tokens, 0)
	for i, s := range c.Systems {
		y := 60 + float64(i)*18
		fmt.Fprintf(&b, `<rect x="860" y="%.0f" width="14" height="12" fill="%s"/><text x="880" y="%.0f">%s</text>`+"\n",
			y-10, palette[i%len(palette)], y, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// bars draws grouped bars: values[series][group], a negative value for
// none. yMax 0 fits the data.
func bars(b *strings.Builder, x0, y0, w, h float64, title, yLabel string, groups []string, values [][]float64, yMax float64) {
	yMax = cmp.Or(yMax, fitMax(values))
	py := frame(b, x0, y0, w, h, title, yLabel, yMax)
	gw := w / float64(len(groups))
	bw := gw * 0.8 / float64(max(1, len(values)))
	for g, name := range groups {
		gx := x0 + float64(g)*gw + gw*0.1
		for s, vs := range values {
			if g >= len(vs) || vs[g] < 0 {
				continue
			}
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%.1f</title></rect>`+"\n",
				gx+float64(s)*bw, py(vs[g]), bw*0.9, y0+h-py(vs[g]), palette[s%len(palette)], vs[g])
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+float64(g)*gw+gw/2, y0+h+16, esc(name))
	}
}

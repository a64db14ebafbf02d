package evals

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
	"agentmem/tools/client"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// inProcess serves agentmem in this process, over an embedded store with
// the fake embedder in a temporary directory: the tests' server. The
// harness itself reaches it only through MCP, as it reaches any server.
func inProcess(t testing.TB) InProcess {
	t.Helper()
	e := &fake.Embedder{Name: "evals"}
	st, err := embedded.Open(context.Background(), t.TempDir(), embedded.Options{EmbedderID: e.ID(), Dims: e.Dims(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return InProcess{Description: "test server", NewServer: func(now time.Time) (*mcpserver.MCPServer, error) {
		svc, err := memory.New(memory.Options{Store: st, Embedder: e, Now: func() time.Time { return now }})
		if err != nil {
			return nil, err
		}
		return server.New(svc, server.Options{}), nil
	}}
}

// counting counts dials, to prove a resumed run asks nothing again.
type counting struct {
	Dialer
	n atomic.Int64
}

func (c *counting) Dial(ctx context.Context, now time.Time, w int) (*client.Client, error) {
	c.n.Add(1)
	return c.Dialer.Dial(ctx, now, w)
}

// testOptions runs the scripted agent on d with the baseline, two
// workers, and a result store in dir.
func testOptions(t *testing.T, d *Dataset, dir string, dialer Dialer) Options {
	t.Helper()
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	store, err := OpenResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(nil) })
	return Options{
		Data: d, DataID: "mini", Configs: []Config{Baseline()}, Scripted: true, Dialer: dialer,
		Workers: 2, Tokenizer: tok, Results: store,
	}
}

func runMatrix(t *testing.T, d *Dataset, dir string, dialer Dialer) Outcome {
	t.Helper()
	o := testOptions(t, d, dir, dialer)
	o.Configs = Matrix()
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Results.Close(out.Results); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunMatrixLoCoMo(t *testing.T) {
	d := loadLoCoMo(t)
	dir := t.TempDir()
	dialer := &counting{Dialer: inProcess(t)}
	out := runMatrix(t, d, dir, dialer)
	configs := Matrix()
	if len(out.Results) != len(configs)*d.Questions() {
		t.Fatalf("%d results, want %d", len(out.Results), len(configs)*d.Questions())
	}
	get := func(config, q string) Result {
		i := slices.IndexFunc(out.Results, func(r Result) bool { return r.Config == config && r.Question == q })
		if i < 0 {
			t.Fatalf("no result for %s %s", config, q)
		}
		return out.Results[i]
	}
	base := get("base", "conv-1/q0")
	if base.Unit != "conv-1" || !base.Retrieval.Turn.All || base.Tokens == 0 || base.Recalls != 1 || len(base.Recalled) < 3 || base.K != 10 {
		t.Errorf("base dog question: %+v", base)
	}
	// the space of the best 10 holds all 8 turns; the default's, read
	// from the chances, at most as much
	byK := get("budget=k", "conv-1/q0")
	if len(byK.Recalled) != 8 || !byK.Retrieval.Turn.All || byK.Tokens < base.Tokens {
		t.Errorf("budget=k dog question: recalled %d, %d tokens (base %d)", len(byK.Recalled), byK.Tokens, base.Tokens)
	}
	// its answer, "golden retriever", is in the text shown, excerpts and all
	if base.AnswerShown == nil || !*base.AnswerShown {
		t.Errorf("base dog question: answer shown %v, want true", base.AnswerShown)
	}
	// the best n (2 to 15 at k=5, from the chances), and as many more as
	// excerpts and one header per session leave room for in the tokens
	// they take whole: at least 2, and never more than the best 10's
	if r := get("k=5", "conv-1/q0"); len(r.Recalled) < 2 || len(r.Recalled) > len(byK.Recalled) || r.Tokens > byK.Tokens {
		t.Errorf("k=5 recalled %d (budget=k %d), %d tokens (budget=k %d)", len(r.Recalled), len(byK.Recalled), r.Tokens, byK.Tokens)
	}
	if r := get("prefix=off", "conv-1/q0"); r.Tokens >= base.Tokens || !slices.Equal(r.Recalled, base.Recalled) {
		t.Errorf("prefix=off: %d tokens (base %d), recalled %v", r.Tokens, base.Tokens, r.Recalled)
	}
	if r := get("granularity=session", "conv-1/q0"); !slices.Equal(r.Recalled, []string{"session_1:0", "session_2:0"}) && !slices.Equal(r.Recalled, []string{"session_2:0", "session_1:0"}) || !r.Retrieval.Turn.All {
		t.Errorf("session granularity: %+v", r)
	}
	if r := get("order=chronological", "conv-1/q0"); !slices.IsSortedFunc(r.Recalled, byTurnOrder) {
		t.Errorf("chronological order: %v", r.Recalled)
	}
	if r := get("order=recency", "conv-1/q0"); len(r.Recalled) != 8 || r.Recalled[0][:9] != "session_2" || r.K != 10 {
		t.Errorf("recency selection: %v, k %d", r.Recalled, r.K)
	}
	// Every ingest is searchable and timed.
	for _, g := range []Granularity{ByTurn, ByRound, BySession} {
		if len(out.Ingest[g]) != 2 {
			t.Errorf("%s ingest stats: %v", g, out.Ingest[g])
		}
	}

	s := Summarize(d, configs, out, Meta{Data: "mini"})
	if s.Benchmark != "locomo" || s.K != 10 || s.Questions != 7 || s.Retrieval.RecallAll == nil || s.ContextTokens.Mean == 0 || s.IngestTurnsPerS == 0 {
		t.Errorf("summary %+v", s.ConfigSummary)
	}
	// The adversarial question is in its category but not overall.
	if s.ByCategory["adversarial"].Questions != 1 || s.Retrieval.Questions != 5 {
		t.Errorf("adversarial %+v, overall scored %d", s.ByCategory["adversarial"], s.Retrieval.Questions)
	}
	if s.AnswerShown == nil || *s.AnswerShown <= 0 || s.ByCategory["single-hop"].AnswerShown == nil {
		t.Errorf("answer shown: overall %v, single-hop %v", s.AnswerShown, s.ByCategory["single-hop"].AnswerShown)
	}
	if err := WriteOutputs(dir, s, configs); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"benchmark", "questions", "k", "retrieval", "by_category", "context_tokens", "ingest_turns_per_s", "recall_ms", "configs"} {
		if _, ok := js[k]; !ok {
			t.Errorf("summary.json lacks %s", k)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"| granularity=session |", "| base | scripted | 10 | 7 |", "| k=5 | scripted | 5 |", "single-hop", "J not measured", "day after its last session", "## Answer shown"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	chart, _ := os.ReadFile(filepath.Join(dir, "chart.svg"))
	if !strings.HasPrefix(string(chart), "<svg") || strings.Count(string(chart), "<polyline") < 3 {
		t.Errorf("chart: %.200s", chart)
	}

	// A rerun resumes: nothing is asked again and the results are the same.
	dials := dialer.n.Load()
	again := runMatrix(t, d, dir, dialer)
	if dialer.n.Load() != dials {
		t.Errorf("the resumed run dialled the server %d times", dialer.n.Load()-dials)
	}
	if len(again.Results) != len(out.Results) {
		t.Errorf("resumed run has %d results, want %d", len(again.Results), len(out.Results))
	}
}

func byTurnOrder(a, b string) int {
	return strings.Compare(a, b)
}

func TestRunLongMemEvalAbstention(t *testing.T) {
	d := loadLME(t, "testdata/longmemeval_mini.json")
	out := runMatrix(t, d, t.TempDir(), inProcess(t))
	s := Summarize(d, Matrix(), out, Meta{})
	if s.Level != "session" || s.Retrieval.Questions != 2 || s.Abstention == nil || s.Abstention.Questions != 1 {
		t.Errorf("retrieval %+v abstention %+v", s.Retrieval, s.Abstention)
	}
	if s.Retrieval.Session == nil || s.Retrieval.Turn == nil {
		t.Fatal("LongMemEval summary lacks session and turn levels")
	}
	// before=question drops the session an hour after the question, and
	// only that one.
	recalled := func(config string) []string {
		i := slices.IndexFunc(out.Results, func(r Result) bool { return r.Config == config && r.Question == "q_ms" })
		return out.Results[i].Recalled
	}
	// the session dated after the question
	u := d.Units[slices.IndexFunc(d.Units, func(u Unit) bool { return u.Questions[0].ID == "q_ms" })]
	g3 := u.Sessions[slices.IndexFunc(u.Sessions, func(s Session) bool { return s.Date.After(u.Now) })].ID
	later := func(id string) bool { return strings.HasPrefix(id, g3+":") }
	// (the memories in its place may differ: the budget is read from the
	// candidates' chances, and they differ without the later session)
	b, f := recalled("base"), recalled("before=question")
	kept := slices.DeleteFunc(slices.Clone(b), later)
	if !slices.ContainsFunc(b, later) || slices.ContainsFunc(f, later) || slices.ContainsFunc(kept, func(id string) bool { return !slices.Contains(f, id) }) {
		t.Errorf("base recalled %v, before=question %v", b, f)
	}
}

// Sessions stored under UUIDs (as hosts name theirs) are scored by the
// benchmark's ids, as sessions stored under those ids are.
func TestRunUUIDSessions(t *testing.T) {
	d := loadLoCoMo(t)
	run := func(uuids bool) Outcome {
		o := testOptions(t, d, t.TempDir(), inProcess(t))
		o.UUIDSessions = uuids
		out, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	plain, uuids := run(false), run(true)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}:\d+$`)
	scored := 0
	for _, r := range uuids.Results {
		for _, id := range r.Recalled {
			if !uuid.MatchString(id) {
				t.Errorf("%s recalled %q, not a memory of a UUID session", r.Question, id)
			}
		}
		i := slices.IndexFunc(plain.Results, func(p Result) bool { return p.Question == r.Question && p.Config == r.Config })
		if i < 0 {
			t.Fatalf("no plain result for %s", r.Question)
		}
		p := plain.Results[i]
		if (p.Retrieval.Turn == nil) != (r.Retrieval.Turn == nil) || (p.Retrieval.Session == nil) != (r.Retrieval.Session == nil) {
			t.Fatalf("%s: scored %+v with UUIDs, %+v without", r.Question, r.Retrieval, p.Retrieval)
		}
		if r.Retrieval.Turn != nil {
			scored++
			if *r.Retrieval.Turn != *p.Retrieval.Turn || *r.Retrieval.Session != *p.Retrieval.Session || len(r.Recalled) != len(p.Recalled) {
				t.Errorf("%s: with UUIDs %+v %+v (%d recalled), without %+v %+v (%d)", r.Question, *r.Retrieval.Turn, *r.Retrieval.Session, len(r.Recalled), *p.Retrieval.Turn, *p.Retrieval.Session, len(p.Recalled))
			}
		}
	}
	if scored == 0 {
		t.Fatal("no question was scored")
	}
}

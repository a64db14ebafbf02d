package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	"golang.org/x/term"

	"agentmem/cmd/internal/backend"
	"agentmem/evals"
	"agentmem/evals/peers"
	"agentmem/memory"
)

// The benchmark commands run the benchmarks through the MCP tools; the
// harness itself is package evals.

type evalLoCoMo struct {
	evalFlags
}

func (c evalLoCoMo) Run(e *env) error { return c.run(e, "locomo", 0, 0) }

type evalLongMemEval struct {
	evalFlags
	MProxy int    `name:"mproxy" placeholder:"N" help:"Build an M-proxy: add N filler sessions per question from other questions' haystacks (never evidence sessions)."`
	Seed   uint64 `name:"seed" default:"1" help:"Seed of the M-proxy draw."`
}

func (c evalLongMemEval) Run(e *env) error { return c.run(e, "longmemeval", c.MProxy, c.Seed) }

// evalFlags are shared by both benchmarks.
type evalFlags struct {
	File string `arg:"" type:"existingfile" help:"The benchmark file."`
	Out  string `name:"out" default:"eval-out" placeholder:"DIR" help:"Where results.jsonl, summary.json, report.md and chart.svg go. A rerun with the same DIR resumes: cached questions are skipped."`

	K           int      `name:"k" default:"10" help:"Memories recalled per question."`
	Granularity string   `name:"granularity" enum:"turn,round,session" default:"turn" help:"What one memory holds: a turn, a round (a turn and its reply), or a whole session."`
	Pool        int      `name:"pool" help:"Candidate pool passed to recall."`
	Order       string   `name:"order" enum:"relevance,chronological,recency" default:"relevance" help:"relevance; chronological (the same k, oldest first); recency (the newest k of a pool of 100)."`
	Before      bool     `name:"before" help:"Hard-filter memories dated after the question (its exact time)."`
	NoPrefix    bool     `name:"no-prefix" help:"Show the answer model the memories without their [date · session · speaker] header."`
	Matrix      bool     `name:"matrix" help:"Run the interaction matrix (k, prefix, fusion, rerank pool, before, order, granularity) instead of one configuration."`
	Only        []string `name:"configs" sep:"," placeholder:"NAME,..." help:"Run these configurations: names of the matrix (as in the report, e.g. base,k=20,granularity=round) or differences from the baseline joined by + (e.g. time=0+adjacent=0)."`

	Agent        string `name:"agent" enum:"scripted,llm,both" default:"scripted" help:"scripted: the harness recalls once per question; llm: the chat model calls recall/today itself (needs --llm-model); both."`
	MaxToolCalls int    `name:"max-tool-calls" default:"4" help:"Tool calls the LLM agent may make per question."`
	LLMBaseURL   string `name:"llm-base-url" env:"AGENTMEM_EVAL_LLM_BASE_URL" help:"OpenAI-compatible chat API root (key from OPENAI_API_KEY)."`
	LLMModel     string `name:"llm-model" env:"AGENTMEM_EVAL_LLM_MODEL" help:"Chat model that answers; without it only retrieval is measured."`
	JudgeModel   string `name:"judge-model" env:"AGENTMEM_EVAL_JUDGE_MODEL" help:"Chat model that judges answers and context sufficiency (default: --llm-model). Keep it fixed across experiments."`

	ServerCmd  string `name:"server-cmd" placeholder:"CMD" help:"Drive a stdio MCP server spawned per unit with sh -c CMD instead of the in-process one; {now} and {worker} in CMD are replaced by the question date and the worker number."`
	Workers    int    `name:"workers" help:"Units (and questions within one) worked on at once (default: number of CPUs)."`
	Limit      int    `name:"limit" placeholder:"N" help:"Only N units (conversations or questions), spread evenly over the file: the files are grouped by question type."`
	Keep       bool   `name:"keep" help:"Keep each unit's namespaces after scoring (default: forget them, which keeps the store small)."`
	UUIDs      bool   `name:"uuid-sessions" help:"Store each session under a UUID made from its unit and id, as agent hosts (Claude Code, Codex) name sessions, instead of the benchmark's short id: the text a recall shows then costs what it costs a host's model. Scoring is unchanged. agentmem's own runs only (not with --peers)."`
	Quiet      bool   `name:"quiet" help:"No progress bar."`
	CPUProfile string `name:"cpuprofile" placeholder:"FILE" help:"Write a CPU profile (go tool pprof) of the run."`
	Features   string `name:"features" placeholder:"FILE" help:"Also write every candidate of each question's recall under the first configuration, with what the learned order read of it and whether it holds evidence (JSON lines), to fit the learned order (evals/learn). Questions already in --out's results are not asked again, so use a fresh --out."`

	Peers       []string      `name:"peers" sep:"," placeholder:"NAME" help:"Also run these other MCP memory servers on the same questions with the same k, and write compare.md, compare.json and compare.svg beside agentmem's report: server-memory, ai-devkit-memory, memory-keeper. They are installed from the npm registry into --peer-cache (Node.js and npm are needed)."`
	PeerCache   string        `name:"peer-cache" placeholder:"DIR" help:"Where the peers are installed (default: <user cache dir>/agentmem-eval/peers)."`
	Node        string        `name:"node" placeholder:"PATH" help:"The node binary that runs the peers (default: node from PATH); npm installs with the npm from PATH."`
	PeerTimeout time.Duration `name:"peer-timeout" default:"60s" help:"Longest a peer may take to start, to store one session or to answer one search; a peer that takes longer is counted as a timeout and restarted."`

	hostFlags
}

// run is one eval command: the benchmark through agentmem's tools, then
// the peers (--peers) on the same questions. Each step is a method below,
// so that another way to reach the memory or to answer is one more case in
// dialer or options.
func (c evalFlags) run(e *env, bench string, mproxy int, seed uint64) error {
	if c.UUIDs && len(c.Peers) > 0 {
		return fmt.Errorf("--uuid-sessions names agentmem's sessions only: run it without --peers")
	}
	d, digest, err := load(bench, c.File)
	if err != nil {
		return err
	}
	if c.UUIDs {
		d.Notes = append(d.Notes, "--uuid-sessions: every session was stored under a UUID made from its unit and id, as agent hosts name theirs; scoring reads the benchmark's ids.")
	}
	installed, err := c.installPeers(e)
	if err != nil {
		return err
	}
	dataID, dataMeta, err := c.sample(d, digest, mproxy, seed)
	if err != nil {
		return err
	}
	stop, err := startCPUProfile(c.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	dialer, hasVectors, h, closeDialer, err := c.dialer(e)
	if err != nil {
		return err
	}
	defer closeDialer()
	o, meta, err := c.options(e, d, dataID, dialer, hasVectors)
	if err != nil {
		return err
	}
	o.Host = h
	if h != nil {
		o.HostQuestions = hostQuestions(d, c.HostN)
	}
	meta.Data = dataMeta
	s, err := c.runAgentmem(e, bench, o, meta)
	if err != nil || len(installed) == 0 {
		return err
	}
	return c.comparePeers(e, o, s, installed)
}

// sample applies --mproxy and --limit to d, and names the data that results
// were cached for (dataID) and that the report describes (dataMeta).
func (c evalFlags) sample(d *evals.Dataset, digest string, mproxy int, seed uint64) (dataID, dataMeta string, err error) {
	dataID = fmt.Sprintf("%s %s", filepath.Base(c.File), digest[:16])
	dataMeta = fmt.Sprintf("%s (sha256 %s)", filepath.Base(c.File), digest)
	if mproxy > 0 {
		if err := evals.MProxy(d, mproxy, seed); err != nil {
			return "", "", err
		}
		dataID += fmt.Sprintf(" M-proxy +%d sessions seed %d", mproxy, seed)
		dataMeta += fmt.Sprintf(", M-proxy +%d sessions per question, seed %d", mproxy, seed)
	}
	if c.Limit > 0 && c.Limit < len(d.Units) {
		d.Units = spread(d.Units, c.Limit)
		dataID += fmt.Sprintf(" %d units spread evenly", c.Limit)
	}
	if c.Limit > 0 {
		dataMeta += fmt.Sprintf(", %d units spread evenly over the file", len(d.Units))
	}
	return dataID, dataMeta, nil
}

// dialer is how the harness reaches the memory: a stdio server spawned per
// unit (--server-cmd), or agentmem in this process, opened as agentmem
// serve opens it. hasVectors says whether the configurations that need
// vectors can run; closeDialer releases what dialer opened.
func (c evalFlags) dialer(e *env) (d evals.Dialer, hasVectors bool, h evals.Host, closeDialer func(), err error) {
	if c.ServerCmd != "" {
		if c.Host != "" {
			return nil, false, nil, nil, errors.New("--host runs with the in-process server, not --server-cmd")
		}
		return evals.Stdio{Command: c.ServerCmd}, true, nil, func() {}, nil
	}
	cfg := e.cfg
	cfg.NoSync = true // eval ingest is bulk; a lost write only costs a rerun
	if cfg.DataDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, false, nil, nil, fmt.Errorf("no cache directory (%w); set --data-dir", err)
		}
		cfg.DataDir = filepath.Join(cache, "agentmem-eval")
	}
	b, err := backend.Open(e.ctx, cfg, e.log)
	if err != nil {
		return nil, false, nil, nil, err
	}
	d = evals.InProcess{NewServer: b.ServerAt(cfg), Description: b.Describe(cfg)}
	closeDialer = func() { b.Close() }
	if c.Host != "" {
		var stop func()
		if h, stop, err = c.startHost(e, b, cfg); err != nil {
			b.Close()
			return nil, false, nil, nil, err
		}
		closeDialer = func() { stop(); b.Close() }
	}
	return d, e.cfg.Embedder != "none", h, closeDialer, nil
}

// options are the harness's options for the flags: the configurations, the
// agents, and the chat models that answer and judge (--llm-model).
func (c evalFlags) options(e *env, d *evals.Dataset, dataID string, dialer evals.Dialer, hasVectors bool) (evals.Options, evals.Meta, error) {
	configs, skipped, err := c.configs(hasVectors, e.cfg.Fusion)
	if err != nil {
		return evals.Options{}, evals.Meta{}, err
	}
	if len(configs) == 0 {
		return evals.Options{}, evals.Meta{}, fmt.Errorf("no configuration to run (--configs %v)", c.Only)
	}
	for _, s := range skipped {
		e.log.Warn("skipping a configuration that needs vectors (--embedder none)", "config", s)
	}
	if e.cfg.Reranker.URL == "" && c.ServerCmd == "" && slices.ContainsFunc(configs, func(c evals.Config) bool { return c.Reranker != nil }) {
		e.log.Warn("a configuration sets reranker, but the server has none (--reranker-url): reranker=off changes nothing, reranker=on fails")
	}
	o := evals.Options{
		Data: d, DataID: dataID, Configs: configs, Dialer: dialer,
		Scripted: c.Agent != "llm", LLMAgent: c.Agent != "scripted", MaxToolCalls: c.MaxToolCalls,
		Workers: cmp.Or(c.Workers, runtime.NumCPU()), Keep: c.Keep, UUIDSessions: c.UUIDs, Version: revision(),
	}
	if o.Tokenizer, err = evals.NewTokenizer(); err != nil {
		return evals.Options{}, evals.Meta{}, err
	}
	meta := evals.Meta{Server: dialer.Describe(), Version: o.Version}
	if c.LLMModel != "" {
		key := os.Getenv("OPENAI_API_KEY")
		o.Chat = evals.NewChat(c.LLMBaseURL, key, c.LLMModel)
		judge := cmp.Or(c.JudgeModel, c.LLMModel)
		o.Judge = &evals.Judge{Chat: evals.NewChat(c.LLMBaseURL, key, judge)}
		meta.AnswerModel, meta.JudgeModel = c.LLMModel, judge
	} else if o.LLMAgent {
		return evals.Options{}, evals.Meta{}, errors.New("--agent llm needs --llm-model")
	}
	return o, meta, nil
}

// runAgentmem runs the benchmark through agentmem, writes its outputs into
// --out and prints the headline.
func (c evalFlags) runAgentmem(e *env, bench string, o evals.Options, meta evals.Meta) (evals.Summary, error) {
	var err error
	if o.Results, err = evals.OpenResults(c.Out); err != nil {
		return evals.Summary{}, err
	}
	if !c.Quiet {
		o.Progress = evals.NewProgress(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())))
	}
	if c.Features != "" && !o.Scripted {
		o.Results.Close(nil)
		return evals.Summary{}, errors.New("--features logs the scripted agent's recalls: use --agent scripted or both")
	}
	if c.Features != "" {
		f, err := os.Create(c.Features)
		if err != nil {
			o.Results.Close(nil)
			return evals.Summary{}, fmt.Errorf("--features: %w", err)
		}
		defer f.Close()
		o.Features = evals.NewFeatureLog(f, bench)
	}
	d := o.Data
	e.log.Info("eval", "benchmark", bench, "units", len(d.Units), "questions", d.Questions(), "turns", d.Turns(),
		"configs", len(o.Configs), "server", o.Dialer.Describe(), "out", c.Out)
	start := time.Now()
	out, runErr := evals.Run(e.ctx, o)
	if runErr != nil {
		o.Results.Close(nil)
		return evals.Summary{}, runErr
	}
	if err := o.Results.Close(out.Results); err != nil {
		return evals.Summary{}, err
	}
	s := evals.Summarize(d, o.Configs, out, meta)
	if err := evals.WriteOutputs(c.Out, s, o.Configs); err != nil {
		return evals.Summary{}, err
	}
	e.log.Info("done", "took", time.Since(start).Round(time.Second), "report", filepath.Join(c.Out, "report.md"))
	printHeadline(os.Stdout, s)
	if o.Host != nil {
		printHostTable(os.Stdout, d, o.Configs, out, meta, o.Host.Name())
	}
	return s, nil
}

// comparePeers runs each installed peer on agentmem's questions with its k,
// and writes and prints the comparison.
func (c evalFlags) comparePeers(e *env, o evals.Options, s evals.Summary, installed []peers.Installation) error {
	systems := []evals.System{evals.AgentmemSystem(s)}
	for i, name := range c.Peers {
		sys, err := c.runPeer(e, o, s.K, name, installed[i])
		if err != nil {
			return err
		}
		systems = append(systems, sys)
	}
	cmp := evals.Compare(s, systems)
	if err := evals.WriteComparison(c.Out, cmp); err != nil {
		return err
	}
	printComparison(os.Stdout, cmp)
	e.log.Info("comparison", "report", filepath.Join(c.Out, "compare.md"))
	return nil
}

// runPeer runs one peer, its results in --out/peers/NAME.
func (c evalFlags) runPeer(e *env, o evals.Options, k int, name string, inst peers.Installation) (evals.System, error) {
	po := evals.PeerOptions{
		Data: o.Data, DataID: o.DataID, Version: o.Version, Name: name, Installation: inst,
		K: k, Workers: o.Workers, Timeout: c.PeerTimeout, Tokenizer: o.Tokenizer,
	}
	dir := filepath.Join(c.Out, "peers", name)
	var err error
	if po.Results, err = evals.OpenResults(dir); err != nil {
		return evals.System{}, err
	}
	if !c.Quiet {
		po.Progress = evals.NewProgress(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())))
	}
	e.log.Info("peer", "name", name, "server", po.Describe(), "out", dir)
	start := time.Now()
	out, err := evals.RunPeer(e.ctx, po)
	if err != nil {
		po.Results.Close(nil)
		return evals.System{}, fmt.Errorf("peer %s: %w", name, err)
	}
	if err := po.Results.Close(out.Results); err != nil {
		return evals.System{}, err
	}
	sys := evals.SummarizePeer(o.Data, po, out)
	e.log.Info("peer done", "name", name, "took", time.Since(start).Round(time.Second), "failed", sys.Errors, "restarts", sys.Restarts)
	return sys, nil
}

// installPeers checks the flags a comparison needs and installs the peers
// (nothing when --peers is not given).
func (c evalFlags) installPeers(e *env) ([]peers.Installation, error) {
	if len(c.Peers) == 0 {
		return nil, nil
	}
	switch {
	case c.Matrix || len(c.Only) > 0:
		return nil, errors.New("--peers compares one configuration: leave out --matrix and --configs")
	case c.Agent != "scripted":
		return nil, errors.New("--peers needs --agent scripted: a peer is asked once per question, as the scripted agent recalls")
	case c.Granularity != string(evals.ByTurn):
		return nil, errors.New("--peers needs --granularity turn: every peer stores one memory per turn")
	case c.PeerTimeout <= 0:
		return nil, fmt.Errorf("--peer-timeout: %v, must be positive", c.PeerTimeout)
	}
	in := peers.Installer{CacheDir: c.PeerCache, Node: c.Node, Log: func(format string, args ...any) {
		e.log.Info(fmt.Sprintf(format, args...))
	}}
	var out []peers.Installation
	for i, name := range c.Peers {
		if slices.Contains(c.Peers[:i], name) {
			return nil, fmt.Errorf("--peers: %s is named twice", name)
		}
		p, err := peers.New(name)
		if err != nil {
			return nil, fmt.Errorf("--peers: %w", err)
		}
		inst, err := in.Install(e.ctx, p.Package())
		if err != nil {
			return nil, err
		}
		out = append(out, inst)
	}
	return out, nil
}

func printComparison(w io.Writer, c evals.Comparison) {
	fmt.Fprintf(w, "compared on %d questions, k = %d (%s-level recall_all / recall_any):\n", c.Questions, c.K, c.Level)
	for _, s := range c.Systems {
		failed := 0
		for _, n := range s.Errors {
			failed += n
		}
		fmt.Fprintf(w, "  %-18s all %6s any %6s  tokens %5.0f  ingest %6.0f turns/s  recall p50 %.1f ms p95 %.1f ms  failed %d\n", s.Name,
			evals.Pct(s.Retrieval.RecallAll), evals.Pct(s.Retrieval.RecallAny), s.ContextTokens.Mean, s.IngestTurnsPerS, s.RecallMS.P50, s.RecallMS.P95, failed)
	}
}

// configs is the matrix or the one configuration the flags describe,
// without those that need vectors when there are none.
func (c evalFlags) configs(hasVectors bool, fusion string) (run []evals.Config, skipped []string, err error) {
	all := evals.Matrix()
	if !c.Matrix {
		cfg := evals.Baseline()
		cfg.K, cfg.Granularity, cfg.Pool = c.K, evals.Granularity(c.Granularity), c.Pool
		cfg.Order, cfg.Before, cfg.NoPrefix = c.Order, c.Before, c.NoPrefix
		cfg.NeedsVectors = fusion == string(memory.VectorOnly) || fusion == string(memory.Rerank)
		all = []evals.Config{cfg}
	}
	if len(c.Only) > 0 {
		// named configurations: the matrix's, or any written as factors
		var named []evals.Config
		matrix := evals.Matrix()
		for _, name := range c.Only {
			i := slices.IndexFunc(matrix, func(m evals.Config) bool { return m.Name == name })
			if i >= 0 {
				named = append(named, matrix[i])
				continue
			}
			cfg, err := evals.ParseConfig(name)
			if err != nil {
				return nil, nil, err
			}
			named = append(named, cfg)
		}
		all = named
	}
	for _, cfg := range all {
		if cfg.NeedsVectors && !hasVectors {
			skipped = append(skipped, cfg.Name)
			continue
		}
		run = append(run, cfg)
	}
	return run, skipped, nil
}

// spread picks n of us at even intervals, in order.
func spread[T any](us []T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = us[i*len(us)/n]
	}
	return out
}

// load reads a benchmark file and its sha256.
func load(bench, path string) (*evals.Dataset, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	h := sha256.New()
	r := io.TeeReader(f, h)
	var d *evals.Dataset
	if bench == "locomo" {
		d, err = evals.LoadLoCoMo(r)
	} else {
		d, err = evals.LoadLongMemEval(r)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	io.Copy(h, r) // the digest covers the whole file
	return d, hex.EncodeToString(h.Sum(nil)), nil
}

// revision names the code: the VCS revision the binary was built from
// (marked when the tree had changes), or else a digest of the executable,
// so that results cached by other code are never reused.
func revision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", ""
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if rev != "" {
			return rev + dirty
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return version
	}
	f, err := os.Open(exe)
	if err != nil {
		return version
	}
	defer f.Close()
	h := sha256.New() // streamed: the binary is 80 MB, and runs report their peak RSS
	if _, err := io.Copy(h, f); err != nil {
		return version
	}
	return version + " (executable sha256 " + hex.EncodeToString(h.Sum(nil))[:12] + ")"
}

func printHeadline(w io.Writer, s evals.Summary) {
	fmt.Fprintf(w, "%s: %d questions; %s-level recall_all / recall_any over %d scored questions:\n", s.Benchmark, s.Questions, s.Level, s.Retrieval.Questions)
	for _, c := range s.Configs {
		line := fmt.Sprintf("  %-22s %-8s all %6s any %6s  tokens %5.0f  recall p50 %.1f ms", c.Config, c.Agent, evals.Pct(c.Retrieval.RecallAll), evals.Pct(c.Retrieval.RecallAny), c.ContextTokens.Mean, c.RecallMS.P50)
		if c.AnswerShown != nil {
			line += "  answer shown " + evals.Pct(c.AnswerShown)
		}
		if c.J != nil {
			line += "  J " + evals.Pct(c.J)
		}
		if c.RerankFailed > 0 {
			line += fmt.Sprintf("  NOT RERANKED %d (rerank_error in results.jsonl)", c.RerankFailed)
		}
		fmt.Fprintln(w, line)
	}
}

// startCPUProfile writes a CPU profile to path until stop is called; an
// empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

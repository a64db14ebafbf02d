package evals

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"agentmem/tools/spec"
)

// Config is one way of asking: the recall arguments, what is stored per
// memory, and how the recalled memories are shown to the answer model.
// Everything reaches the server through the tools' arguments; nothing is
// special-cased for benchmarks inside the memory.
type Config struct {
	Name        string      `json:"name"`
	K           int         `json:"k"`
	Granularity Granularity `json:"granularity"`
	Fusion      string      `json:"fusion,omitempty"` // "" means the server's default (rrf)
	Pool        int         `json:"pool,omitempty"`
	// Before hard-filters memories dated after the question.
	Before bool `json:"before,omitempty"`
	// Order is relevance, chronological (the same k, oldest first) or
	// recency (the newest k of a large relevance pool: relevance replaced
	// by recency).
	Order string `json:"order,omitempty"`
	// NoPrefix gives the answer model the memories' text without the
	// "[date · session · speaker]" header. The stored text is raw either
	// way, so this changes answers and tokens, never retrieval.
	NoPrefix bool `json:"no_prefix,omitempty"`
	// Time is weights.time (nil: the server's default; 0: off).
	Time *float64 `json:"time,omitempty"`
	// Adjacent is weights.adjacent (nil: the server's default; 0: off).
	Adjacent *float64 `json:"adjacent,omitempty"`
	// Kinds is weights.kinds (nil: the server's default; 0: off).
	Kinds *float64 `json:"kinds,omitempty"`
	// Learned is weights.learned (nil: the server's default; 0: off).
	Learned *float64 `json:"learned,omitempty"`
	// Budget is recall's budget argument ("": the server's default).
	Budget string `json:"budget,omitempty"`
	// AutoK leaves k out of the recall, which then takes one from the
	// size of the history (K is still the k the figures are told by).
	AutoK bool `json:"auto_k,omitempty"`
	// TextWeight, VectorWeight, EntityWeight and RankConstant are the
	// recall's other weights (0: the server's default).
	TextWeight   float64 `json:"text_weight,omitempty"`
	VectorWeight float64 `json:"vector_weight,omitempty"`
	EntityWeight float64 `json:"entity_weight,omitempty"`
	RankConstant int     `json:"rank_constant,omitempty"`
	// Context and MaxTokens are the recall's context and max_tokens (0:
	// the server's default).
	Context   int `json:"context,omitempty"`
	MaxTokens int `json:"max_tokens,omitempty"`
	// Excerpt is the recall's excerpt (nil: the server's default; 0: off).
	Excerpt *int `json:"excerpt,omitempty"`
	// Reranker is the recall's reranker (nil: the server's default, which
	// reranks when the server has one).
	Reranker *bool `json:"reranker,omitempty"`
	// NeedsVectors marks configurations that cannot run without an embedder.
	NeedsVectors bool `json:"-"`
}

// Orders and fusions of the recall tool that the configurations name.
const (
	byRelevance   = "relevance"
	chronological = "chronological"
	recency       = "recency"
)

// maxK is the recall tool's limit on k, read from its schema.
var maxK = int(*spec.Schema[spec.RecallArgs]().Properties["k"].Maximum)

// recencyPool is how many memories a recency configuration recalls by
// relevance before keeping the newest k: the tool's maximum.
var recencyPool = maxK

// Baseline is the configuration a single run uses unless told otherwise.
func Baseline() Config {
	return Config{Name: "base", K: 10, Granularity: ByTurn, Order: byRelevance}
}

// Matrix is the interaction matrix: the baseline and one variation of it
// per factor, so each row differs from the baseline in exactly one thing.
func Matrix() []Config {
	b := Baseline()
	vary := func(name string, f func(*Config)) Config {
		c := b
		c.Name = name
		f(&c)
		return c
	}
	out := []Config{b}
	for _, k := range []int{5, 15, 20, 30} {
		out = append(out, vary(fmt.Sprintf("k=%d", k), func(c *Config) { c.K = k }))
	}
	out = append(out,
		vary("budget=k", func(c *Config) { c.Budget = "k" }),
		vary("prefix=off", func(c *Config) { c.NoPrefix = true }),
		vary("fusion=text", func(c *Config) { c.Fusion = "text" }),
		vary("fusion=vector", func(c *Config) { c.Fusion = "vector"; c.NeedsVectors = true }),
	)
	for _, p := range []int{10, 50, 100} {
		out = append(out, vary(fmt.Sprintf("rerank pool=%d", p), func(c *Config) {
			c.Fusion, c.Pool, c.NeedsVectors = "rerank", p, true
		}))
	}
	out = append(out,
		vary("before=question", func(c *Config) { c.Before = true }),
		vary("order=recency", func(c *Config) { c.Order = recency }),
		vary("order=chronological", func(c *Config) { c.Order = chronological }),
		vary("granularity=round", func(c *Config) { c.Granularity = ByRound }),
		vary("granularity=session", func(c *Config) { c.Granularity = BySession }),
	)
	return out
}

// RecallArgs are the recall tool's arguments for question q in namespace ns.
func (c Config) RecallArgs(q Question, ns string) spec.RecallArgs {
	args := spec.RecallArgs{Query: q.Text, K: c.K, Namespace: ns, Fusion: c.Fusion, Pool: c.Pool}
	if c.AutoK {
		args.K = 0
	}
	if c.Time != nil || c.Adjacent != nil || c.Kinds != nil || c.Learned != nil || c.TextWeight != 0 || c.VectorWeight != 0 || c.EntityWeight != 0 || c.RankConstant != 0 {
		args.Weights = &spec.Weights{Time: c.Time, Adjacent: c.Adjacent, Kinds: c.Kinds, Learned: c.Learned,
			Text: c.TextWeight, Vector: c.VectorWeight, Entity: c.EntityWeight, RankConstant: c.RankConstant}
	}
	args.Context, args.MaxTokens, args.Excerpt, args.Reranker, args.Budget = c.Context, c.MaxTokens, c.Excerpt, c.Reranker, c.Budget
	if c.Before {
		// The question's exact time, not its day: LongMemEval has sessions
		// later on the question's own day (an artefact of its source
		// data), and they are what this configuration is about.
		args.Before = q.Date.Format(time.RFC3339)
	}
	switch c.Order {
	case recency:
		args.K = max(recencyPool, c.K)
		args.Order = recency
	case chronological:
		args.Order = chronological
	}
	return args
}

// numericFactors are ParseConfig's factors that take a number, and where
// each puts it.
var numericFactors = map[string]func(c *Config, f float64){
	"k":          func(c *Config, f float64) { c.K = int(f) },
	"pool":       func(c *Config, f float64) { c.Pool = int(f) },
	"context":    func(c *Config, f float64) { c.Context = int(f) },
	"max_tokens": func(c *Config, f float64) { c.MaxTokens = int(f) },
	"excerpt":    func(c *Config, f float64) { c.Excerpt = new(int(f)) },
	"w.text":     func(c *Config, f float64) { c.TextWeight = f },
	"w.vector":   func(c *Config, f float64) { c.VectorWeight = f },
	"w.entity":   func(c *Config, f float64) { c.EntityWeight = f },
	"w.rank":     func(c *Config, f float64) { c.RankConstant = int(f) },
	"time":       func(c *Config, f float64) { c.Time = &f },
	"adjacent":   func(c *Config, f float64) { c.Adjacent = &f },
	"learned":    func(c *Config, f float64) { c.Learned = &f },
	"kinds":      func(c *Config, f float64) { c.Kinds = &f },
}

// ParseConfig reads a configuration named by its differences from the
// baseline, joined by "+": "k=20", "time=0+adjacent=0",
// "fusion=text+k=15". Factors: k, pool, fusion, order, granularity,
// k=auto (the server's k for the history's size), time, adjacent, kinds,
// learned, budget=chance|k, reranker=off|on,
// w.text, w.vector, w.entity, w.rank (weights),
// context, max_tokens, prefix=off,
// before=question.
func ParseConfig(name string) (Config, error) {
	c := Baseline()
	c.Name = name
	if name == "base" {
		return c, nil
	}
	for part := range strings.SplitSeq(name, "+") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return c, fmt.Errorf("config %q: %q is not factor=value", name, part)
		}
		if k == "k" && v == "auto" {
			c.AutoK = true
			continue
		}
		if set, ok := numericFactors[k]; ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return c, fmt.Errorf("config %q: %s=%q is not a number", name, k, v)
			}
			set(&c, f)
			continue
		}
		switch k {
		case "fusion":
			c.Fusion = v
			c.NeedsVectors = v == "vector" || v == "rerank"
		case "order":
			c.Order = v
		case "budget":
			c.Budget = v
		case "granularity":
			c.Granularity = Granularity(v)
		case "prefix":
			c.NoPrefix = v == "off"
		case "before":
			c.Before = v == "question"
		case "reranker":
			if v != "on" && v != "off" {
				return c, fmt.Errorf("config %q: reranker=%q, want on or off", name, v)
			}
			c.Reranker = new(v == "on")
		default:
			return c, fmt.Errorf("config %q: unknown factor %q", name, k)
		}
	}
	return c, c.Validate()
}

// Validate reports a configuration that cannot run.
func (c Config) Validate() error {
	if c.K < 1 || c.K > maxK {
		return fmt.Errorf("config %s: k must be between 1 and %d", c.Name, maxK)
	}
	if err := c.Granularity.valid(); err != nil {
		return fmt.Errorf("config %s: %w", c.Name, err)
	}
	switch c.Order {
	case "", byRelevance, recency, chronological:
	default:
		return fmt.Errorf("config %s: order %q", c.Name, c.Order)
	}
	if c.AutoK && c.Order == recency {
		// the recency row recalls a large pool and keeps its newest k,
		// which must be known before the recall
		return fmt.Errorf("config %s: order=recency keeps the newest k of a large pool and needs a k; k=auto leaves it to the server", c.Name)
	}
	if c.Budget != "" && c.Budget != "chance" && c.Budget != "k" {
		return fmt.Errorf("config %s: budget %q, want chance or k", c.Name, c.Budget)
	}
	return nil
}

// Describe is a one-line description of how c differs from nothing.
func (c Config) Describe() string {
	kk := fmt.Sprintf("k=%d", c.K)
	if c.AutoK {
		kk = "k=auto (the server's, from the history's size)"
	}
	parts := []string{kk, "granularity=" + string(c.Granularity),
		"fusion=" + cmp.Or(c.Fusion, "server default (rrf)")}
	if c.Pool > 0 {
		parts = append(parts, fmt.Sprintf("pool=%d", c.Pool))
	}
	parts = append(parts, "order="+cmp.Or(c.Order, byRelevance))
	if c.Before {
		parts = append(parts, "before=question time")
	}
	prefix := "on"
	if c.NoPrefix {
		prefix = "off"
	}
	return strings.Join(append(parts, "prefix="+prefix), ", ")
}

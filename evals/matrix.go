package evals

import (
	"fmt"
	"strings"
	"time"

	"agentmem/memory"
)

// Config is one way of asking: the recall arguments, what is stored per
// memory, and how the recalled memories are shown to the answer model.
// Everything reaches the server through the tools' arguments; nothing is
// special-cased for benchmarks inside the memory.
type Config struct {
	Name        string        `json:"name"`
	K           int           `json:"k"`
	Granularity Granularity   `json:"granularity"`
	Fusion      memory.Fusion `json:"fusion,omitempty"` // "" means the server's default (rrf)
	Pool        int           `json:"pool,omitempty"`
	// Before hard-filters memories dated after the question.
	Before bool `json:"before,omitempty"`
	// Order is relevance, chronological (the same k, oldest first) or
	// recency (the newest k of a large relevance pool: relevance replaced
	// by recency).
	Order memory.Order `json:"order,omitempty"`
	// NoPrefix gives the answer model the memories' text without the
	// "[date · session · speaker]" header. The stored text is raw either
	// way, so this changes answers and tokens, never retrieval.
	NoPrefix bool `json:"no_prefix,omitempty"`
	// NeedsVectors marks configurations that cannot run without an embedder.
	NeedsVectors bool `json:"-"`
}

// recencyPool is how many memories a recency configuration recalls by
// relevance before keeping the newest k: the tool's maximum.
const recencyPool = memory.MaxK

// Baseline is the configuration a single run uses unless told otherwise.
func Baseline() Config {
	return Config{Name: "base", K: memory.DefaultK, Granularity: ByTurn, Order: memory.ByRelevance}
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
		vary("prefix=off", func(c *Config) { c.NoPrefix = true }),
		vary("fusion=text", func(c *Config) { c.Fusion = memory.TextOnly }),
		vary("fusion=vector", func(c *Config) { c.Fusion = memory.VectorOnly; c.NeedsVectors = true }),
	)
	for _, p := range []int{10, 50, 100} {
		out = append(out, vary(fmt.Sprintf("rerank pool=%d", p), func(c *Config) {
			c.Fusion, c.Pool, c.NeedsVectors = memory.Rerank, p, true
		}))
	}
	out = append(out,
		vary("before=question", func(c *Config) { c.Before = true }),
		vary("order=recency", func(c *Config) { c.Order = memory.Recency }),
		vary("order=chronological", func(c *Config) { c.Order = memory.Chronological }),
		vary("granularity=round", func(c *Config) { c.Granularity = ByRound }),
		vary("granularity=session", func(c *Config) { c.Granularity = BySession }),
	)
	return out
}

// RecallArgs are the recall tool's arguments for question q in namespace ns.
func (c Config) RecallArgs(q Question, ns string) map[string]any {
	args := map[string]any{"query": q.Text, "k": c.K, "namespace": ns}
	if c.Fusion != "" {
		args["fusion"] = string(c.Fusion)
	}
	if c.Pool > 0 {
		args["pool"] = c.Pool
	}
	if c.Before {
		// The question's exact time, not its day: LongMemEval has sessions
		// later on the question's own day (an artefact of its source
		// data), and they are what this configuration is about.
		args["before"] = q.Date.Format(time.RFC3339)
	}
	switch c.Order {
	case memory.Recency:
		args["k"] = max(recencyPool, c.K)
		args["order"] = string(memory.Recency)
	case memory.Chronological:
		args["order"] = string(memory.Chronological)
	}
	return args
}

// Validate reports a configuration that cannot run.
func (c Config) Validate() error {
	if c.K < 1 || c.K > memory.MaxK {
		return fmt.Errorf("config %s: k must be between 1 and %d", c.Name, memory.MaxK)
	}
	if err := c.Granularity.valid(); err != nil {
		return fmt.Errorf("config %s: %w", c.Name, err)
	}
	switch c.Order {
	case "", memory.ByRelevance, memory.Recency, memory.Chronological:
	default:
		return fmt.Errorf("config %s: order %q", c.Name, c.Order)
	}
	return nil
}

// Describe is a one-line description of how c differs from nothing.
func (c Config) Describe() string {
	parts := []string{fmt.Sprintf("k=%d", c.K), "granularity=" + string(c.Granularity)}
	f := string(c.Fusion)
	if f == "" {
		f = "server default (rrf)"
	}
	parts = append(parts, "fusion="+f)
	if c.Pool > 0 {
		parts = append(parts, fmt.Sprintf("pool=%d", c.Pool))
	}
	o := string(c.Order)
	if o == "" {
		o = string(memory.ByRelevance)
	}
	parts = append(parts, "order="+o)
	if c.Before {
		parts = append(parts, "before=question time")
	}
	if c.NoPrefix {
		parts = append(parts, "prefix=off")
	} else {
		parts = append(parts, "prefix=on")
	}
	return strings.Join(parts, ", ")
}

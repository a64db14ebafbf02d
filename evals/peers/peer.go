package peers

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

// Turn is one conversation turn as a peer stores it.
type Turn struct {
	// Ref names the turn for scoring (LoCoMo "D1:3", LongMemEval
	// "<session id>:<index>"). A peer never sees it: adapters that need an
	// id in the stored text use an opaque code (see ledger) instead, since a
	// benchmark's session ids can give the evidence away (LongMemEval's
	// "answer_..." sessions).
	Ref       string
	SessionID string
	// Date is the session's date; every peer gets it inside the stored text
	// (see Render), since none of them has a date field.
	Date    time.Time
	Role    string // user or assistant
	Speaker string // a person's name, when the benchmark has one
	Text    string
}

// Hit is one search result mapped back to the turns it holds.
type Hit struct {
	// Refs are the turns of the result: usually one; several when the peer
	// merged identical texts into one memory.
	Refs []string
	// Text is what the peer returned for this result, without the adapter's
	// bookkeeping (opaque codes), for context-token accounting.
	Text string
}

// Package is a pinned npm package and how to start its server.
type Package struct {
	Name    string // npm name, e.g. "@modelcontextprotocol/server-memory"
	Version string // exact version
	// Entry is the server's script, relative to node_modules/<Name>.
	Entry string
	// MinNode is the lowest Node.js major version the server runs on.
	MinNode int
	// AllowScripts names the dependencies whose install scripts must run
	// (native modules that build or fetch a binary); npm versions that block
	// install scripts by default get them in the prefix's allowScripts.
	AllowScripts []string
}

// Spec is how to start a peer's server: Node runs Entry, in the data
// directory, with Env added to (and overriding) the harness's environment.
type Spec struct {
	Env []string
}

// Peer adapts one MCP memory server to the benchmark: how it stores a turn
// with its session and date, how it is queried, and how its answer maps
// back to turns.
//
// An adapter keeps, per namespace, the table of codes it stored (see
// ledger), so Search must be called on the adapter that stored the
// namespace. Adapters are safe for concurrent use on distinct namespaces.
type Peer interface {
	// Name is the short name used on the command line and in reports.
	Name() string
	Package() Package
	// Spec is how to start the server with all its state inside dataDir,
	// an empty directory that belongs to this server process alone.
	Spec(dataDir string) Spec
	// Store stores turns (of one or more sessions, in order) into ns.
	Store(ctx context.Context, c *client.Client, ns string, turns []Turn) error
	// Search asks ns about question and returns at most k hits, best first.
	Search(ctx context.Context, c *client.Client, ns string, question string, k int) ([]Hit, error)
}

// New returns a fresh adapter for the peer called name.
func New(name string) (Peer, error) {
	switch name {
	case "server-memory":
		return NewServerMemory(), nil
	case "ai-devkit-memory":
		return NewAIDevkit(), nil
	case "memory-keeper":
		return NewMemoryKeeper(), nil
	}
	return nil, fmt.Errorf("peers: unknown peer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the known peers.
func Names() []string {
	return []string{"server-memory", "ai-devkit-memory", "memory-keeper"}
}

// Render is the text every peer stores for a turn: the session's date and
// weekday, the speaker (or the role), and the text, the same information
// agentmem's recall prints in front of a memory.
func Render(t Turn) string {
	who := cmp.Or(t.Speaker, t.Role)
	return fmt.Sprintf("[%s] %s: %s", t.Date.Format("2006-01-02 Mon"), who, t.Text)
}

// BySession splits turns into runs of the same session, in order.
func BySession(turns []Turn) [][]Turn {
	var out [][]Turn
	for i := 0; i < len(turns); {
		j := i + 1
		for j < len(turns) && turns[j].SessionID == turns[i].SessionID {
			j++
		}
		out = append(out, turns[i:j])
		i = j
	}
	return out
}

// validate checks the turns a Store call gets.
func validate(turns []Turn) error {
	for i, t := range turns {
		if t.Ref == "" {
			return fmt.Errorf("turns[%d].Ref: empty", i)
		}
		if t.Date.IsZero() {
			return fmt.Errorf("turns[%d].Date (turn %s): zero", i, t.Ref)
		}
		if t.Speaker == "" && t.Role == "" {
			return fmt.Errorf("turns[%d] (turn %s): neither Speaker nor Role is set", i, t.Ref)
		}
	}
	return nil
}

// checkK checks the k a Search gets.
func checkK(k int) error {
	if k < 1 {
		return fmt.Errorf("k: %d, must be at least 1", k)
	}
	return nil
}

// Package peertest is a small stand-in for @modelcontextprotocol/server-memory
// written in Go, so that the peer adapters and the comparison harness are
// tested without Node.js: the same two tools the server-memory adapter uses,
// with the same contract, plus three faults a real peer can show, each set
// off by a search query:
//
//   - CrashWord: the process exits at once (a crash);
//   - MalformedWord: the answer is not the JSON the tool promises;
//   - HangWord: the call is never answered (until the client gives up).
//
// A test binary serves it from its TestMain when an environment variable
// says so (see Main), and a test points a peer Installation at itself.
package peertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The queries that set off the faults (matched whole, case-insensitively).
const (
	CrashWord     = "kaboom"
	MalformedWord = "gibberish"
	HangWord      = "quagmire"
)

// NodeVersion is what Main prints for --version, so that the fake can stand
// in for the node binary itself.
const NodeVersion = "v22.0.0"

// Main is the fake's entry point: with "--version" as the first argument it
// prints NodeVersion, as node does; otherwise (the arguments are the
// script node would run, ignored) it serves over stdio until stdin closes.
// It returns the process's exit code.
func Main(args []string) int {
	if len(args) > 0 && args[0] == "--version" {
		fmt.Println(NodeVersion)
		return 0
	}
	if err := Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "fake peer:", err)
		return 1
	}
	return 0
}

type entity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// Serve serves the fake server-memory over stdin and stdout: create_entities
// skips names it has and returns the created ones; search_nodes returns, in
// insertion order, the entities whose name, type or an observation contains
// the query, case-insensitively. The graph is written as JSONL to
// MEMORY_FILE_PATH after every change; without that variable Serve fails
// at once.
func Serve() error {
	file := os.Getenv("MEMORY_FILE_PATH")
	if file == "" {
		return fmt.Errorf("MEMORY_FILE_PATH is not set")
	}
	g := &graph{file: file}
	s := server.NewMCPServer("fake-memory", "0.0.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("create_entities",
		mcp.WithDescription("Create multiple new entities in the knowledge graph"),
		mcp.WithArray("entities", mcp.Required(), mcp.Items(map[string]any{"type": "object"}))),
		g.createEntities)
	s.AddTool(mcp.NewTool("search_nodes",
		mcp.WithDescription("Search for nodes in the knowledge graph based on a query"),
		mcp.WithString("query", mcp.Required())),
		g.searchNodes)
	return server.ServeStdio(s)
}

// graph is the fake's knowledge graph: its entities, in insertion order,
// written to file after every change.
type graph struct {
	file     string
	mu       sync.Mutex
	entities []entity
}

// save writes the graph as JSONL to its file.
func (g *graph) save() error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, e := range g.entities {
		enc.Encode(map[string]any{"type": "entity", "name": e.Name, "entityType": e.EntityType, "observations": e.Observations})
	}
	return os.WriteFile(g.file, b.Bytes(), 0o666)
}

// createEntities is the create_entities tool: it skips names the graph
// has, saves it and returns the created entities.
func (g *graph) createEntities(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Entities []entity `json:"entities"`
	}
	if err := req.BindArguments(&args); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	created := []entity{}
	for _, e := range args.Entities {
		if !slices.ContainsFunc(g.entities, func(x entity) bool { return x.Name == e.Name }) {
			g.entities = append(g.entities, e)
			created = append(created, e)
		}
	}
	if err := g.save(); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, _ := json.Marshal(created)
	return mcp.NewToolResultText(string(b)), nil
}

// searchNodes is the search_nodes tool: the entities whose name, type or
// an observation contains the query, case-insensitively, in insertion
// order; or the fault the query sets off.
func (g *graph) searchNodes(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := req.RequireString("query")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	q = strings.ToLower(q)
	switch q {
	case CrashWord:
		fmt.Fprintln(os.Stderr, "fake peer: crashing on purpose")
		os.Exit(3)
	case MalformedWord:
		return mcp.NewToolResultText("Found some nodes, but this is not JSON"), nil
	case HangWord:
		<-ctx.Done() // released when the client goes away
		return nil, ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	found := []entity{}
	for _, e := range g.entities {
		has := func(s string) bool { return strings.Contains(strings.ToLower(s), q) }
		if has(e.Name) || has(e.EntityType) || slices.ContainsFunc(e.Observations, has) {
			found = append(found, e)
		}
	}
	b, _ := json.Marshal(map[string]any{"entities": found, "relations": []any{}})
	return mcp.NewToolResultText(string(b)), nil
}

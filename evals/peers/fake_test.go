package peers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// fakeEnv, when set in a test binary's environment, makes TestMain serve
// the fake peer over stdio instead of running tests.
const fakeEnv = "AGENTMEM_PEERS_FAKE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "server-memory" {
		if err := serveFakeMemory(); err != nil {
			fmt.Fprintln(os.Stderr, "fake peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveFakeMemory is a small stand-in for @modelcontextprotocol/server-memory:
// the same two tools the adapter uses, with the same contract
// (create_entities skips names it has and returns the created ones;
// search_nodes returns, in insertion order, the entities whose name, type
// or an observation contains the query, case-insensitively), and the graph
// written as JSONL to MEMORY_FILE_PATH after every change.
func serveFakeMemory() error {
	file := os.Getenv("MEMORY_FILE_PATH")
	if file == "" {
		return fmt.Errorf("MEMORY_FILE_PATH is not set")
	}
	var mu sync.Mutex
	var graph []smEntity
	save := func() error {
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		for _, e := range graph {
			b, _ := json.Marshal(map[string]any{"type": "entity", "name": e.Name, "entityType": e.EntityType, "observations": e.Observations})
			w.Write(append(b, '\n'))
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	s := server.NewMCPServer("fake-memory", "0.0.1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("create_entities",
		mcp.WithDescription("Create multiple new entities in the knowledge graph"),
		mcp.WithArray("entities", mcp.Required(), mcp.Items(map[string]any{"type": "object"}))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Entities []smEntity `json:"entities"`
			}
			if err := req.BindArguments(&args); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			mu.Lock()
			defer mu.Unlock()
			created := []smEntity{}
			for _, e := range args.Entities {
				dup := false
				for _, g := range graph {
					dup = dup || g.Name == e.Name
				}
				if !dup {
					graph = append(graph, e)
					created = append(created, e)
				}
			}
			if err := save(); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			b, _ := json.Marshal(created)
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewTool("search_nodes",
		mcp.WithDescription("Search for nodes in the knowledge graph based on a query"),
		mcp.WithString("query", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			q, err := req.RequireString("query")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			q = strings.ToLower(q)
			mu.Lock()
			defer mu.Unlock()
			found := []smEntity{}
			for _, e := range graph {
				match := strings.Contains(strings.ToLower(e.Name), q) || strings.Contains(strings.ToLower(e.EntityType), q)
				for _, o := range e.Observations {
					match = match || strings.Contains(strings.ToLower(o), q)
				}
				if match {
					found = append(found, e)
				}
			}
			b, _ := json.Marshal(map[string]any{"entities": found, "relations": []any{}})
			return mcp.NewToolResultText(string(b)), nil
		})
	return server.ServeStdio(s)
}

// fakeInstallation is an Installation whose "node" is this test binary,
// which serves the fake peer when fakeEnv is set.
func fakeInstallation(t *testing.T) Installation {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "server-memory")
	return Installation{Node: exe, Entry: "-test.run=^$", Dir: filepath.Dir(exe),
		Package: NewServerMemory().Package()}
}

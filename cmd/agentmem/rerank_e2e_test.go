package main_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// The server with a reranker, over stdio as a host runs it: the reranker
// orders what the model reads, the structured result names it, and a call
// (or the shell's --no-reranker) can keep the fused order.
func TestStdioReranker(t *testing.T) {
	var calls atomic.Int32
	var lastQuery atomic.Value
	rr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if req.Query != "reranker probe" { // serve's probe comes when it will
			calls.Add(1)
		}
		lastQuery.Store(req.Query)
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		out := []result{}
		for i, d := range req.Documents {
			s := 0.0
			if strings.Contains(d, "Lisbon") {
				s = 1
			}
			out = append(out, result{i, s})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer rr.Close()
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "serve", "--data-dir", dir, "--embedder", "none", "--now", "2023-06-01T10:00:00Z", "--timezone", "UTC",
		"--log-level", "warn", "--reranker-url", rr.URL+"/v1/rerank", "--reranker-model", "fake")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	c, err := client.Command(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close(); cmd.Wait() }()
	p := &proc{c: c, cmd: cmd}
	p.must(t, "remember", map[string]any{"session_id": "s1", "session_date": "2023-05-08",
		"messages": turns("Where does my sister live now? I keep forgetting where my sister lives.", "She moved.")})
	p.must(t, "remember", map[string]any{"session_id": "s2", "session_date": "2023-05-20",
		"messages": turns("My sister Ana moved to Lisbon in March, into a flat by the river.")})
	ctx := context.Background()
	res, text, err := c.Recall(ctx, spec.RecallArgs{Query: "where does my sister live", K: 1, Excerpt: new(0), Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranker != "rerank:fake@"+rr.URL+"/v1/rerank" || res.RerankError != "" {
		t.Errorf("reranker %q, error %q", res.Reranker, res.RerankError)
	}
	if len(res.Memories) != 1 || !strings.Contains(res.Memories[0].Text, "Lisbon") || res.Memories[0].FusedRank < 2 || !strings.Contains(text, "Lisbon") {
		t.Errorf("recall with the reranker: %+v\n%s", res.Memories, text)
	}
	plain, _, err := c.Recall(ctx, spec.RecallArgs{Query: "where does my sister live", K: 1, Excerpt: new(0), Format: "json", Reranker: new(false)})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Reranker != "" || len(plain.Memories) != 1 || strings.Contains(plain.Memories[0].Text, "Lisbon") {
		t.Errorf("reranker off: %q %+v", plain.Reranker, plain.Memories)
	}
	// the shell's recall goes to this server, which reranks
	before := calls.Load()
	out, err := exec.Command(binary(t), "--data-dir", dir, "recall", "-k", "1", "--excerpt", "0", "where does my sister live").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Lisbon") || calls.Load() != before+1 {
		t.Errorf("shell recall: %v, %d reranker calls\n%s", err, calls.Load()-before, out)
	}
	out, err = exec.Command(binary(t), "--data-dir", dir, "recall", "-k", "1", "--excerpt", "0", "--no-reranker", "where does my sister live").CombinedOutput()
	if err != nil || strings.Contains(string(out), "Lisbon") || calls.Load() != before+1 {
		t.Errorf("shell recall --no-reranker: %v\n%s", err, out)
	}
	// the reranker goes away: recalls still answer, in the fused order, and say why
	rr.Close()
	res, _, err = c.Recall(ctx, spec.RecallArgs{Query: "where does my sister live", K: 1, Excerpt: new(0), Format: "json"})
	if err != nil || res.RerankError == "" || !strings.Contains(res.RerankError, rr.URL) || len(res.Memories) != 1 {
		t.Errorf("a dead reranker: %v, %+v", err, res)
	}
}

package main_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// The lab measures a reranker as a user configures it: the same flags as
// serve, and the factor reranker=off to compare with the fused order in
// one run. The fake reranker here reverses the fused order, so the two
// rows must recall differently.
func TestEvalWithReranker(t *testing.T) {
	var calls atomic.Int32
	rr := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Texts []string `json:"texts"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"score"`
		}
		out := []result{}
		for i := range req.Texts {
			out = append(out, result{i, float64(i)}) // the last first
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer rr.Close()
	out := filepath.Join(t.TempDir(), "out")
	stdout := run(t, "agentmem-eval", t.TempDir(), "--embedder", "none", "--reranker-url", rr.URL+"/rerank", "--reranker-api", "tei",
		"locomo", filepath.Join("..", "..", "evals", "testdata", "locomo_mini.json"), "--quiet", "--configs", "k=1+excerpt=0,k=1+excerpt=0+reranker=off", "--out", out)
	if !strings.Contains(stdout, "k=1+excerpt=0+reranker=off") || calls.Load() < 2 {
		t.Fatalf("%d reranker calls; stdout:\n%s", calls.Load(), stdout)
	}
	f, err := os.Open(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recalled := map[string]map[string][]string{} // config -> question -> ids
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r struct {
			Config, Question string
			Recalled         []string
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if recalled[r.Config] == nil {
			recalled[r.Config] = map[string][]string{}
		}
		recalled[r.Config][r.Question] = r.Recalled
	}
	differ := 0
	for q, ids := range recalled["k=1+excerpt=0"] {
		if !slices.Equal(ids, recalled["k=1+excerpt=0+reranker=off"][q]) {
			differ++
		}
	}
	if len(recalled["k=1+excerpt=0"]) == 0 || differ == 0 {
		t.Errorf("the reranked and the fused rows recall the same lists (%d questions)", len(recalled["k=1+excerpt=0"]))
	}

	// a reranker that fails: every question answered in the fused order,
	// and the headline says how many
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model not loaded", http.StatusServiceUnavailable)
	}))
	defer bad.Close()
	stdout = run(t, "agentmem-eval", t.TempDir(), "--embedder", "none", "--reranker-url", bad.URL+"/rerank",
		"locomo", filepath.Join("..", "..", "evals", "testdata", "locomo_mini.json"), "--quiet", "--out", filepath.Join(t.TempDir(), "out"))
	if !strings.Contains(stdout, "NOT RERANKED 7") {
		t.Errorf("a failing reranker, stdout:\n%s", stdout)
	}
}

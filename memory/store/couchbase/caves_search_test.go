package couchbase

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"

	"agentmem/memory"
)

// recordedSearch stands in for the Search service, at a loopback port the
// mock's cluster configuration names: it answers the index manager with
// the definition setup makes, and each query with a recorded response of
// Couchbase Search (testdata/search: bleve's search result, which the
// service returns, with its status, its request echo with the kNN section,
// hits with their sort keys and score breakdowns, and facets), so that
// gocb's decoding of the service's answers and the store's run on the
// service's real shape.
type recordedSearch struct {
	t   *testing.T
	def []byte // the index definition, as the service returns it

	mu      sync.Mutex
	queries []string // the bodies of the queries, in order
	answer  func(body string) string
}

func newRecordedSearch(t *testing.T, cfg Config, dims int) *recordedSearch {
	idx, err := searchIndex(cfg, dims, true)
	if err != nil {
		t.Fatal(err)
	}
	def, err := json.Marshal(map[string]any{
		"name": idx.Name, "type": idx.Type, "uuid": "4c1c5584b1a6e1e2", "sourceType": idx.SourceType,
		"sourceName": idx.SourceName, "params": idx.Params, "planParams": idx.PlanParams,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &recordedSearch{t: t, def: def}
}

func (rs *recordedSearch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	index := "/api/bucket/" + cavesBucket + "/scope/agentmem/index/agentmem"
	switch {
	case r.Method == "GET" && path == "/api/ping":
	case r.Method == "GET" && path == index:
		w.Write([]byte(`{"status":"ok","indexDef":` + string(rs.def) + `}`))
	case r.Method == "GET" && path == index+"/count":
		w.Write([]byte(`{"status":"ok","count":6}`))
	case r.Method == "POST" && path == index+"/query":
		body, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		rs.queries = append(rs.queries, string(body))
		answer := rs.answer
		rs.mu.Unlock()
		name := "empty"
		if answer != nil {
			name = answer(string(body))
		}
		if name == "empty" {
			w.Write([]byte(`{"status":{"total":1,"failed":0,"successful":1},"hits":[],"total_hits":0,"max_score":0,"took":1000,"facets":null}`))
			return
		}
		raw, err := os.ReadFile("testdata/search/" + name + ".json")
		if err != nil {
			rs.t.Error(err)
		}
		w.Write(raw)
	default:
		rs.t.Errorf("the Search service got %s %s", r.Method, path)
		http.NotFound(w, r)
	}
}

// withSearch makes the mock's configuration name srv as every node's
// Search service, one that holds scoped and vector indexes.
func (cv *caves) withSearch(t *testing.T, srv *httptest.Server) {
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fts, _ := strconv.Atoi(port)
	cv.Mock.KvOutHooks().Add(func(_ mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
		if pak.Magic == memd.CmdMagicRes && pak.Command == memd.CmdGetClusterConfig && pak.Status == memd.StatusSuccess {
			pak.Value = withSearchAt(pak.Value, fts)
		}
		next()
	})
}

func withSearchAt(cfg []byte, port int) []byte {
	var m map[string]any
	if err := json.Unmarshal(cfg, &m); err != nil {
		return cfg
	}
	nodes, _ := m["nodesExt"].([]any)
	for _, n := range nodes {
		if node, ok := n.(map[string]any); ok {
			if svc, ok := node["services"].(map[string]any); ok {
				svc["fts"] = port
			}
		}
	}
	caps, _ := m["clusterCapabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		m["clusterCapabilities"] = caps
	}
	caps["search"] = []string{"vectorSearch", "scopedSearchIndex"}
	out, err := json.Marshal(m)
	if err != nil {
		return cfg
	}
	return out
}

// Recall's decoding, on recorded responses of Couchbase Search: setup
// finds its index and waits for it, a recall that names someone reads the
// speakers from a facet, hits come back best first without those deleted
// since they were indexed or of another namespace, and a response that
// some partitions failed is an error that names them.
func TestCavesRecordedSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	rs := newRecordedSearch(t, cv.cfg, 4)
	srv := httptest.NewServer(rs)
	defer srv.Close()
	cv.withSearch(t, srv)

	var out strings.Builder
	if err := Setup(ctx, cv.cfg, 4, &out); err != nil {
		t.Fatalf("setup with a Search service: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "Search index agentmem: exists, up to date") || !strings.Contains(out.String(), "ready (6 memories indexed so far)") {
		t.Errorf("setup said:\n%s", out.String())
	}
	s, err := Open(ctx, cv.cfg, fakeEmbedder, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(ctx, fixture()); err != nil {
		t.Fatal(err)
	}

	rs.mu.Lock()
	rs.answer = func(body string) string {
		if strings.Contains(body, `"facets"`) {
			return "speakers"
		}
		return "hybrid"
	}
	rs.mu.Unlock()
	// the learned order off: one hybrid request, fused by the server
	q := memory.Query{Namespace: "alice", Text: "What did Caroline say about Biscuit?", Vector: unit([]float32{1, 0, 0, 0}), K: 4, Fusion: memory.RRF,
		Weights: memory.Weights{Learned: -1}}
	hits, err := s.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !slices.Equal(got, []string{"s-june:1", "s-may:0"}) {
		t.Errorf("hits %v, want s-june:1 then s-may:0 (the deleted one and bob's left out)", got)
	}
	if f, _, ok := s.known.get("alice", time.Now()); !ok || !slices.Equal(f.speakers, []string{"Caroline", "Melanie"}) || f.memories != 5 {
		t.Errorf("speakers read from the facet: %v, %d memories (%v), want Caroline and Melanie, and the 5 hits", f.speakers, f.memories, ok)
	}
	// the memories counted by the same request, kept with the speakers
	before := len(rs.queries)
	if n, err := s.CountMemories(ctx, "alice"); err != nil || n != 5 {
		t.Errorf("CountMemories: %d, %v; want the facet request's 5 hits", n, err)
	}
	if len(rs.queries) != before {
		t.Errorf("CountMemories sent %d requests; the speakers' request had counted them", len(rs.queries)-before)
	}
	rs.mu.Lock()
	sent := slices.Clone(rs.queries)
	rs.mu.Unlock()
	if n := len(sent); n < 3 || !strings.Contains(sent[n-2], `"facets"`) || !strings.Contains(sent[n-1], `"knn"`) || !strings.Contains(sent[n-1], `"consistency"`) {
		t.Errorf("the last requests were %q, want the speakers' facet, then the hybrid query with its kNN, consistent with the writes", sent)
	}

	rs.mu.Lock()
	rs.answer = func(string) string { return "partial" }
	rs.mu.Unlock()
	q.Text = "Biscuit"
	_, err = s.Search(ctx, q)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 partitions") || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("a response with a failed partition: %v, want an error naming it", err)
	}
}

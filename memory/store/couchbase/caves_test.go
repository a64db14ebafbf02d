package couchbase

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"

	"agentmem/memory/store/couchbase/cavestest"
)

// The store runs, through gocb, against gocaves (see cavestest): what
// does not search, here; what searches, on recorded responses of the
// Search service (caves_search_test.go) and on a cluster
// (integration_test.go). docs/couchbase.md says what runs
// where.

// caves is a mock cluster and the store's configuration for it.
type caves struct {
	*cavestest.Cluster
	cfg Config // Administrator's, for the bucket agentmem
}

const (
	cavesBucket = cavestest.Bucket
	cavesAdmin  = cavestest.Admin
	cavesPass   = cavestest.Password
)

func newCaves(t *testing.T) *caves {
	t.Helper()
	c := cavestest.Start(t)
	return &caves{Cluster: c, cfg: Config{
		URL:      c.URL,
		Username: cavesAdmin, Password: cavesPass,
		Bucket:     cavesBucket,
		Durability: "none", // the mock's bucket has no replicas
		// short, so that the fault tests end soon; the mock answers in
		// microseconds
		ConnectTimeout:     3 * time.Second,
		KVTimeout:          time.Second,
		TransactionTimeout: 5 * time.Second,
	}.withDefaults()}
}

// setup runs Setup, which creates the scope and the collection and then
// stops at the Search index, which the mock cannot hold.
func (cv *caves) setup(t *testing.T, cfg Config, dims int) string {
	t.Helper()
	// the first connection waits for the mock's bucket to be ready, which
	// took over 3 s once on a loaded machine running every package's tests
	// (a fresh-clone CI run); the store's own connections keep the tests'
	// short timeouts
	cfg.ConnectTimeout = max(cfg.ConnectTimeout, 15*time.Second)
	var out strings.Builder
	err := Setup(context.Background(), cfg, dims, &out)
	if err != nil && strings.Contains(err.Error(), "timed out") {
		// and over 15 s twice, with the dev evals running beside the
		// tests: setup is not what these tests are about
		t.Logf("setup on the mock timed out at %v; once more: %v", cfg.ConnectTimeout, err)
		out.Reset()
		err = Setup(context.Background(), cfg, dims, &out)
	}
	if !errors.Is(err, gocb.ErrFeatureNotAvailable) || !strings.Contains(err.Error(), "Search index "+cfg.Index) {
		t.Fatalf("setup on the mock: %v, want it to stop at the Search index\n%s", err, out.String())
	}
	return out.String()
}

// open sets up cfg's collection and opens the store on it for an embedder.
func (cv *caves) open(t *testing.T, cfg Config, embedder string, dims int) *Store {
	t.Helper()
	cv.setup(t, cfg, dims)
	s, err := Open(context.Background(), cfg, embedder, dims)
	if err != nil && strings.Contains(err.Error(), "timed out") {
		// a fresh connection to the mock once took over 3 s on a machine
		// loaded by every package's tests (a fresh-clone CI run) though
		// setup had just connected: the tests that use open are not about
		// connecting, so it is tried once more with setup's patience
		t.Logf("open on the mock timed out at %v; once more with 15 s: %v", cfg.ConnectTimeout, err)
		cfg.ConnectTimeout = max(cfg.ConnectTimeout, 15*time.Second)
		s, err = Open(context.Background(), cfg, embedder, dims)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// docs counts the live documents of namespace ns in the mock.
func (cv *caves) docs(t *testing.T, ns string) int {
	t.Helper()
	return cv.Live(t, cv.cfg.Scope, cv.cfg.Collection, nsPrefix(kindMemory, ns), nsPrefix(kindSess, ns), nsPrefix(kindPage, ns))
}

func reply(src mock.KvClient, req *memd.Packet, status memd.StatusCode) {
	cavestest.Reply(src, req, status, nil, nil)
}

package couchbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"
	"github.com/couchbaselabs/gocaves/mock/mockauth"
	"github.com/couchbaselabs/gocaves/mock/mockimpl"
)

// The store runs, through gocb, against gocaves: the mock cluster that
// Couchbase's SDKs are tested against, in process, on loopback ports. It
// speaks the memcached binary protocol (key-value, subdocuments with
// extended attributes, collections, the CAS and durability that
// transactions are built of) and the cluster manager's REST API (scopes,
// collections, users). Its Search service answers only a ping, so
// everything that searches runs on a cluster only (integration_test.go);
// see the README's Couchbase section for what runs where.
//
// gocaves v0.0.1-75 (2021) predates three things gocb v2.11 uses, which
// the harness supplies so that the rest can run, each said where it is:
//   - GET /whoami, gocb's ping of the management service (cavesWhoami);
//   - KV range scan (Couchbase Server 7.6), which listing, export, forget
//     all and the empty-store check use: the harness answers its three
//     commands from the mock's own documents (rangescan_caves_test.go);
//   - a collection's end: gocaves answers key-value requests for a
//     collection id it no longer has, where the server answers "unknown
//     collection" (cavesKnownCollection);
//   - an insert over a tombstone: gocaves lets a subdocument write with
//     the add flag create a document over a tombstone, where the server
//     answers that it exists, which transactions rely on to take over the
//     tombstone an expired attempt left (cavesAddOnTombstone);
//   - snappy: gocaves offers it in HELLO but stores compressed values as
//     they come and hands them to subdocument reads (which transactions
//     use) still compressed, so the harness takes it out of HELLO and gocb
//     sends values uncompressed (cavesNoSnappy).

// caves is a one-node mock cluster with the bucket agentmem.
type caves struct {
	cluster mock.Cluster
	cfg     Config // Administrator's, for the bucket agentmem
	scans   *rangeScans

	mu    sync.Mutex
	fault kvFault // see setFault
}

// kvFault sees every key-value request before the mock does; it returns
// true when it has dealt with the request (answered it, or dropped it).
type kvFault func(src mock.KvClient, pak *memd.Packet) bool

// setFault puts f before the mock's own handling; nil takes it away.
func (cv *caves) setFault(f kvFault) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	cv.fault = f
}

func (cv *caves) faultHook(src mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	cv.mu.Lock()
	f := cv.fault
	cv.mu.Unlock()
	if f != nil && pak.Magic == memd.CmdMagicReq && f(src, pak) {
		return
	}
	next()
}

const (
	cavesBucket = "agentmem"
	cavesAdmin  = "Administrator"
	cavesPass   = "password"
)

// quietCaves sends gocaves' log (every packet, in full) nowhere: once per
// test binary, as the log package's output is process-wide.
var quietCaves sync.Once

func newCaves(t *testing.T) *caves {
	t.Helper()
	quietCaves.Do(func() { log.SetOutput(io.Discard) })
	c, err := mockimpl.NewCluster(mock.NewClusterOptions{
		// 64 vBuckets rather than the server's 1024: a range scan visits
		// every vBucket one after the other
		NumVbuckets: 64,
		InitialNode: mock.NewNodeOptions{},
	})
	if err != nil {
		t.Fatal(err)
	}
	cv := &caves{cluster: c, scans: &rangeScans{byID: map[string]*rangeScan{}}}
	t.Cleanup(cv.close)
	if _, err := c.AddBucket(mock.NewBucketOptions{Name: cavesBucket, Type: mock.BucketTypeCouchbase, NumReplicas: 0}); err != nil {
		t.Fatal(err)
	}
	cv.addUser(t, cavesAdmin, "admin")
	c.MgmtHooks().Add(cavesWhoami)
	c.KvOutHooks().Add(cavesNoSnappy)
	c.KvOutHooks().Add(cavesCapabilities("rangeScan"))
	c.KvInHooks().Add(cv.scans.hook)
	c.KvInHooks().Add(cavesAddOnTombstone)
	c.KvInHooks().Add(cavesKnownCollection)
	c.KvInHooks().Add(cv.faultHook) // the last added runs first
	cv.cfg = Config{
		URL:      c.ConnectionString(),
		Username: cavesAdmin, Password: cavesPass,
		Bucket:     cavesBucket,
		Durability: "none", // the mock's bucket has no replicas
		// short, so that the fault tests end soon; the mock answers in
		// microseconds
		ConnectTimeout:     3 * time.Second,
		KVTimeout:          time.Second,
		TransactionTimeout: 5 * time.Second,
	}.withDefaults()
	return cv
}

func (cv *caves) addUser(t *testing.T, name string, roles ...string) {
	t.Helper()
	err := cv.cluster.Users().UpsertUser(mockauth.UpsertUserOptions{Username: name, Password: cavesPass, Roles: roles})
	if err != nil {
		t.Fatal(err)
	}
}

// close shuts the mock's listeners. gocaves' TLS key-value listener never
// starts (its built-in certificate does not parse), and closing it
// dereferences nil: each close is on its own.
func (cv *caves) close() {
	shut := func(c interface{ Close() error }) {
		defer func() { recover() }()
		c.Close()
	}
	for _, n := range cv.cluster.Nodes() {
		shut(n.KvService())
		shut(n.MgmtService())
		shut(n.ViewService())
		shut(n.QueryService())
		shut(n.SearchService())
		shut(n.AnalyticsService())
	}
}

// setup runs Setup, which creates the scope and the collection and then
// stops at the Search index, which the mock cannot hold.
func (cv *caves) setup(t *testing.T, cfg Config, dims int) string {
	t.Helper()
	var out strings.Builder
	err := Setup(context.Background(), cfg, dims, &out)
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
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// cavesWhoami answers gocb's ping of the management service, which
// gocaves does not know.
func cavesWhoami(_ mock.MgmtService, req *mock.HTTPRequest, next func() *mock.HTTPResponse) *mock.HTTPResponse {
	if req.Method != "GET" || req.URL.Path != "/whoami" {
		return next()
	}
	return &mock.HTTPResponse{StatusCode: 200, Body: strings.NewReader(`{"id":"` + cavesAdmin + `","domain":"local","roles":[{"role":"admin"}]}`)}
}

// cavesNoSnappy takes snappy out of the features the mock's HELLO agrees
// to (see the top of this file).
func cavesNoSnappy(_ mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	if pak.Magic == memd.CmdMagicRes && pak.Command == memd.CmdHello {
		var keep []byte
		for i := 0; i+1 < len(pak.Value); i += 2 {
			if memd.HelloFeature(binary.BigEndian.Uint16(pak.Value[i:])) != memd.FeatureSnappy {
				keep = append(keep, pak.Value[i:i+2]...)
			}
		}
		pak.Value = keep
	}
	next()
}

// cavesCapabilities adds bucket capabilities to the configurations the
// mock hands out over key-value (gocb reads them there).
func cavesCapabilities(caps ...string) mock.KvHookFunc {
	return func(_ mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
		if pak.Magic == memd.CmdMagicRes && pak.Command == memd.CmdGetClusterConfig && pak.Status == memd.StatusSuccess {
			pak.Value = withCapabilities(pak.Value, caps)
		}
		next()
	}
}

func withCapabilities(cfg []byte, caps []string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(cfg, &m); err != nil {
		return cfg
	}
	var have []string
	if raw, ok := m["bucketCapabilities"]; ok {
		if err := json.Unmarshal(raw, &have); err != nil {
			return cfg
		}
	}
	raw, _ := json.Marshal(append(have, caps...))
	m["bucketCapabilities"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return cfg
	}
	return bytes.TrimSpace(out)
}

// cavesKnownCollection answers a request for a collection id that the
// bucket's manifest no longer has with "unknown collection" (0x88), as
// the server does.
func cavesKnownCollection(src mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	b := src.SelectedBucket()
	if pak.Magic == memd.CmdMagicReq && pak.CollectionID != 0 && b != nil && pak.Command != memd.CmdCollectionsGetID {
		if scope, _ := b.CollectionManifest().GetByID(pak.CollectionID); scope == "" {
			reply(src, pak, memd.StatusCollectionUnknown, nil, nil)
			return
		}
	}
	next()
}

// cavesAddOnTombstone answers a subdocument write with the add flag (0x02
// in its extras' last byte) to a key that exists, even as a tombstone,
// with "exists", as the server does.
func cavesAddOnTombstone(src mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	b := src.SelectedBucket()
	if pak.Magic == memd.CmdMagicReq && pak.Command == memd.CmdSubDocMultiMutation && b != nil &&
		(len(pak.Extras) == 1 || len(pak.Extras) == 5) && pak.Extras[len(pak.Extras)-1]&0x02 != 0 {
		doc, err := b.Store().Get(0, uint(pak.Vbucket), uint(pak.CollectionID), pak.Key)
		if err == nil && doc != nil {
			reply(src, pak, memd.StatusKeyExists, nil, nil)
			return
		}
	}
	next()
}

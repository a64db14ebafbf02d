// Package cavestest runs gocaves, the mock cluster that Couchbase's SDKs
// are tested against, in process on loopback ports, for the tests of the
// Couchbase store and of the commands that use it. Tests import it; no
// binary links it.
//
// gocaves speaks the memcached binary protocol (key-value, subdocuments
// with extended attributes, collections, the CAS and durability that
// transactions are built of) and the cluster manager's REST API (scopes,
// collections, users). Its Search service answers only a ping. Its
// listeners bind every interface (it listens on ":0"); the clients reach
// them on 127.0.0.1, so nothing goes beyond loopback.
//
// gocaves v0.0.1-75 (2021) predates or departs from five things gocb v2.11
// relies on; Start supplies them, each in a hook named here:
//   - GET /whoami, gocb's ping of the management service (cavesWhoami);
//   - KV range scan (Couchbase Server 7.6), which listing, export, forget
//     all and the empty-store check use: its three commands are answered
//     from the mock's own documents (rangescan.go);
//   - a collection's end: gocaves answers key-value requests for a
//     collection id it no longer has, where the server answers "unknown
//     collection" (cavesKnownCollection);
//   - an insert over a tombstone: gocaves lets a subdocument write with
//     the add flag create a document over a tombstone, where the server
//     answers that it exists, which transactions rely on to take over a
//     tombstone another attempt left (cavesAddOnTombstone);
//   - snappy: gocaves offers it in HELLO but stores compressed values as
//     they come and hands them to subdocument reads (which transactions
//     use) still compressed, so it is taken out of HELLO and gocb sends
//     values uncompressed (cavesNoSnappy).
package cavestest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"log"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"
	"github.com/couchbaselabs/gocaves/mock/mockauth"
	"github.com/couchbaselabs/gocaves/mock/mockimpl"
)

// The mock's bucket and its administrator.
const (
	Bucket   = "agentmem"
	Admin    = "Administrator"
	Password = "password"
	// VBuckets is the mock bucket's vBuckets: 64 rather than the server's
	// 1024, as a range scan visits every vBucket one after the other.
	VBuckets = 64
)

// Cluster is a one-node mock cluster with the bucket agentmem (no
// replicas) and its administrator.
type Cluster struct {
	Mock mock.Cluster
	URL  string // its connection string

	scans *rangeScans
	mu    sync.Mutex
	fault Fault // see SetFault
}

// Fault sees every key-value request before the mock does; it returns
// true when it has dealt with the request (answered it, or dropped it).
type Fault func(src mock.KvClient, pak *memd.Packet) bool

// quiet sends gocaves' log (every packet, in full) nowhere: once per test
// binary, as the log package's output is process-wide.
var quiet sync.Once

// Start starts a mock cluster, which t's cleanup shuts.
func Start(t testing.TB) *Cluster {
	t.Helper()
	quiet.Do(func() { log.SetOutput(io.Discard) })
	m, err := mockimpl.NewCluster(mock.NewClusterOptions{NumVbuckets: VBuckets, InitialNode: mock.NewNodeOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Mock: m, URL: m.ConnectionString(), scans: &rangeScans{byID: map[string]*rangeScan{}}}
	t.Cleanup(c.close)
	if _, err := m.AddBucket(mock.NewBucketOptions{Name: Bucket, Type: mock.BucketTypeCouchbase, NumReplicas: 0}); err != nil {
		t.Fatal(err)
	}
	c.AddUser(t, Admin, "admin")
	m.MgmtHooks().Add(cavesWhoami)
	m.KvOutHooks().Add(cavesNoSnappy)
	m.KvOutHooks().Add(cavesCapabilities("rangeScan"))
	m.KvInHooks().Add(c.scans.hook)
	m.KvInHooks().Add(cavesAddOnTombstone)
	m.KvInHooks().Add(cavesKnownCollection)
	m.KvInHooks().Add(c.faultHook) // the last added runs first
	return c
}

// AddUser adds a user with the password Password and roles (gocaves'
// role names: admin, ro_admin, cluster_admin, security_admin,
// bucket_admin).
func (c *Cluster) AddUser(t testing.TB, name string, roles ...string) {
	t.Helper()
	if err := c.Mock.Users().UpsertUser(mockauth.UpsertUserOptions{Username: name, Password: Password, Roles: roles}); err != nil {
		t.Fatal(err)
	}
}

// SetFault puts f before the mock's own handling; nil takes it away.
func (c *Cluster) SetFault(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fault = f
}

func (c *Cluster) faultHook(src mock.KvClient, pak *memd.Packet, _ time.Time, next func()) {
	c.mu.Lock()
	f := c.fault
	c.mu.Unlock()
	if f != nil && pak.Magic == memd.CmdMagicReq && f(src, pak) {
		return
	}
	next()
}

// Live counts the live documents of the collection scope.collection of
// the bucket whose keys start with one of prefixes.
func (c *Cluster) Live(t testing.TB, scope, collection string, prefixes ...string) int {
	t.Helper()
	_, cid, err := c.Mock.GetBucket(Bucket).CollectionManifest().GetByName(scope, collection)
	if err != nil {
		t.Fatalf("no collection %s.%s in the mock: %v", scope, collection, err)
	}
	st := c.Mock.GetBucket(Bucket).Store()
	n := 0
	for vb := range uint(VBuckets) {
		all, err := st.GetVbucket(vb).GetAll(0, uint(cid))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range Latest(all) {
			if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(string(d.Key), p) }) {
				n++
			}
		}
	}
	return n
}

// close shuts the mock's listeners. gocaves' key-value server never keeps
// its listener, and its Close dereferences nil: that port stays open until
// the test binary exits, and each close is on its own.
func (c *Cluster) close() {
	shut := func(s interface{ Close() error }) {
		defer func() { recover() }()
		s.Close()
	}
	for _, n := range c.Mock.Nodes() {
		shut(n.KvService())
		shut(n.MgmtService())
		shut(n.ViewService())
		shut(n.QueryService())
		shut(n.SearchService())
		shut(n.AnalyticsService())
	}
}

// cavesWhoami answers gocb's ping of the management service, which
// gocaves does not know.
func cavesWhoami(_ mock.MgmtService, req *mock.HTTPRequest, next func() *mock.HTTPResponse) *mock.HTTPResponse {
	if req.Method != "GET" || req.URL.Path != "/whoami" {
		return next()
	}
	return &mock.HTTPResponse{StatusCode: 200, Body: strings.NewReader(`{"id":"` + Admin + `","domain":"local","roles":[{"role":"admin"}]}`)}
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
			Reply(src, pak, memd.StatusCollectionUnknown, nil, nil)
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
			Reply(src, pak, memd.StatusKeyExists, nil, nil)
			return
		}
	}
	next()
}

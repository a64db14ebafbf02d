package couchbase

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v9/memd"
	"github.com/couchbaselabs/gocaves/mock"

	"agentmem/memory"
	"agentmem/memory/store/couchbase/cavestest"
)

// Faults on the mock: each ends in an error that names the setting to
// look at, and nothing of the failed call is left stored.

func isWrite(c memd.CmdCode) bool {
	switch c {
	case memd.CmdSet, memd.CmdAdd, memd.CmdReplace, memd.CmdDelete, memd.CmdSubDocMultiMutation, memd.CmdTouch:
		return true
	}
	return false
}

// refuseWrites answers the writes of keys starting with prefix with
// status, as the server answers a user it does not allow to write.
func refuseWrites(prefix string, status memd.StatusCode) cavestest.Fault {
	return func(src mock.KvClient, pak *memd.Packet) bool {
		if !isWrite(pak.Command) || !strings.HasPrefix(string(pak.Key), prefix) {
			return false
		}
		reply(src, pak, status)
		return true
	}
}

// batch is n memories of one new session of alice.
func batch(n int) []memory.Memory {
	var out []memory.Memory
	for i := range n {
		m := fixture()[0]
		m.SessionID, m.Turn, m.Text = "s-batch", i, fmt.Sprintf("turn %d of a long session", i)
		m.ID = memory.MemoryID(m.SessionID, i)
		out = append(out, m)
	}
	return out
}

// nothingOf checks that no memory of ms and no manifest of their session
// can be read, and that the mock holds no live document of them.
func nothingOf(t *testing.T, cv *caves, s *Store, ms []memory.Memory) {
	t.Helper()
	keys := []string{sessionKey(ms[0].Namespace, ms[0].SessionID)}
	for _, m := range ms {
		keys = append(keys, memoryKey(m.Namespace, m.ID))
	}
	got, err := s.memories(context.Background(), keys)
	if err != nil || len(got) != 0 {
		t.Errorf("a failed call left %d memories readable (%v)", len(got), err)
	}
	if man, err := s.manifest(context.Background(), keys[0]); err != nil || man != nil {
		t.Errorf("a failed call left the session manifest %+v (%v)", man, err)
	}
	if n := cv.docs(t, ms[0].Namespace); n != 0 {
		t.Errorf("a failed call left %d live documents in the mock", n)
	}
}

// A user the cluster does not let in, a wrong password, a user refused
// writes: each says to check couchbase-username and couchbase-password.
func TestCavesPermissions(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	cv.setup(t, cv.cfg, 4)
	cv.AddUser(t, "viewer", "ro_admin") // may read the cluster, not the bucket
	for _, c := range []struct{ user, pass string }{{"viewer", cavesPass}, {cavesAdmin, "wrong"}} {
		cfg := cv.cfg
		cfg.Username, cfg.Password, cfg.ConnectTimeout = c.user, c.pass, time.Second
		_, err := Open(context.Background(), cfg, fakeEmbedder, 4)
		if err == nil || !strings.Contains(err.Error(), "check couchbase-username and couchbase-password") || !strings.Contains(err.Error(), "bucket agentmem") {
			t.Errorf("open as %s/%s: %v, want the settings to check", c.user, c.pass, err)
		}
		err = Setup(context.Background(), cfg, 4, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), "couchbase-username") {
			t.Errorf("setup as %s/%s: %v, want the settings to check", c.user, c.pass, err)
		}
	}

	s := cv.open(t, cv.cfg, fakeEmbedder, 4)
	cv.SetFault(refuseWrites(kindMemory+sep, memd.StatusAccessError))
	defer cv.SetFault(nil)
	ms := batch(5)
	err := s.Put(context.Background(), ms)
	if !errors.Is(err, gocb.ErrAuthenticationFailure) || !strings.Contains(err.Error(), "check couchbase-username and couchbase-password") {
		t.Errorf("remember refused by the server: %v, want the settings to check", err)
	}
	cv.SetFault(nil)
	nothingOf(t, cv, s, ms)
}

// A bucket that is not there: the error names it and the setting.
func TestCavesMissingBucket(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.Bucket, cfg.ConnectTimeout = "nope", time.Second
	_, err := Open(context.Background(), cfg, fakeEmbedder, 4)
	if err == nil || !strings.Contains(err.Error(), "did not open bucket nope") || !strings.Contains(err.Error(), "that the bucket exists") {
		t.Errorf("open of a missing bucket: %v", err)
	}
	err = Setup(context.Background(), cfg, 4, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "bucket nope") {
		t.Errorf("setup of a missing bucket: %v", err)
	}
}

// The collection is dropped while the server runs: every call says to run
// setup, none hangs past its timeout, and setup brings it back.
func TestCavesCollectionDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	s := cv.open(t, cv.cfg, fakeEmbedder, 4)
	if err := s.Put(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	if err := s.cluster.Bucket(cavesBucket).CollectionsV2().DropCollection(cv.cfg.Scope, cv.cfg.Collection, nil); err != nil {
		t.Fatal(err)
	}
	hint := "collection agentmem.agentmem.memories does not exist: run `agentmem couchbase setup`"
	start := time.Now()
	if err := s.Put(ctx, batch(3)); err == nil || !strings.Contains(err.Error(), hint) {
		t.Errorf("remember into a dropped collection: %v, want %q", err, hint)
	}
	if _, err := s.Session(ctx, "alice", "s-may"); err == nil || !strings.Contains(err.Error(), hint) {
		t.Errorf("show of a dropped collection: %v, want %q", err, hint)
	}
	if _, err := s.Delete(ctx, memory.Selector{Namespace: "alice", All: true}); err == nil || !strings.Contains(err.Error(), hint) {
		t.Errorf("forget all of a dropped collection: %v, want %q", err, hint)
	}
	if d := time.Since(start); d > 3*cv.cfg.TransactionTimeout {
		t.Errorf("the three calls took %v", d)
	}
	cv.setup(t, cv.cfg, 4)
	if err := s.Put(ctx, batch(3)); err != nil {
		t.Errorf("remember after setup made the collection again: %v", err)
	}
}

// Key-value writes that get no answer: remember fails within its
// transaction's time, says which settings bound it, and stores nothing.
func TestCavesWriteTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.TransactionTimeout = 2 * time.Second
	s := cv.open(t, cfg, fakeEmbedder, 4)
	cv.SetFault(func(_ mock.KvClient, pak *memd.Packet) bool {
		return isWrite(pak.Command) && strings.HasPrefix(string(pak.Key), kindMemory+sep)
	})
	ms := batch(4)
	start := time.Now()
	err := s.Put(ctx, ms)
	took := time.Since(start)
	cv.SetFault(nil)
	if err == nil || !strings.Contains(err.Error(), "couchbase-transaction-timeout") {
		t.Errorf("remember with writes unanswered: %v, want the timeout settings named", err)
	}
	if took > 3*cfg.TransactionTimeout {
		t.Errorf("remember took %v to fail, its transaction has %v", took, cfg.TransactionTimeout)
	}
	nothingOf(t, cv, s, ms)

	// outside a transaction (forget all deletes key by key) the bound is
	// the key-value timeout
	cv.SetFault(func(_ mock.KvClient, pak *memd.Packet) bool { return pak.Command == memd.CmdDelete })
	defer cv.SetFault(nil)
	if err := s.Put(ctx, fixture()[4:]); err != nil {
		t.Fatal(err)
	}
	_, err = s.Delete(ctx, memory.Selector{Namespace: "bob", All: true})
	if err == nil || !strings.Contains(err.Error(), "couchbase-kv-timeout") || !strings.Contains(err.Error(), "run it again") {
		t.Errorf("forget all with deletes unanswered: %v, want couchbase-kv-timeout named", err)
	}
}

// A transaction that fails after it staged some of its writes stores none
// of them; one whose document cannot be encoded as well (gocb v2.11
// commits past its transcoder's error: txInsert).
func TestCavesTransactionFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	s := cv.open(t, cv.cfg, fakeEmbedder, 4)
	ms := batch(21)
	var staged atomic.Int32
	cv.SetFault(func(src mock.KvClient, pak *memd.Packet) bool {
		if !isWrite(pak.Command) || !strings.HasPrefix(string(pak.Key), kindMemory+sep) || staged.Add(1) <= 15 {
			return false
		}
		reply(src, pak, memd.StatusAccessError)
		return true
	})
	err := s.Put(ctx, ms)
	cv.SetFault(nil)
	if err == nil {
		t.Fatal("remember succeeded with its 16th write refused")
	}
	if staged.Load() < 16 {
		t.Fatalf("only %d writes were staged", staged.Load())
	}
	nothingOf(t, cv, s, ms)

	t.Run("encode", func(t *testing.T) {
		_, err := s.cluster.Transactions().Run(func(tc *gocb.TransactionAttemptContext) error {
			if err := s.txInsert(tc, "m|alice|good", map[string]any{"v": 1}); err != nil {
				return err
			}
			return s.txInsert(tc, "m|alice|bad", map[string]any{"v": nan()})
		}, nil)
		if err == nil || !strings.Contains(err.Error(), "encoding document m|alice|bad") {
			t.Errorf("a transaction with a document that cannot be encoded: %v", err)
		}
		if got, _ := s.memories(ctx, []string{"m|alice|good"}); len(got) != 0 {
			t.Error("the transaction committed what it staged before the document it could not encode")
		}
	})
}

// The mock goes away in the middle of a remember's transaction, as a node
// restarting: its connections are cut, nothing answers for half a second,
// and it comes back with its data. The remember fails (gocbcore takes a
// broken connection under a staged write as fatal, or retries until its
// time is up), says to retry, and nothing of it is visible. Its rollback and the client's
// cleanup of the attempt both ran while the node was away and failed, so
// its staged writes stay until Couchbase's lost-transaction cleanup
// (within its window, 60 s by default; gocaves never runs it) removes
// them: until then the same remember meets them as a write-write conflict
// (or, retried until its time is up, as an expired transaction) and says
// to retry later, while other sessions are remembered as before.
func TestCavesRestartMidWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.TransactionTimeout = 2 * time.Second
	s := cv.open(t, cfg, fakeEmbedder, 4)
	var writes atomic.Int32
	var until atomic.Int64
	cv.SetFault(func(src mock.KvClient, pak *memd.Packet) bool {
		if u := until.Load(); u != 0 {
			return time.Now().UnixNano() < u // down: nothing answers
		}
		if !isWrite(pak.Command) || !strings.HasPrefix(string(pak.Key), kindMemory+sep) || writes.Add(1) <= 6 {
			return false
		}
		until.Store(time.Now().Add(500 * time.Millisecond).UnixNano())
		for _, c := range src.Source().GetAllClients() {
			c.Close()
		}
		return true
	})
	defer cv.SetFault(nil)

	ms := batch(12)
	err := s.Put(ctx, ms)
	if err == nil || !strings.Contains(err.Error(), "remembering the same messages again is safe") && !strings.Contains(err.Error(), "retry later") {
		t.Fatalf("remember through a restart: %v, want it to fail saying to retry", err)
	}
	if until.Load() == 0 {
		t.Fatal("the mock never went away")
	}
	time.Sleep(time.Until(time.Unix(0, until.Load())))
	cv.SetFault(nil)
	nothingOf(t, cv, s, ms)

	err = s.Put(ctx, ms)
	if !(errors.Is(err, gocb.ErrWriteWriteConflict) || errors.Is(err, gocb.ErrAttemptExpired)) || !strings.Contains(err.Error(), "retry later") {
		t.Errorf("the retry over the dead attempt's staged writes: %v, want a write-write conflict that says to retry later", err)
	}
	nothingOf(t, cv, s, ms)
	if err := s.Put(ctx, fixture()); err != nil {
		t.Fatalf("another remember after the restart: %v", err)
	}
	if got, err := s.Session(ctx, "alice", "s-may"); err != nil || len(got) != 2 {
		t.Errorf("after the restart a new session holds %d memories (%v), want 2", len(got), err)
	}
}

func nan() float64 { return math.NaN() }

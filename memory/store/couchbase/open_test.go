//go:build !race

package couchbase

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
)

// TestOpenUnreachable runs Open against a closed port on this machine: it
// must fail quickly, say why, and not panic. It is built without -race:
// gocbcore v10.8.1 races with itself when a cluster is closed right after it
// was opened (its lost-transaction cleaner reads, unsynchronised, what Close
// writes), which is what a failed Open does.
func TestOpenUnreachable(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := closed.Addr().String()
	closed.Close()
	cfg := testConfig()
	cfg.URL = "couchbase://" + addr
	cfg.ConnectTimeout = 500 * time.Millisecond
	start := time.Now()
	s, err := Open(context.Background(), cfg, "", 0)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded against a closed port")
	}
	if !errors.Is(err, gocb.ErrTimeout) || !strings.Contains(err.Error(), "nothing answers at "+addr) {
		t.Errorf("error %v: want a timeout naming the address", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Open took %v to fail", d)
	}
}

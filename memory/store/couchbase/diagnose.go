package couchbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbaselabs/gocbconnstr/v2"
)

// diagnoseConnect explains a bucket that did not become ready. gocb only
// reports a timeout: the server refuses a wrong password, a missing bucket
// and a user without access alike, and retries until it gives up. Dialling
// the data port tells an unreachable cluster from one that refused.
func diagnoseConnect(ctx context.Context, cfg Config, err error) error {
	if !errors.Is(err, gocb.ErrTimeout) {
		return wrap(err, cfg, "connecting to bucket %s at %s as %s", cfg.Bucket, cfg.URL, cfg.Username)
	}
	addr, reached, derr := reach(ctx, cfg.URL)
	e := &Error{Op: fmt.Sprintf("connecting to bucket %s at %s as %s", cfg.Bucket, cfg.URL, cfg.Username), Err: err}
	switch {
	case derr != nil && addr == "":
		e.Hint = fmt.Sprintf("couchbase-url %q: %v", cfg.URL, derr)
	case !reached:
		e.Hint = fmt.Sprintf("nothing answers at %s (%v): check couchbase-url, the network and firewalls (on Capella, the allowed IP addresses)", addr, derr)
	default:
		e.Hint = fmt.Sprintf("the cluster answers at %s but did not open bucket %s for %s: check couchbase-username and couchbase-password, that the bucket exists, and that the user may access it (Couchbase does not say which)", addr, cfg.Bucket, cfg.Username)
	}
	return e
}

// reach dials the first key-value address of the connection string (after
// DNS SRV resolution, as gocb does for Capella) and reports whether a TCP
// connection opened.
func reach(ctx context.Context, url string) (addr string, ok bool, err error) {
	spec, err := gocbconnstr.Parse(url)
	if err != nil {
		return "", false, err
	}
	res, err := gocbconnstr.Resolve(spec)
	if err != nil {
		return "", false, err
	}
	if len(res.MemdHosts) == 0 {
		return "", false, errors.New("it names no data node")
	}
	h := res.MemdHosts[0]
	addr = net.JoinHostPort(h.Host, strconv.Itoa(h.Port))
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return addr, false, err
	}
	conn.Close()
	return addr, true, nil
}

package couchbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v10"
)

func TestHint(t *testing.T) {
	cfg := testConfig()
	tests := []struct {
		name string
		err  error
		want string // substring of the hint; "" means no hint
	}{
		{"auth", &gocb.KeyValueError{InnerError: gocb.ErrAuthenticationFailure}, "couchbase-password"},
		{"bucket", fmt.Errorf("opening: %w", gocb.ErrBucketNotFound), "bucket agentmem does not exist"},
		{"bucket by retry reason", &gocb.TimeoutError{InnerError: gocb.ErrUnambiguousTimeout,
			RetryReasons: []gocb.RetryReason{gocbcore.BucketNotReadyReason}}, "bucket agentmem does not exist"},
		{"collection", &gocb.KeyValueError{InnerError: gocb.ErrCollectionNotFound}, "agentmem couchbase setup"},
		{"index", &gocb.SearchError{InnerError: gocb.ErrIndexNotFound}, "agentmem couchbase setup"},
		{"index not ready", &gocb.SearchError{InnerError: errors.New("search error"), HTTPStatusCode: 400,
			ErrorText: "rest_index: Query, indexName: agentmem, err: no planPIndexes for indexName: agentmem"}, "still being built"},
		{"no vector search", &gocb.SearchError{InnerError: gocb.ErrFeatureNotAvailable}, "7.6"},
		{"no scoped index", fmt.Errorf("scoped indexes cannot be used with this server version: %w", gocb.ErrFeatureNotAvailable), "with or without vectors"},
		{"no range scan", fmt.Errorf("scan: %w", gocb.ErrFeatureNotAvailable), "range scans"},
		{"vector field unknown", errors.New(`field: 'vector', unknown field type: 'vector'`), "7.6"},
		{"no search node", gocb.ErrServiceNotAvailable, "Search"},
		{"durability", &gocb.KeyValueError{InnerError: gocb.ErrDurabilityImpossible}, "--couchbase-durability none"},
		{"timeout", &gocb.TimeoutError{InnerError: gocb.ErrUnambiguousTimeout}, "couchbase-kv-timeout"},
		{"transaction expired", fmt.Errorf("txn: %w", gocb.ErrAttemptExpired), "couchbase-transaction-timeout"},
		{"ambiguous commit", &gocb.TransactionCommitAmbiguousError{}, "idempotent"},
		{"other", errors.New("disk full"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := hint(tc.err, cfg)
			if tc.want == "" && h != "" || !strings.Contains(h, tc.want) {
				t.Errorf("hint %q, want one containing %q", h, tc.want)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	cfg := testConfig()
	se := &gocb.SearchError{
		InnerError: gocb.ErrIndexNotFound, ErrorText: "index not found", HTTPStatusCode: 400,
		Query: map[string]any{"knn": []float32{0.123456, 0.654321}},
	}
	err := wrap(se, cfg, "searching index %s", cfg.Index)
	msg := err.Error()
	if strings.Contains(msg, "0.123456") {
		t.Errorf("the message carries the query: %s", msg)
	}
	for _, want := range []string{"searching index agentmem", "HTTP 400", "index not found", "agentmem couchbase setup"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if !errors.Is(err, gocb.ErrIndexNotFound) {
		t.Error("errors.Is does not see gocb's error")
	}
	if wrap(err, cfg, "again") != err {
		t.Error("an *Error was wrapped twice")
	}
	if wrap(nil, cfg, "nothing") != nil {
		t.Error("wrap(nil) is not nil")
	}
	kv := wrap(&gocb.KeyValueError{InnerError: gocb.ErrDocumentNotFound, DocumentID: "m|a|b"}, cfg, "reading")
	if !strings.Contains(kv.Error(), "m|a|b") || strings.Contains(kv.Error(), "{") {
		t.Errorf("key-value message %q: want the document and no JSON", kv)
	}
}

// A cluster that cannot be reached and one that answers but does not open
// the bucket (as with a wrong password) get different hints.
func TestDiagnoseConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // answer nothing, like a server refusing the bucket slowly
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	timeout := &gocb.TimeoutError{InnerError: gocb.ErrUnambiguousTimeout}
	tests := []struct {
		name, url string
		err       error
		want      string
	}{
		{"answers", "couchbase://" + ln.Addr().String(), timeout, "check couchbase-username and couchbase-password"},
		{"unreachable", "couchbase://" + closedAddr, timeout, "nothing answers at " + closedAddr},
		{"not a timeout", "couchbase://" + closedAddr, gocb.ErrAuthenticationFailure, "couchbase-password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.URL = tc.url
			err := diagnoseConnect(context.Background(), cfg, tc.err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v\nwant it to contain %q", err, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Error("the cause is lost")
			}
		})
	}
}

func TestSetupInvalid(t *testing.T) {
	var out strings.Builder
	err := Setup(context.Background(), Config{URL: "http://x"}, 384, &out)
	if err == nil || !strings.Contains(err.Error(), "couchbase-url") {
		t.Errorf("error %v, want a configuration error before any connection", err)
	}
	if err := Setup(context.Background(), testConfig(), maxDims+1, &out); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("error %v, want a dimensions error", err)
	}
}

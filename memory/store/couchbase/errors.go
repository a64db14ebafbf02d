package couchbase

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/couchbase/gocb/v2"
)

// Error is a failed Couchbase operation, said so that a user can act on it:
// what agentmem was doing, gocb's error in short (its own messages are JSON
// that may carry the whole query vector), and a hint when the cause is
// recognisable. errors.Is and errors.As see gocb's error through Unwrap.
type Error struct {
	Op   string // what was being done, e.g. "searching index agentmem"
	Hint string // what to do about it; "" when nothing specific is known
	Err  error
}

func (e *Error) Error() string {
	msg := e.Op + ": " + brief(e.Err)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// wrap returns err as an *Error for op, with a hint from cfg; nil for nil.
func wrap(err error, cfg Config, op string, args ...any) error {
	if err == nil {
		return nil
	}
	if errors.As(err, new(*Error)) {
		return err
	}
	return &Error{Op: fmt.Sprintf(op, args...), Hint: hint(err, cfg), Err: err}
}

// hint recognises the errors a user can fix.
func hint(err error, cfg Config) string {
	text := strings.ToLower(err.Error())
	reasons := retryReasons(err)
	has := func(r string) bool { return slices.Contains(reasons, r) }
	var commit *gocb.TransactionCommitAmbiguousError
	switch {
	case errors.Is(err, gocb.ErrAuthenticationFailure) || strings.Contains(text, "authentication"):
		return fmt.Sprintf("check couchbase-username and couchbase-password (on Capella: a database access credential with read/write access to bucket %s)", cfg.Bucket)
	case errors.Is(err, gocb.ErrBucketNotFound) || has("BUCKET_NOT_FOUND"):
		return fmt.Sprintf("bucket %s does not exist or user %s cannot access it: create it (Couchbase UI or Capella) or set couchbase-bucket", cfg.Bucket, cfg.Username)
	case errors.Is(err, gocb.ErrScopeNotFound) || errors.Is(err, gocb.ErrCollectionNotFound) || has("KV_COLLECTION_OUTDATED") || strings.Contains(text, "kv_collection_outdated"):
		return collectionGone(cfg)
	case errors.Is(err, gocb.ErrIndexNotFound):
		return fmt.Sprintf("Search index %s does not exist in %s.%s: run `agentmem couchbase setup`", cfg.Index, cfg.Bucket, cfg.Scope)
	case notReady(err):
		return fmt.Sprintf("Search index %s is still being built; wait for it (the Search page of the Couchbase UI shows its progress)", cfg.Index)
	case strings.Contains(text, "scoped indexes"):
		return "this cluster cannot hold a Search index in a scope, which agentmem needs with or without vectors: Couchbase Server 7.6 or later with the Search service, or Capella"
	case errors.Is(err, gocb.ErrFeatureNotAvailable) && !strings.Contains(text, "search") && !strings.Contains(text, "vector"):
		return "this cluster lacks a key-value feature agentmem needs (range scans, to list sessions and to forget a namespace): Couchbase Server 7.6 or later, or Capella"
	case errors.Is(err, gocb.ErrFeatureNotAvailable) || strings.Contains(text, "unknown field type: 'vector'"):
		return "this cluster lacks a feature agentmem needs: Couchbase Server 7.6 or later (7.6.2+ for long memories' windows) with the Search service, or Capella; without vector search run with --embedder none"
	case errors.Is(err, gocb.ErrServiceNotAvailable):
		return "no node of the cluster runs the service needed (Search for recall): add one"
	case errors.Is(err, gocb.ErrDurabilityImpossible) || errors.Is(err, gocb.ErrDurabilityLevelNotAvailable):
		return "the bucket has more replicas than the cluster has nodes to hold them: set --couchbase-durability none, or lower the bucket's replicas"
	case errors.Is(err, gocb.ErrWriteWriteConflict):
		return "another write to the same session is under way, or one that failed (a node restarting mid-write, say) left staged writes that Couchbase's transaction cleanup has not yet removed; retry later: remembering the same messages again is safe (it is idempotent)"
	case errors.Is(err, io.EOF) || strings.Contains(text, "connection reset") || strings.Contains(text, "broken pipe"):
		return fmt.Sprintf("the connection to %s broke mid-call (a node restarting?); retry once it is back: remembering the same messages again is safe (it is idempotent)", cfg.URL)
	case errors.As(err, &commit):
		return "the commit may or may not have happened; remembering the same messages again is safe (it is idempotent)"
	case errors.Is(err, gocb.ErrAttemptExpired):
		return fmt.Sprintf("the transaction did not finish in time: the cluster did not answer (check that %s is reachable from here: %s; on a slow link raise couchbase-transaction-timeout, now %s), or it kept meeting another transaction's writes (a failed one's wait for Couchbase's transaction cleanup): retry later", cfg.URL, ports, cfg.TransactionTimeout)
	case errors.Is(err, gocb.ErrTimeout):
		return fmt.Sprintf("the cluster did not answer in time: check that %s is reachable from here (%s); on a slow link raise couchbase-kv-timeout (now %s, for reads and writes) or couchbase-search-timeout (now %s, for recall)", cfg.URL, ports, cfg.KVTimeout, cfg.SearchTimeout)
	case errors.Is(err, gocb.ErrRateLimitedFailure) || errors.Is(err, gocb.ErrQuotaLimitedFailure):
		return "the cluster is rate limiting this user; retry later or raise its limits"
	}
	return ""
}

// ports are what a client of the cluster must reach.
const ports = "ports 11210 and 8091-8096, or 11207 and 18091-18096 for couchbases://"

// notReady recognises the Search service's answers for an index whose
// partitions are not yet built or placed.
func notReady(err error) bool {
	se, ok := errors.AsType[*gocb.SearchError](err)
	if !ok {
		return false
	}
	t := strings.ToLower(se.ErrorText)
	return strings.Contains(t, "no planpindexes") || strings.Contains(t, "pindex not available") ||
		strings.Contains(t, "not ready") || strings.Contains(t, "pindexes not ready")
}

func retryReasons(err error) []string {
	var rs []gocb.RetryReason
	if te, ok := errors.AsType[*gocb.TimeoutError](err); ok {
		rs = te.RetryReasons
	} else if kv, ok := errors.AsType[*gocb.KeyValueError](err); ok {
		rs = kv.RetryReasons
	} else if se, ok := errors.AsType[*gocb.SearchError](err); ok {
		rs = se.RetryReasons
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Description()
	}
	return out
}

// brief is gocb's error without the JSON it wraps around the cause.
func brief(err error) string {
	if te, ok := errors.AsType[*gocb.TimeoutError](err); ok {
		msg := "timed out"
		if te.TimeObserved > 0 {
			msg += " after " + te.TimeObserved.Round(1e6).String()
		}
		if rs := retryReasons(err); len(rs) > 0 {
			msg += " (retried for " + strings.Join(rs, ", ") + ")"
		}
		return msg
	}
	if se, ok := errors.AsType[*gocb.SearchError](err); ok {
		msg := "search failed"
		if se.HTTPStatusCode != 0 {
			msg += fmt.Sprintf(" with HTTP %d", se.HTTPStatusCode)
		}
		if se.ErrorText != "" {
			msg += ": " + strings.TrimSpace(se.ErrorText)
		} else if se.InnerError != nil {
			msg += ": " + se.InnerError.Error()
		}
		return msg
	}
	if kv, ok := errors.AsType[*gocb.KeyValueError](err); ok {
		msg := kv.InnerError.Error()
		if kv.DocumentID != "" {
			msg += " (document " + kv.DocumentID + ")"
		}
		return msg
	}
	return err.Error()
}

// collectionGone is the hint for a scope or collection that is not there.
func collectionGone(cfg Config) string {
	return fmt.Sprintf("collection %s does not exist: run `agentmem couchbase setup`", cfg.keyspace())
}

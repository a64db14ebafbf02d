package memory

import (
	"context"
	"errors"
)

// Store keeps memories durably and searches them. Implementations: the
// embedded store (memory/embedded) and Couchbase (memory/couchbase).
type Store interface {
	// Put stores ms all-or-nothing: when Put returns nil every memory is
	// durable, when it fails none is visible. A memory whose ID already
	// exists in its namespace is replaced.
	Put(ctx context.Context, ms []Memory) error
	// Session returns the memories of one session in turn order.
	Session(ctx context.Context, namespace, sessionID string) ([]Memory, error)
	// Search runs q and returns at most q.K hits, best first.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Delete removes what sel selects and reports how many memories it removed.
	Delete(ctx context.Context, sel Selector) (int, error)
	// Embedder reports the embedder the stored vectors were made with ("" for
	// none) and their dimensions.
	Embedder() (id string, dims int)
	Close() error
}

// Reindexer is implemented by stores that can re-embed everything they hold
// in place, for when the embedder changes.
type Reindexer interface {
	Reindex(ctx context.Context, e Embedder, progress func(done, total int)) error
}

// Selector chooses memories to delete within one namespace: by ids, by
// session, or (All) the whole namespace.
type Selector struct {
	Namespace string
	IDs       []string
	SessionID string
	All       bool
}

// ErrInUse is returned when another process holds the store open. The
// embedded store is single-process; `agentmem serve` then relays to the
// process that holds it.
var ErrInUse = errors.New("store is in use by another agentmem process")

// ErrEmbedderMismatch is returned when a store holds vectors from another
// embedder than the one configured; `agentmem reindex` re-embeds them.
var ErrEmbedderMismatch = errors.New("store was built with a different embedder")

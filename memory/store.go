package memory

import (
	"context"
	"errors"
)

// Store keeps memories durably and searches them. Implementations: the
// embedded store (memory/store/embedded) and Couchbase
// (memory/store/couchbase); memory/store/storetest is the conformance suite
// every implementation passes.
type Store interface {
	// Put stores ms all-or-nothing: when Put returns nil every memory is
	// durable, when it fails none is visible. A memory whose ID already
	// exists in its namespace is replaced.
	Put(ctx context.Context, ms []Memory) error
	// Session returns the memories of one session in turn order.
	Session(ctx context.Context, namespace, sessionID string) ([]Memory, error)
	// Turns returns the memories of turns from to to (inclusive) of one
	// session, in turn order: a window of a session that may be long.
	Turns(ctx context.Context, namespace, sessionID string, from, to int) ([]Memory, error)
	// Search runs q and returns at most q.K hits, best first.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Delete removes what sel selects and reports how many memories it removed.
	Delete(ctx context.Context, sel Selector) (int, error)
	// Embedder reports the embedder the stored vectors were made with ("" for
	// none) and their dimensions.
	Embedder() (id string, dims int)
	Close() error

	// Namespaces summarises every namespace that holds a memory, by name.
	Namespaces(ctx context.Context) ([]NamespaceInfo, error)
	// Sessions lists the sessions of a namespace, newest first, one page
	// at a time (see PageSessions, which every store uses to cut pages).
	Sessions(ctx context.Context, namespace string, f SessionFilter) (SessionPage, error)
	// SessionIDs returns the ids of a namespace's sessions that start with
	// prefix, in byte order, at most limit of them (none when limit < 1):
	// how a session shown by the start of its id is found (see
	// ShortSession). A session that holds only marks of forgotten turns
	// (ForgottenTurns) is one of them.
	SessionIDs(ctx context.Context, namespace, prefix string, limit int) ([]string, error)
	// Export calls fn with every memory of namespace ("" for all), ordered
	// by namespace, session and turn, with its vectors when vectors is
	// set. It streams: a store never holds more than a batch in memory.
	// An error from fn stops the export and is returned.
	Export(ctx context.Context, namespace string, vectors bool, fn func(Memory) error) error
}

// RecipeReporter is implemented by stores that record the recipe their
// vectors were made by (Recipe): both stores do, "" in one made before
// recipes were recorded.
type RecipeReporter interface {
	Recipe() string
}

// VectorUpgrader is implemented by stores that can replace the vectors of
// the memories they hold while they serve (both stores), so that memories
// embedded by an earlier recipe get the current recipe's vectors without a
// reindex (Service.UpgradeVectors).
type VectorUpgrader interface {
	RecipeReporter
	// ReplaceVectors stores the vectors of memories the store holds with
	// the same text (Hash) and embedder, replacing theirs; a memory
	// deleted, changed, or still waiting for its vectors is skipped. It
	// returns how many it replaced.
	ReplaceVectors(ctx context.Context, ms []Memory) (int, error)
	// RecordRecipe records the recipe the store was opened with as that of
	// every memory's vectors, as Reindex does when it ends.
	RecordRecipe(ctx context.Context) error
}

// QuickSessionIDs is implemented by stores whose SessionIDs is quick
// enough to run for every passage of a recall (the embedded store: a
// seek), so that a recall labels each UUID session by a start no other
// session of its namespace shares. On other stores (Couchbase: a range
// scan of every vBucket, which its documentation keeps for batch work) a
// recall labels a session by a start no other session of that recall
// shares, and a call that gives a start an unshown session shares too is
// refused, naming both (resolveSession).
type QuickSessionIDs interface {
	QuickSessionIDs()
}

// Reindexer is implemented by stores that can re-embed everything they hold
// in place, for when the embedder changes (see the function Reindex).
type Reindexer interface {
	// Reindex passes every stored memory, in batches, through vectorize,
	// which sets its Vectors and Embedder, writes them back, and records
	// (embedderID, dims) as the store's embedder; "" and 0 drop all vectors.
	// An interrupted reindex keeps the batches it finished and can be run
	// again.
	Reindex(ctx context.Context, embedderID string, dims int, vectorize func(ctx context.Context, ms []Memory) error, progress func(done, total int)) error
}

// Selector chooses memories to delete within one namespace: by ids, by
// session, or (All) the whole namespace.
type Selector struct {
	Namespace string
	IDs       []string
	SessionID string
	All       bool
	// Reimport, with SessionID, drops the session's marks of forgotten
	// turns, where the store keeps them (ForgottenTurns), instead of
	// marking the turns it deletes: the session may be stored anew. All
	// always drops the namespace's.
	Reimport bool
}

// ErrInUse is returned when another process holds the store open. The
// embedded store is single-process; `agentmem serve` then relays to the
// process that holds it.
var ErrInUse = errors.New("store is in use by another agentmem process")

// ErrEmbedderMismatch is returned when a store holds vectors from another
// embedder than the one configured; `agentmem reindex` re-embeds them.
var ErrEmbedderMismatch = errors.New("store was built with a different embedder")

// SessionEnds is implemented by stores that read a session's first turn and
// its last n turns without reading the whole session, so that appending to
// a session of 50,000 turns costs what appending to one of ten does.
// Remember uses it for calls whose turns carry no client ids; other stores
// are read whole (Session).
type SessionEnds interface {
	// SessionEnds returns the session's first memory (nil for a session
	// that holds none) and its last n memories in turn order.
	SessionEnds(ctx context.Context, namespace, sessionID string, n int) (first *Memory, last []Memory, err error)
}

// ForgottenTurns is implemented by stores that keep a mark of each turn
// deleted by its id or with its session (not with its namespace, and not
// with Selector.Reimport): its id, position, client id (Key) and content
// hash, no text. Remember reads the marks so that a session sent again (a
// hook's capture, a history import) skips what was forgotten instead of
// storing it again, and numbers new turns after it. A memory put at a
// marked position (an import of an export made before) takes the mark's
// place; forgetting the namespace, or the session with Reimport, drops
// the marks, so it may be stored anew. A store without it stores a
// forgotten turn again when it is resent. An export carries the marks,
// and an import writes them, where the store moves them (ForgottenMarks).
type ForgottenTurns interface {
	// ForgottenTurns returns the marks of the session's forgotten turns in
	// turn order: memories with only their ID, Namespace, SessionID,
	// Turn, Key and Hash.
	ForgottenTurns(ctx context.Context, namespace, sessionID string) ([]Memory, error)
}

// ForgottenMarks is implemented by stores whose marks of forgotten turns
// (ForgottenTurns) move with their memories (both stores): an export
// carries them, and an import writes them, so that a turn forgotten
// before a move to another store stays forgotten after it.
type ForgottenMarks interface {
	ForgottenTurns
	// ExportForgotten calls fn with the marks of each session of
	// namespace ("" for all) that holds any, one session at a time, in
	// namespace and session order (as Export), each session's in turn
	// order, as ForgottenTurns returns them. An error from fn stops it and
	// is returned.
	ExportForgotten(ctx context.Context, namespace string, fn func(marks []Memory) error) error
	// MarkForgotten stores marks of the session's turns (as ForgottenTurns
	// returns them) all-or-nothing, each replacing the mark at its
	// position; a mark at a position that holds a memory is left out: the
	// memory wins.
	MarkForgotten(ctx context.Context, namespace, sessionID string, marks []Memory) error
}

// PendingVectors is implemented by stores that can hold a memory before its
// vectors are made: Put then takes a memory with no vectors and no Embedder
// (in a store that keeps vectors) as pending, stores it durably and indexes
// its text at once, and lists it until SetVectors stores its vectors or it
// is deleted, across restarts. Remember uses it so that a long call is
// acknowledged without waiting for the embedder; other stores wait.
type PendingVectors interface {
	// PendingVectors returns up to n pending memories.
	PendingVectors(ctx context.Context, n int) ([]Memory, error)
	// CountPending counts the pending memories of a namespace ("" for all).
	CountPending(ctx context.Context, namespace string) (int, error)
	// SetVectors stores the vectors (and Embedder) of pending memories; a
	// memory no longer pending, or holding another text (by Hash), is
	// skipped.
	SetVectors(ctx context.Context, ms []Memory) error
}

// KeyFinder is implemented by stores that find a session's memories by
// client key (Memory.Key) without reading the session, so that a call whose
// messages carry ids costs the same on a long session as on a short one.
type KeyFinder interface {
	// FindKeys maps each of keys that the session holds to the id of the
	// memory that holds it.
	FindKeys(ctx context.Context, namespace, sessionID string, keys []string) (map[string]string, error)
}

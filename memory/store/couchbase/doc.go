// Package couchbase is the memory.Store for Couchbase Server 7.6+ and
// Capella: the same tools and the same retrieval semantics as the embedded
// store, on a cluster.
//
// # Layout
//
// One JSON document per memory, keyed by namespace and memory id (see
// keys.go), in one collection. Each session also has a small manifest
// document listing its memory ids, so Session is two key-value reads and
// needs neither the Query service nor an index that may lag behind a write.
// A meta document records the embedder the vectors were made with.
//
// # Windows
//
// A long memory has one vector per window of its text, and scores as its
// best window. Couchbase Search indexes one vector field per document, but
// since 7.6.2 that field may hold an array of vectors: the memory's windows
// are stored as the nested array "vector": [[...], [...]]. The vector index
// keeps one entry per window and reports a document once, with its best
// window's similarity (bleve's zapx deduplicates multi-vector documents and
// keeps the best score), which is the embedded store's best-window scoring
// with no child documents. Child documents per window were rejected: they
// would compete for the kNN candidates, need their own namespace fields for
// the prefilter, and break server-side fusion, which fuses per document.
//
// # Writes
//
// Put is one Couchbase (ACID) transaction over the memories and their session
// manifests: it commits all of them or none. Transactions return no mutation
// tokens, so after the commit every written document is touched once; the
// touch's token is at or after the commit's, and later searches of this
// Store wait for those tokens (ConsistentWith), which gives read-your-writes
// for a recall right after a remember.
//
// # Searches
//
// Search sends one request to the scoped Search index: the text side is
// exactly hybrid.TextQuery(q), the vector side a kNN whose prefilter is hybrid.Filter(q),
// fused on the server (RRF on 8.1+, else the server's sum of scores). Rerank
// alone takes two, as its text side needs the vector pool first. Requests
// are built by pure functions (request.go) and golden-tested; a test runs
// them in bleve, the engine Couchbase Search is built on.
package couchbase

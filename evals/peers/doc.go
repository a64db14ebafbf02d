// Package peers runs other MCP memory servers, installed from the npm
// registry, through the same benchmark as agentmem: one adapter per peer
// says how it stores a conversation turn with its session and date, how it
// is queried, and how its answer maps back to the benchmark's turns, so
// that evidence scoring stays exact.
//
// The peers (one file each): server-memory (@modelcontextprotocol/
// server-memory, the reference knowledge graph, substring search),
// ai-devkit-memory (@ai-devkit/memory, SQLite FTS5 with BM25) and
// memory-keeper (mcp-memory-keeper, hashed character-trigram vectors).
// Each file's doc comment says which choices give that peer its best shot.
//
// Installer installs a pinned package with npm into a cache folder
// (<user cache dir>/agentmem-eval/peers/<name>@<version>); Node.js and npm
// are the only requirements. Installation.Command starts the server over
// stdio with all its state (and HOME) in a data directory of its own, so
// runs never share state; the harness gives every unit a fresh process and
// directory, whether or not the peer keeps namespaces apart.
//
// Caveat: where a peer needs a name, key or title for each memory, the
// adapter gives it an opaque code made of punctuation ("%*+"), kept in a
// per-namespace table (ledger.go), never the benchmark's ids: LongMemEval's
// session ids name the evidence sessions ("answer_..."), and a substring
// or full-text search would match words inside ids. The code is part of
// the peer's stored text (a key, a title, an entity name), which can still
// shift a peer's results slightly (memory-keeper vectorises its keys);
// agentmem's own stored text never carries one. Every peer also gets the
// session's date and the speaker inside the stored text (Render), since
// none has fields for them.
//
// Kind tells a peer's failures apart (crash, timeout, malformed answer,
// error), so that the harness counts them and restarts a crashed or hung
// server. Package peertest is a fake server-memory in Go, with those faults,
// for tests without Node.js.
//
// This package depends only on mcp-go's client and the standard library.
package peers

// Package hybrid is the search kit both stores share: the index document
// and its bleve mapping (Doc, Mapping), the one query tree that selects and
// scores memories (Filter, TextQuery, SearchRequest, RerankQuery), and the
// fusion of the text and vector rankings (Fuse).
//
// The embedded store executes the tree in bleve; the Couchbase store sends
// the same tree to Couchbase Search, which is built on bleve. Entities (the
// names, titles, quantities and dates of a text, package entities) are
// extracted here, for the documents at index time and for the query at
// search time, so the domain (package memory) never sees a search engine.
package hybrid

// Package reranker is the contract between the memory and the models that
// read a query and a memory together and say how well the memory answers
// it (cross-encoders, served behind a /rerank endpoint). It imports nothing
// of agentmem, so an implementation (package endpoint) depends on this
// contract only. Package memory re-exports the interface as
// memory.Reranker.
package reranker

import "context"

// Reranker scores documents against a query.
type Reranker interface {
	// ID names the model and where it is served, for logs and results,
	// e.g. "rerank:bge-reranker-v2-m3@http://localhost:8080/v1/rerank".
	ID() string
	// Rerank returns one score per document, in the documents' order:
	// higher is more relevant. Scores are finite; their scale is the
	// model's own (a probability, a logit), so only their order counts.
	Rerank(ctx context.Context, query string, documents []string) ([]float64, error)
}

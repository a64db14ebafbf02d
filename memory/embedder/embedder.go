// Package embedder is the contract between the memory and the models that
// turn text into vectors: the Embedder interface, the optional
// DocumentEmbedder (several windows per long text) and EmbedDocuments. It
// imports nothing of agentmem, so an implementation (uselite, openai, the
// cache, the test fake, in the sub-packages) depends on this contract only.
// Package memory re-exports the interfaces as memory.Embedder and
// memory.DocumentEmbedder.
package embedder

import "context"

// Embedder turns text into L2-normalised vectors. A store only ever sees
// the vectors and the embedder's ID.
type Embedder interface {
	// ID names the model and its version, e.g. "builtin:use-lite-en@1" or
	// "openai:text-embedding-3-small". A store records it so that vectors from
	// two different models are never compared.
	ID() string
	// Dims is the length of every vector Embed returns.
	Dims() int
	// Embed returns one normalised vector per text, in order. Texts longer
	// than the model's window are cut as the model cuts them; use
	// EmbedDocuments for stored memories.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DocumentEmbedder is implemented by embedders whose input window is short
// enough that long memories would lose their tail: they return one or more
// vectors per text (overlapping windows), and a memory scores as its best
// window.
type DocumentEmbedder interface {
	Embedder
	EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error)
}

// EmbedDocuments embeds stored texts with e, using windows when e supports them.
func EmbedDocuments(ctx context.Context, e Embedder, texts []string) ([][][]float32, error) {
	if d, ok := e.(DocumentEmbedder); ok {
		return d.EmbedDocuments(ctx, texts)
	}
	return EmbedOne(ctx, e, texts)
}

// EmbedOne embeds texts with e's Embed, each vector as the one window of
// its text.
func EmbedOne(ctx context.Context, e Embedder, texts []string) ([][][]float32, error) {
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	out := make([][][]float32, len(vs))
	for i, v := range vs {
		out[i] = [][]float32{v}
	}
	return out, nil
}

package memory

import "agentmem/memory/embedder"

// Embedder turns text into normalised vectors; the contract lives in
// package embedder, which its implementations import without the domain.
type Embedder = embedder.Embedder

// DocumentEmbedder embeds a long text as several windows.
type DocumentEmbedder = embedder.DocumentEmbedder

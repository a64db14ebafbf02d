package uselite_test

import (
	"context"
	"fmt"

	"agentmem/memory/embedder/uselite"
)

func Example() {
	m, err := uselite.New()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	memories := []string{
		"The user prefers dark mode and uses vim keybindings.",
		"Deployments happen on Tuesdays after the integration tests pass.",
	}
	docs, err := m.EmbedDocuments(ctx, memories) // one or more windows per memory
	if err != nil {
		panic(err)
	}
	q, err := m.Embed(ctx, []string{"Which editor settings does the user like?"})
	if err != nil {
		panic(err)
	}
	for i, windows := range docs {
		best := float32(-1)
		for _, w := range windows {
			var dot float32 // vectors are unit length: the dot product is the cosine
			for j := range w {
				dot += w[j] * q[0][j]
			}
			best = max(best, dot)
		}
		fmt.Printf("%.1f %s\n", best, memories[i])
	}
	// Output:
	// 0.5 The user prefers dark mode and uses vim keybindings.
	// 0.2 Deployments happen on Tuesdays after the integration tests pass.
}

package embedded_test

import (
	"context"
	"testing"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/memory/store/storetest"
)

// The embedded store passes the store conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Open {
		dir := t.TempDir()
		return func(id string, dims int, any bool) (memory.Store, error) {
			return embedded.Open(context.Background(), dir, embedded.Options{EmbedderID: id, Dims: dims, SkipEmbedderCheck: any, NoSync: true})
		}
	})
}

// The embedded store records the recipe of its vectors.
func TestRecipeRecorded(t *testing.T) {
	storetest.RecipeRecorded(t, func(t *testing.T) storetest.OpenRecipe {
		dir := t.TempDir()
		return func(id string, dims int, any bool, recipe string) (memory.Store, error) {
			return embedded.Open(context.Background(), dir, embedded.Options{EmbedderID: id, Dims: dims, SkipEmbedderCheck: any, Recipe: recipe, NoSync: true})
		}
	})
}

// The embedded store's memories of an earlier recipe get the current one's
// vectors in the background.
func TestVectorsUpgraded(t *testing.T) {
	storetest.VectorsUpgraded(t, func(t *testing.T) storetest.OpenRecipe {
		dir := t.TempDir()
		return func(id string, dims int, any bool, recipe string) (memory.Store, error) {
			return embedded.Open(context.Background(), dir, embedded.Options{EmbedderID: id, Dims: dims, SkipEmbedderCheck: any, Recipe: recipe, NoSync: true})
		}
	})
}

package memory

import (
	"context"
	"fmt"
)

// Reindex re-embeds every memory of st with e (nil: drop all vectors) in
// place, as Remember would embed it now.
func Reindex(ctx context.Context, st Reindexer, e Embedder, progress func(done, total int)) error {
	id, dims := "", 0
	if e != nil {
		id, dims = e.ID(), e.Dims()
	}
	return st.Reindex(ctx, id, dims, func(ctx context.Context, ms []Memory) error {
		if e == nil {
			for i := range ms {
				ms[i].Vectors, ms[i].Embedder = nil, ""
			}
			return nil
		}
		var prev []*Memory
		if prevWords(e) > 0 {
			tr, ok := st.(turnReader)
			if !ok {
				return fmt.Errorf("embedder %s embeds a turn with the one before it, and this store cannot read turns", e.ID())
			}
			var err error
			if prev, err = storedPrevious(ctx, tr, e, ms); err != nil {
				return err
			}
		}
		return vectorize(ctx, e, ms, prev)
	}, progress)
}

package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Vectors of an earlier recipe, brought up to date while a server serves.
// A store whose memories were embedded before sentence windows (its
// recorded recipe is not the service's, RecipeOf) ranks each of them by
// its one vector, a little below a new memory of the same words and its
// best window. UpgradeVectors gives them theirs in the background: each
// memory of a short turn of two sentences or more is embedded again as
// Remember embeds it now (the embedding cache gives back the turn's own
// vector, so only its sentences are new), its vectors are replaced where
// its text is unchanged (VectorUpgrader.ReplaceVectors), and once every
// memory has been through, the store records the recipe, so the next
// start has nothing to do. Until then a start begins again from the
// first memory: the ones already upgraded are embedded from the cache,
// found equal and left as they are.

// upgrades holds the upgrade running on each store: one per store,
// whatever the number of services over it.
var (
	upgradesMu sync.Mutex
	upgrades   = map[VectorUpgrader]*upgrade{}
)

// upgrade is one store's upgrade in the background.
type upgrade struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// UpgradeVectors starts giving the store's memories the vectors of the
// service's recipe in the background, when their recipe is an earlier one
// and the store can replace vectors while it serves (VectorUpgrader);
// Close stops it. A long-running server calls it (agentmem serve), not a
// one-shot command, which would stop it at once.
func (s *Service) UpgradeVectors() {
	st, ok := s.store.(VectorUpgrader)
	want := RecipeOf(s.embedder)
	if !ok || want == "" || st.Recipe() == want {
		return
	}
	upgradesMu.Lock()
	defer upgradesMu.Unlock()
	if upgrades[st] != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &upgrade{cancel: cancel, done: make(chan struct{})}
	upgrades[st] = u
	s.upgrade = u
	go func() {
		defer close(u.done)
		s.upgradeAll(ctx, st, want)
	}()
}

// stopUpgrade stops the upgrade this service started and waits for it.
func (s *Service) stopUpgrade() {
	u := s.upgrade
	if u == nil {
		return
	}
	u.cancel()
	<-u.done
	upgradesMu.Lock()
	for st, v := range upgrades {
		if v == u {
			delete(upgrades, st)
		}
	}
	upgradesMu.Unlock()
}

// upgradeAll passes every memory with sentence windows under the
// service's recipe through upgradeBatch, then records the recipe.
func (s *Service) upgradeAll(ctx context.Context, st VectorUpgrader, want string) {
	start := time.Now()
	from := cmp.Or(st.Recipe(), "(none recorded)")
	s.log.Info("the stored memories were embedded by an earlier agentmem: giving them this one's vectors in the background (a vector for each sentence of a short turn)", "recipe", from, "now", want)
	var batch []Memory
	checked, replaced := 0, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if s.filler != nil {
			s.filler.yieldToBulk() // an import's vectors first
		}
		n, err := s.upgradeBatch(ctx, st, batch)
		checked, replaced = checked+len(batch), replaced+n
		batch = batch[:0]
		return err
	}
	err := s.store.Export(ctx, "", true, func(m Memory) error {
		if len(m.Vectors) == 0 || len(sentenceInputs(s.embedder, m)) == 0 {
			return nil // waiting for its vectors, or the same under either recipe
		}
		batch = append(batch, m)
		if len(batch) < fillBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = st.RecordRecipe(ctx)
	}
	switch {
	case ctx.Err() != nil:
		s.log.Info("stopped giving the stored memories this agentmem's vectors; the next start goes on", "memories_replaced", replaced)
	case err != nil:
		s.log.Warn("giving the stored memories this agentmem's vectors failed; the next start tries again (or run `agentmem reindex`)", "err", err, "memories_replaced", replaced)
	default:
		s.log.Info("the stored memories have this agentmem's vectors", "recipe", want, "memories_checked", checked, "memories_replaced", replaced, "took", time.Since(start).Round(time.Millisecond))
	}
}

// upgradeBatch embeds ms again as Remember would now and replaces the
// vectors of those whose vectors differ; it returns how many it replaced.
func (s *Service) upgradeBatch(ctx context.Context, st VectorUpgrader, ms []Memory) (int, error) {
	had := make([][][]float32, len(ms))
	for i := range ms {
		had[i] = ms[i].Vectors
	}
	prev, err := storedPrevious(ctx, s.store, s.embedder, ms)
	if err != nil {
		return 0, err
	}
	if err := vectorize(ctx, s.embedder, ms, prev); err != nil {
		return 0, err
	}
	var changed []Memory
	for i, m := range ms {
		if !slices.EqualFunc(m.Vectors, had[i], slices.Equal[[]float32]) {
			changed = append(changed, m)
		}
	}
	if len(changed) == 0 {
		return 0, nil
	}
	return st.ReplaceVectors(ctx, changed)
}

package memory

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"
)

// Vectors of an earlier recipe, brought up to date while a server serves.
// A store whose memories were embedded before sentence windows (its
// recorded recipe is not the service's, RecipeOf) ranks each of them by
// its one vector, a little below a new memory of the same words and its
// best window. UpgradeVectors gives them theirs in the background: each
// memory of a short turn of two sentences or more that has fewer vectors
// than its sentences and its turn (lacksWindows) is embedded again as
// Remember embeds it now (the embedding cache gives back the turn's own
// vector, so only its sentences are new), its vectors are replaced where
// its text is unchanged (VectorUpgrader.ReplaceVectors), and once every
// memory has been through, the store records the recipe, so the next
// start has nothing to do. A start cut short begins again from the first
// memory, and passes over those that already have their windows without
// embedding them. A failure is tried again, after a pause that doubles up
// to a minute.
//
// It works at half the machine's pace: after each batch it waits as long
// as the batch took, so recalls meanwhile are not queued behind its
// embedding (LoCoMo dev7's 3,858 memories: recall p95 48.5 ms without the
// pause, 2.6 ms with it, 1.7 ms after; 21 s for the whole upgrade, 43 s
// with the pause; EVALS.md, "Vectors of an earlier recipe, upgraded
// while serving").

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
	if upgrades[st] != nil || s.upgrade != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &upgrade{cancel: cancel, done: make(chan struct{})}
	upgrades[st], s.upgrade = u, u
	go func() {
		defer close(u.done)
		defer func() {
			upgradesMu.Lock()
			if upgrades[st] == u {
				delete(upgrades, st)
			}
			upgradesMu.Unlock()
		}()
		s.upgradeAll(ctx, st, want)
	}()
}

// stopUpgrade stops the upgrade this service started and waits for it.
func (s *Service) stopUpgrade() {
	upgradesMu.Lock()
	u := s.upgrade
	upgradesMu.Unlock()
	if u == nil {
		return
	}
	u.cancel()
	<-u.done
}

// upgradeAll runs upgradePass until it succeeds or ctx is done, pausing
// after a failure, and logs what it did.
func (s *Service) upgradeAll(ctx context.Context, st VectorUpgrader, want string) {
	start := time.Now()
	s.log.Info("the stored memories were embedded by an earlier agentmem: giving them this one's vectors in the background (a vector for each sentence of a short turn)", "recipe", cmp.Or(st.Recipe(), "(none recorded)"), "now", want)
	backoff := time.Second
	embedded, replaced := 0, 0 // over every pass
	for {
		e, r, err := s.upgradePass(ctx, st)
		embedded, replaced = embedded+e, replaced+r
		switch {
		case ctx.Err() != nil:
			s.log.Info("stopped giving the stored memories this agentmem's vectors; the next `agentmem serve` goes on", "memories_replaced", replaced)
			return
		case err == nil:
			s.log.Info("the stored memories have this agentmem's vectors", "recipe", want, "memories_embedded", embedded, "memories_replaced", replaced, "took", time.Since(start).Round(time.Millisecond))
			return
		case errors.Is(err, ErrEmbedderMismatch):
			// another server reindexed the store to another embedder
			s.log.Warn("stopped giving the stored memories this agentmem's vectors", "err", err)
			return
		}
		s.log.Warn("giving the stored memories this agentmem's vectors; retrying (or run `agentmem reindex`)", "err", err, "memories_replaced", replaced, "in", backoff)
		if !sleep(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// upgradePass passes every memory that lacks its windows through
// upgradeBatch, a batch at a time, then records the recipe. It returns
// how many memories it embedded again and how many it replaced.
func (s *Service) upgradePass(ctx context.Context, st VectorUpgrader) (embedded, replaced int, err error) {
	var batch []Memory
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if s.filler != nil {
			s.filler.yieldToBulk(ctx) // an import's vectors first
		}
		began := time.Now()
		n, err := s.upgradeBatch(ctx, st, batch)
		embedded, replaced = embedded+len(batch), replaced+n
		batch = batch[:0]
		if err != nil {
			return err
		}
		// half pace: recalls meanwhile are not queued behind the embedder
		if !sleep(ctx, time.Since(began)) {
			return ctx.Err()
		}
		return nil
	}
	err = s.store.Export(ctx, "", true, func(m Memory) error {
		if !lacksWindows(s.embedder, m) {
			return nil
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
	return embedded, replaced, err
}

// lacksWindows reports whether m, stored with vectors, has fewer than e's
// recipe gives it: a window for its text (a short turn's is one: a turn
// of SentenceTurnWords words, and the end of the turn before it, fit the
// built-in model's 128 tokens unless its words are long codes) and one
// for each of its sentences.
func lacksWindows(e Embedder, m Memory) bool {
	if prevWords(e) == 0 || m.Embedder != e.ID() {
		return false // another recipe's, or another embedder's
	}
	return LacksSentenceWindows(m)
}

// LacksSentenceWindows reports whether m, stored with vectors made by the
// server's recipe (Recipe), has fewer than it gives m: a short turn of two
// sentences or more that an earlier agentmem embedded (see lacksWindows).
// `agentmem check` counts them.
func LacksSentenceWindows(m Memory) bool {
	n := len(sentences(m.Text))
	return n >= 2 && len(m.Vectors) > 0 && len(m.Vectors) < 1+n
}

// upgradeBatch embeds ms again as Remember would now and replaces the
// vectors of those that gain windows (all of them, but for a sentence
// whose blend has no direction); it returns how many it replaced.
func (s *Service) upgradeBatch(ctx context.Context, st VectorUpgrader, ms []Memory) (int, error) {
	had := make([]int, len(ms))
	for i := range ms {
		had[i] = len(ms[i].Vectors)
	}
	if _, err := vectorizeStored(ctx, s.store, s.embedder, ms); err != nil {
		return 0, err
	}
	var changed []Memory
	for i, m := range ms {
		if len(m.Vectors) > had[i] {
			changed = append(changed, m)
		}
	}
	if len(changed) == 0 {
		return 0, nil
	}
	return st.ReplaceVectors(ctx, changed)
}

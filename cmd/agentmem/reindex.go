package main

import (
	"agentmem/memory"
	"agentmem/server"
	"errors"
	"fmt"
	"os"
)

type reindexCmd struct{}

func (reindexCmd) Run(e *env) error {
	if e.cfg.Store == "" || e.cfg.Store == "embedded" {
		// the store is rewritten in place: no server may hold it meanwhile
		dir, err := e.cfg.Dir()
		if err != nil {
			return err
		}
		lock, err := server.TryLock(dir)
		if errors.Is(err, server.ErrHeld) {
			return fmt.Errorf("%w: stop the agentmem servers using this data dir, then reindex", err)
		}
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	st, emb, closeAll, err := openForReindex(e.ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer closeAll()
	from, dims := st.Embedder()
	to := "none"
	if emb != nil {
		to = fmt.Sprintf("%s (%d dimensions)", emb.ID(), emb.Dims())
	}
	e.log.Info("reindexing", "from", fmt.Sprintf("%q (%d dimensions)", from, dims), "to", to)
	last := -1
	err = memory.Reindex(e.ctx, st, emb, func(done, total int) {
		if pct := done * 100 / max(total, 1); pct/10 != last/10 || done == total {
			last = pct
			fmt.Fprintf(os.Stderr, "\rreindexed %d/%d memories", done, total)
		}
	})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println("Reindexed with", to)
	return nil
}

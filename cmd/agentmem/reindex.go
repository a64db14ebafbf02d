package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/term"

	"agentmem/cmd/internal/backend"
	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
	"agentmem/tools/spec"
)

type reindexCmd struct {
	Text    bool `help:"Rebuild only the text index from the records (no re-embedding): what agentmem check advises when the index is stale."`
	Vectors bool `help:"Rebuild only the vector index and its snapshots from the records' vectors (no re-embedding): what agentmem check advises when a snapshot does not match the records."`
}

// textRebuilder is a store whose text index is derived from its records
// and can be rebuilt from them (the embedded store).
type textRebuilder interface {
	RebuildText(ctx context.Context, progress func(done, total int)) error
}

// vectorRebuilder is a store whose vector index and snapshots are derived
// from its records' vectors (the embedded store).
type vectorRebuilder interface {
	RebuildVectors(ctx context.Context) (memories, windows int, err error)
}

// progressLine prints "\r<what> done/total" on stderr every tenth, and
// ends the line when done reaches total (so that a log line after it
// starts on its own), or when end is called first (an error). When stderr
// is not a terminal (a log file, a pipe), each tenth is a line of its own.
func progressLine(what string) (progress func(done, total int), end func()) {
	return progressTo(what, term.IsTerminal(int(os.Stderr.Fd())))
}

// progressTo is progressLine, on one line redrawn when tty is true.
func progressTo(what string, tty bool) (progress func(done, total int), end func()) {
	last, open, finished := -1, false, false
	end = func() {
		if open {
			fmt.Fprintln(os.Stderr)
			open = false
		}
	}
	progress = func(done, total int) {
		if pct := done * 100 / max(total, 1); !finished && (pct/10 != last/10 || done == total) {
			last = pct
			if tty {
				open = true
				fmt.Fprintf(os.Stderr, "\r%s %d/%d", what, done, total)
			} else {
				fmt.Fprintf(os.Stderr, "%s %d/%d\n", what, done, total)
			}
			if done == total {
				finished = true
				end()
			}
		}
	}
	return progress, end
}

func (c reindexCmd) Run(e *env) error {
	release, err := holdStore(e)
	if err != nil {
		return err
	}
	defer release()
	st, emb, closeAll, err := backend.OpenForReindex(e.ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer closeAll()
	tr, _ := st.(textRebuilder)
	if c.Text && tr == nil {
		return fmt.Errorf("the %s store keeps no text index of its own to rebuild", e.cfg.Store)
	}
	vr, _ := st.(vectorRebuilder)
	if c.Vectors && vr == nil {
		return fmt.Errorf("the %s store keeps no vector index of its own to rebuild", e.cfg.Store)
	}
	if c.Vectors {
		if err := rebuildVectors(e, st, vr); err != nil {
			return err
		}
		if !c.Text {
			return nil
		}
	}
	done := "Rebuilt the text index"
	if c.Vectors {
		done = "Rebuilt the vector and text indexes"
	}
	if !c.Text {
		if done, err = reembed(e, st, emb); err != nil {
			return err
		}
	}
	if tr != nil {
		// --text, or the text side of a reindex, which leaves nothing
		// derived unrebuilt
		progress, end := progressLine("rebuilt the text index: documents")
		err := tr.RebuildText(e.ctx, progress)
		end()
		if err != nil {
			return err
		}
	}
	fmt.Println(done)
	return nil
}

// holdStore locks the embedded store's data dir, which a reindex rewrites
// in place (no server may hold it meanwhile), and checks that its records
// are intact; release unlocks it. Another store is not held.
func holdStore(e *env) (release func(), err error) {
	if e.cfg.Store != "" && e.cfg.Store != "embedded" {
		return func() {}, nil
	}
	dir, err := e.cfg.Dir()
	if err != nil {
		return nil, err
	}
	lock, err := server.TryLock(dir)
	if errors.Is(err, server.ErrHeld) {
		return nil, fmt.Errorf("%w: stop the agentmem servers using this data dir, or let the command that holds it (an import) finish, then reindex", err)
	}
	if err != nil {
		return nil, err
	}
	if err := recordsIntact(e.ctx, dir); err != nil {
		lock.Unlock()
		return nil, err
	}
	return func() { lock.Unlock() }, nil
}

// rebuildVectors rebuilds st's vector index from its records' vectors
// (--vectors), and says what it holds.
func rebuildVectors(e *env, st backend.Reindexable, vr vectorRebuilder) error {
	n, w, err := vr.RebuildVectors(e.ctx)
	if err != nil {
		return err
	}
	if from, _ := st.Embedder(); from == "" || from == "none" {
		fmt.Println("The store holds no vectors (it has no embedder): none to rebuild")
	} else {
		fmt.Printf("Rebuilt the vector index from the records: %s, %s\n", spec.Count(n, "memory"), spec.Count(w, "vector"))
	}
	return nil
}

// reembed embeds every memory of st again with emb (memory.Reindex),
// logging the embedders from and to, and returns what to say it did.
func reembed(e *env, st backend.Reindexable, emb memory.Embedder) (string, error) {
	from, dims := st.Embedder()
	to := "none"
	if emb != nil {
		to = fmt.Sprintf("%s (%d dimensions, recipe %s)", emb.ID(), emb.Dims(), memory.RecipeOf(emb))
	}
	if r, ok := st.(memory.RecipeReporter); ok && from != "" {
		from = fmt.Sprintf("%s (%d dimensions, recipe %s)", from, dims, cmp.Or(r.Recipe(), "none recorded"))
	} else {
		from = fmt.Sprintf("%s (%d dimensions)", from, dims)
	}
	e.log.Info("reindexing", "from", from, "to", to)
	progress, end := progressLine("reindexed: memories")
	err := memory.Reindex(e.ctx, st, emb, progress)
	end()
	if err != nil {
		return "", err
	}
	return "Reindexed with " + to, nil
}

// recordsIntact checks the record file of the embedded store in dir (as
// agentmem check does, without the indexes) before a reindex rebuilds everything from it: a
// damaged one would make the damage permanent (a record whose key no
// longer names it would drop out of the rebuilt index). The text index's
// own problems are what a reindex repairs.
func recordsIntact(ctx context.Context, dir string) error {
	store := filepath.Join(dir, "store")
	if _, err := os.Stat(store); err != nil {
		return nil // nothing stored yet: the open says what is missing
	}
	r, err := embedded.CheckRecords(ctx, store)
	if err != nil {
		return err
	}
	if len(r.Records) == 0 {
		return nil
	}
	for _, p := range r.Records {
		fmt.Fprintln(os.Stderr, "records:", p)
	}
	return fmt.Errorf("the record file is damaged (%s above): nothing was reindexed, since the index would be rebuilt from the damage; stop agentmem and restore %s from a backup", spec.Count(len(r.Records), "problem"), filepath.Join(store, "memories.db"))
}

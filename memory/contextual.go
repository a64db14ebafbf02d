package memory

import (
	"context"
	"strconv"
	"strings"

	"agentmem/memory/embedder"
)

// PrevWords is how many words of the turn before it lead a memory's text
// when a contextual embedder (see Contextual) makes its vector: "How did it
// go?" / "Amazing, the kids loved it!" is found by what the first turn
// asked. Chosen by measurement on LoCoMo and LongMemEval (EVALS.md,
// "Recall defaults"); the text index is unaffected.
const PrevWords = 10

// Contextual returns e as the server embeds memories: each turn led by the
// last PrevWords words of the turn before it in its session. Its ID is
// e's with "+prev10" after it, so a store records which recipe made its
// vectors, and a store made by the plain recipe asks for `agentmem
// reindex`, which moves it to this one. Queries are embedded as they are.
func Contextual(e Embedder) Embedder {
	if e == nil {
		return nil
	}
	return contextual{e}
}

type contextual struct{ e Embedder }

func (c contextual) ID() string { return c.e.ID() + "+prev" + strconv.Itoa(PrevWords) }
func (c contextual) Dims() int  { return c.e.Dims() }
func (c contextual) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return c.e.Embed(ctx, texts)
}
func (c contextual) EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error) {
	return embedder.EmbedDocuments(ctx, c.e, texts)
}

// prevWords is how many words of the previous turn e's recipe embeds with
// a memory: PrevWords for a contextual embedder, else 0.
func prevWords(e Embedder) int {
	if _, ok := e.(contextual); ok {
		return PrevWords
	}
	return 0
}

// embedInput is the text a memory's vectors are made from under e's
// recipe, given the turn before it (nil at a session's start).
func embedInput(e Embedder, m Memory, prev *Memory) string {
	n := prevWords(e)
	if n == 0 || prev == nil {
		return m.EmbedText()
	}
	f := strings.Fields(prev.EmbedText())
	return strings.Join(f[max(0, len(f)-n):], " ") + "\n" + m.EmbedText()
}

// turnReader reads a window of a session (Store.Turns).
type turnReader interface {
	Turns(ctx context.Context, namespace, sessionID string, from, to int) ([]Memory, error)
}

// vectorizeStored sets the vectors of ms as remember would, each after
// the turn before it still stored (storedPrevious), and returns those
// turns: how vectors are made outside a remember (background vectors, an
// upgrade, a forget's neighbour).
func vectorizeStored(ctx context.Context, st turnReader, e Embedder, ms []Memory) ([]*Memory, error) {
	prev, err := storedPrevious(ctx, st, e, ms)
	if err != nil {
		return nil, err
	}
	return prev, vectorize(ctx, e, ms, prev)
}

// revectorize makes the vectors of ms again from the turns st stores now
// (vectorizeStored) and replaces theirs in up, the same store.
func revectorize(ctx context.Context, st turnReader, up VectorUpgrader, e Embedder, ms []Memory) error {
	if _, err := vectorizeStored(ctx, st, e, ms); err != nil {
		return err
	}
	_, err := up.ReplaceVectors(ctx, ms)
	return err
}

// storedPrevious returns, for each memory of ms, the turn before it in its
// session: from ms itself or else read from st (nil at a session's start,
// or when e's recipe needs none). Used where memories are embedded outside
// a remember (background vectors, reindex), so that every path gives a
// memory the same vectors.
func storedPrevious(ctx context.Context, st turnReader, e Embedder, ms []Memory) ([]*Memory, error) {
	if prevWords(e) == 0 {
		return nil, nil
	}
	type at struct {
		ns, session string
		turn        int
	}
	have := make(map[at]*Memory, len(ms))
	for i := range ms {
		have[at{ms[i].Namespace, ms[i].SessionID, ms[i].Turn}] = &ms[i]
	}
	out := make([]*Memory, len(ms))
	for i, m := range ms {
		if m.Turn == 0 {
			continue
		}
		if p := have[at{m.Namespace, m.SessionID, m.Turn - 1}]; p != nil {
			out[i] = p
			continue
		}
		// the nearest earlier turn still stored (a turn may have been forgotten)
		ts, err := st.Turns(ctx, m.Namespace, m.SessionID, max(0, m.Turn-8), m.Turn-1)
		if err != nil {
			return nil, err
		}
		if len(ts) > 0 {
			out[i] = new(ts[len(ts)-1])
		}
	}
	return out, nil
}

package memory

import (
	"context"
	"math"
)

// A recall that names no k takes one that grows with the history
// (AutoK): DefaultK up to AutoKFrom memories, then about one more for
// each quarter more memories (10 per tenfold), up to AutoKMost. The seed
// study's rule, k about 10 for 50 sessions and 20 for 500 (EVALS.md, "Recall
// defaults"), read in memories at about 20 turns a session (LoCoMo's are
// 22, LongMemEval's 10); measured in EVALS.md, "k from the history's
// size".
const (
	AutoKFrom = 1000
	AutoKMost = 20
)

// AutoK is the k of a recall that names none, in a namespace of n
// memories.
func AutoK(n int) int {
	if n <= AutoKFrom {
		return DefaultK
	}
	k := int(math.Round(DefaultK * (1 + math.Log10(float64(n)/AutoKFrom))))
	return min(k, AutoKMost)
}

// MemoryCounter is implemented by stores that count a namespace's
// memories cheaply, for AutoK: the embedded store reads its text index's
// count, Couchbase the hits of the request that reads the namespace's
// speakers (kept a while). On other stores a recall that names no k takes
// DefaultK.
type MemoryCounter interface {
	CountMemories(ctx context.Context, namespace string) (int, error)
}

// autoK is the k of a recall in namespace ns that names none: AutoK of
// its memories where the store counts them cheaply, else DefaultK.
// Within one session it is DefaultK: a session is not the history. A
// count that fails is logged and gives DefaultK: the search that follows
// meets the fault itself, and repairs it or says so.
func (s *Service) autoK(ctx context.Context, ns, session string) int {
	c, ok := s.store.(MemoryCounter)
	if !ok || session != "" {
		return DefaultK
	}
	n, err := c.CountMemories(ctx, ns)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("counting the memories for k; using the default", "namespace", ns, "k", DefaultK, "err", err)
		}
		return DefaultK
	}
	return AutoK(n)
}

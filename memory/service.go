package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Service is the memory as the tools see it: ingest, recall, forget and the
// clock, over any Store and optional Embedder.
type Service struct {
	store     Store
	embedder  Embedder
	reranker  *Guarded // nil: none
	rerankN   int
	now       func() time.Time
	loc       *time.Location
	namespace string
	fusion    Fusion
	weights   Weights
	// sessions serialises ingest per session, so two concurrent calls that
	// append to one session cannot both claim the same turn numbers.
	sessions [64]sync.Mutex
	// embedWait bounds how long Remember waits for vectors (negative: no
	// bound); filler makes the rest in the background (see put).
	embedWait time.Duration
	filler    *filler
	upgrade   *upgrade // the vectors of an earlier recipe (UpgradeVectors)
	log       *slog.Logger
}

// Options configure a Service. Store is required; the rest have defaults.
type Options struct {
	Store    Store
	Embedder Embedder // nil: lexical retrieval only
	// Reranker, when set, orders each recall's best fused candidates by
	// reading the query and each memory together (see Service.rerank);
	// nil: the fused order. Services that share one should be given one
	// Guard of it, so that they share the pauses of its failures.
	Reranker Reranker
	// RerankCandidates is how many fused candidates the reranker orders
	// (at most MaxK); 0 means FillCandidates times the recall's k.
	RerankCandidates int
	// Now is the clock; nil means time.Now. Replays and benchmarks fix it.
	Now       func() time.Time
	Location  *time.Location // nil means UTC
	Namespace string         // default namespace; "" means "default"
	Fusion    Fusion         // default fusion; "" means RRF
	Weights   Weights        // zero fields take DefaultWeights
	// EmbedWait is how long Remember waits for the vectors of the memories
	// it stores before it stores them without, to be embedded in the
	// background (only with a store that implements PendingVectors);
	// 0 means DefaultEmbedWait, a negative value as long as it takes.
	EmbedWait time.Duration
	Logger    *slog.Logger // nil: no logs
}

// DefaultNamespace is used when neither the call nor the configuration names one.
const DefaultNamespace = "default"

// New returns a Service. It fails when the store's vectors were made by an
// embedder other than opts.Embedder.
func New(opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("memory: a store is required")
	}
	s := &Service{
		store:     opts.Store,
		embedder:  opts.Embedder,
		rerankN:   opts.RerankCandidates,
		now:       opts.Now,
		loc:       opts.Location,
		namespace: opts.Namespace,
		fusion:    opts.Fusion,
		weights:   opts.Weights,
		embedWait: opts.EmbedWait,
		log:       opts.Logger,
	}
	if opts.Reranker != nil {
		s.reranker = Guard(opts.Reranker)
	}
	s.embedWait = cmp.Or(s.embedWait, DefaultEmbedWait)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.loc == nil {
		s.loc = time.UTC
	}
	s.namespace = cmp.Or(s.namespace, DefaultNamespace)
	if err := validName("namespace", s.namespace, maxNamespace); err != nil {
		return nil, err
	}
	if s.rerankN < 0 || s.rerankN > MaxK {
		return nil, &FieldError{"rerank candidates", fmt.Sprintf("must be between 0 (the default) and %d, got %d", MaxK, s.rerankN)}
	}
	s.fusion = cmp.Or(s.fusion, RRF)
	if err := validFusion(s.fusion); err != nil {
		return nil, err
	}
	s.startFiller()
	return s, nil
}

// Now is the service clock in its configured location.
func (s *Service) Now() time.Time { return s.now().In(s.loc) }

// Location is the configured time zone.
func (s *Service) Location() *time.Location { return s.loc }

// Embedder returns the configured embedder, nil for lexical only.
func (s *Service) Embedder() Embedder { return s.embedder }

func (s *Service) sessionLock(ns, session string) *sync.Mutex {
	return &s.sessions[s.sessionStripe(ns, session)]
}

func (s *Service) sessionStripe(ns, session string) int {
	h := fnv.New32a()
	h.Write([]byte(ns))
	h.Write([]byte{0})
	h.Write([]byte(session))
	return int(h.Sum32() % uint32(len(s.sessions)))
}

// lockSessions takes the locks of several sessions of ns (a forget's), in
// one order, so that two callers never wait on each other; it returns
// their unlock.
func (s *Service) lockSessions(ns string, sessions []string) (unlock func()) {
	var stripes []int
	for _, id := range sessions {
		stripes = append(stripes, s.sessionStripe(ns, id))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		s.sessions[i].Lock()
	}
	return func() {
		for _, i := range stripes {
			s.sessions[i].Unlock()
		}
	}
}

// ns resolves a call's namespace ("" is the caller's default) and checks
// that the caller may read it, or write it.
func (s *Service) ns(ctx context.Context, requested string, write bool) (string, error) {
	ns := requested
	if a := AccessFrom(ctx); ns == "" && a != nil && a.Default == "" {
		return "", &FieldError{"namespace", fmt.Sprintf("must be given: %s opens no default namespace, only %s", a.User, a.patterns())}
	}
	if ns == "" {
		ns = s.DefaultNamespaceOf(ctx)
	} else if err := validName("namespace", ns, maxNamespace); err != nil {
		return "", err
	}
	return ns, AccessFrom(ctx).check(ns, write)
}

// parseDate reads a date argument, in the service's time zone.
func (s *Service) parseDate(field, v string) (t time.Time, dateOnly bool, err error) {
	t, dateOnly, err = ParseDate(v, s.loc)
	if err != nil {
		return time.Time{}, false, &FieldError{field, err.Error()}
	}
	return t, dateOnly, nil
}

func validFusion(f Fusion) error {
	if slices.Contains(Fusions, f) {
		return nil
	}
	return &FieldError{Field: "fusion", Msg: fmt.Sprintf("must be one of %v, got %q", Fusions, f)}
}

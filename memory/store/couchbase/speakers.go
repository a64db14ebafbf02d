package couchbase

import (
	"context"
	"sync"
	"time"

	"agentmem/memory/hybrid"
)

// factsTTL is how long a namespace's facts (its speakers and memory
// count), once read, serve the recalls that need them (a name in the
// query, a recall that names no k), so that such a recall costs one more
// request only now and then. This Store's own writes to a namespace drop
// its entry at once; another process's new speaker is seen within factsTTL
// (until then its name stays a word of the text's match, as any other
// name's does).
const factsTTL = 30 * time.Second

// factsCache holds the facts (nsFacts) of the namespaces recently
// recalled. Every write moves its generation on: a read that began before
// a write (to any namespace) does not store what it read. Entries past
// factsTTL are swept when the cache grows, so it holds about the
// namespaces recalled in the last factsTTL.
type factsCache struct {
	mu   sync.Mutex
	byNS map[string]factsEntry
	gen  uint64
}

type factsEntry struct {
	facts nsFacts
	at    time.Time
}

// nsFacts are what one request tells of a namespace (fetchFacts): its
// speakers, and how many memories it holds (memory.MemoryCounter).
type nsFacts struct {
	speakers []string
	memories int
}

// sweepAt is the size past which put drops expired entries.
const sweepAt = 256

// get returns ns's facts when they were read less than factsTTL
// before now, and the generation a read begun now stores them under.
func (c *factsCache) get(ns string, now time.Time) (nsFacts, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byNS[ns]
	if ok && now.Sub(e.at) < factsTTL {
		return e.facts, c.gen, true
	}
	return nsFacts{}, c.gen, false
}

// put stores ns's facts, read at generation gen; a write since then
// (drop) makes it a no-op.
func (c *factsCache) put(ns string, facts nsFacts, gen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.byNS == nil {
		c.byNS = map[string]factsEntry{}
	}
	if len(c.byNS) >= sweepAt {
		for k, e := range c.byNS {
			if now.Sub(e.at) >= factsTTL {
				delete(c.byNS, k)
			}
		}
	}
	c.byNS[ns] = factsEntry{facts, now}
}

// drop forgets the facts of namespaces nss, written to or deleted from.
func (c *factsCache) drop(nss ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ns := range nss {
		delete(c.byNS, ns)
	}
	c.gen++
}

// speakers returns the speakers of namespace ns named by one of names
// (hybrid.QueryNames, hybrid.SpeakerNamed), as the embedded store does.
// A namespace's speakers are read with one request (fetchFacts) and
// kept for factsTTL, or until this Store writes to the namespace.
// Another process's deletes are seen within factsTTL as well: until
// then a speaker whose last turn it deleted still counts as one.
func (s *Store) speakers(ctx context.Context, ns string, names []string) ([]string, error) {
	f, err := s.facts(ctx, ns)
	if err != nil {
		return nil, err
	}
	return namedSpeakers(f.speakers, names), nil
}

// CountMemories is how many memories namespace ns holds: the hits of
// the request that reads its speakers, kept as they are (see speakers),
// so that a recall that names no k takes one from its history's size
// (memory.AutoK) for one request now and then.
func (s *Store) CountMemories(ctx context.Context, ns string) (int, error) {
	f, err := s.facts(ctx, ns)
	return f.memories, err
}

// facts returns ns's facts, from the cache or read (fetchFacts).
func (s *Store) facts(ctx context.Context, ns string) (nsFacts, error) {
	f, gen, ok := s.known.get(ns, time.Now())
	if !ok {
		var err error
		if f, err = s.fetchFacts(ctx, ns); err != nil {
			return nsFacts{}, err
		}
		s.known.put(ns, f, gen, time.Now())
	}
	return f, nil
}

// fetchFacts reads the speakers of namespace ns, a facet of its speakers
// (speakersRequest), and how many memories it holds, that request's hits,
// consistent with this Store's writes.
func (s *Store) fetchFacts(ctx context.Context, ns string) (nsFacts, error) {
	r, err := speakersRequest(ns)
	if err != nil {
		return nsFacts{}, err
	}
	failed := func(err error) (nsFacts, error) {
		return nsFacts{}, wrap(err, s.cfg, "reading the speakers of namespace %s from index %s", ns, s.cfg.Index)
	}
	res, err := s.search(ctx, r)
	if err != nil {
		return failed(err)
	}
	defer res.Close()
	for res.Next() {
	}
	if err := res.Err(); err != nil {
		return failed(err)
	}
	if err := s.partial(res); err != nil {
		return nsFacts{}, err
	}
	facets, err := res.Facets()
	if err != nil {
		return failed(err)
	}
	md, err := res.MetaData()
	if err != nil {
		return failed(err)
	}
	f := nsFacts{memories: int(md.Metrics.TotalRows)}
	for _, t := range facets[speakersFacet].Terms {
		f.speakers = append(f.speakers, t.Term)
	}
	return f, nil
}

// namedSpeakers is the speakers among terms that one of names names.
func namedSpeakers(terms, names []string) []string {
	var out []string
	for _, t := range terms {
		if hybrid.SpeakerNamed(t, names) {
			out = append(out, t)
		}
	}
	return out
}

package couchbase

import (
	"context"
	"sync"
	"time"

	"agentmem/memory/hybrid"
)

// speakerTTL is how long a namespace's speakers, once read, serve the
// recalls that name someone, so that such a recall costs one more request
// only now and then. This Store's own writes to a namespace drop its
// entry at once; another process's new speaker is seen within speakerTTL
// (until then its name stays a word of the text's match, as any other
// name's does).
const speakerTTL = 30 * time.Second

// speakerCache holds the speakers of the namespaces recently recalled
// with a name. Every write moves its generation on: a read that began
// before a write (to any namespace) does not store what it read. Entries
// past speakerTTL are swept when the cache grows, so it holds about the
// namespaces recalled with a name in the last speakerTTL.
type speakerCache struct {
	mu   sync.Mutex
	byNS map[string]speakerEntry
	gen  uint64
}

type speakerEntry struct {
	terms []string
	at    time.Time
}

// sweepAt is the size past which put drops expired entries.
const sweepAt = 256

// get returns ns's speakers when they were read less than speakerTTL
// before now, and the generation a read begun now stores them under.
func (c *speakerCache) get(ns string, now time.Time) ([]string, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byNS[ns]
	if ok && now.Sub(e.at) < speakerTTL {
		return e.terms, c.gen, true
	}
	return nil, c.gen, false
}

// put stores ns's speakers, read at generation gen; a write since then
// (drop) makes it a no-op.
func (c *speakerCache) put(ns string, terms []string, gen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.byNS == nil {
		c.byNS = map[string]speakerEntry{}
	}
	if len(c.byNS) >= sweepAt {
		for k, e := range c.byNS {
			if now.Sub(e.at) >= speakerTTL {
				delete(c.byNS, k)
			}
		}
	}
	c.byNS[ns] = speakerEntry{terms, now}
}

// drop forgets the speakers of namespaces nss, written to or deleted from.
func (c *speakerCache) drop(nss ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ns := range nss {
		delete(c.byNS, ns)
	}
	c.gen++
}

// speakers returns the speakers of namespace ns named by one of names
// (hybrid.QueryNames, hybrid.SpeakerNamed), as the embedded store does.
// A namespace's speakers are read with one request (fetchSpeakers) and
// kept for speakerTTL, or until this Store writes to the namespace.
// Another process's deletes are seen within speakerTTL as well: until
// then a speaker whose last turn it deleted still counts as one.
func (s *Store) speakers(ctx context.Context, ns string, names []string) ([]string, error) {
	terms, gen, ok := s.spk.get(ns, time.Now())
	if !ok {
		var err error
		if terms, err = s.fetchSpeakers(ctx, ns); err != nil {
			return nil, err
		}
		s.spk.put(ns, terms, gen, time.Now())
	}
	return namedSpeakers(terms, names), nil
}

// fetchSpeakers reads the speakers of namespace ns: a facet of its
// speakers (speakersRequest), consistent with this Store's writes.
func (s *Store) fetchSpeakers(ctx context.Context, ns string) ([]string, error) {
	r, err := speakersRequest(ns)
	if err != nil {
		return nil, err
	}
	res, err := s.search(ctx, r)
	if err != nil {
		return nil, wrap(err, s.cfg, "reading the speakers of namespace %s from index %s", ns, s.cfg.Index)
	}
	defer res.Close()
	for res.Next() {
	}
	if err := res.Err(); err != nil {
		return nil, wrap(err, s.cfg, "reading the speakers of namespace %s from index %s", ns, s.cfg.Index)
	}
	if err := s.partial(res); err != nil {
		return nil, err
	}
	facets, err := res.Facets()
	if err != nil {
		return nil, wrap(err, s.cfg, "reading the speakers of namespace %s from index %s", ns, s.cfg.Index)
	}
	var terms []string
	for _, t := range facets[speakersFacet].Terms {
		terms = append(terms, t.Term)
	}
	return terms, nil
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

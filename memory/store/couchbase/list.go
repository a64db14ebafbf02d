package couchbase

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/couchbase/gocb/v2"
	"golang.org/x/sync/errgroup"

	"agentmem/memory"
)

// Listing and export read the session manifests (s|<namespace>|<session>)
// by a key range scan, consistent with this Store's own writes, and then
// the memories they list by key: no index is involved, so what a listing
// shows is what a remember committed.

// manifests returns the session manifests of namespace ns ("" for all),
// sorted by namespace and session.
func (s *Store) manifests(ctx context.Context, ns string) ([]sessionDoc, error) {
	prefix := kindSess + sep
	if ns != "" {
		prefix = nsPrefix(kindSess, ns)
	}
	return s.scanManifests(ctx, ns, prefix, false)
}

// SessionIDs returns the ids of ns's sessions (those that hold memories
// or marks of forgotten turns) that start with prefix, in byte order, at
// most limit: a range scan of the manifests whose keys
// start with it, and one of those whose keys are digests of their ids
// (ids too long for a key, or unusual ones: see key), which are few.
func (s *Store) SessionIDs(ctx context.Context, ns, prefix string, limit int) ([]string, error) {
	if limit < 1 {
		return nil, nil
	}
	base := nsPrefix(kindSess, ns)
	// a digested id's key part ("#" and hex) is no id's start: those are
	// read whole, and a name only its digest can key is found only there
	scans := []string{base + "#"}
	switch {
	case prefix == "":
		scans = []string{base}
	case plain(prefix) && !strings.HasPrefix(prefix, "#"):
		scans = append(scans, base+prefix)
	}
	// side by side: each scan visits every vBucket
	found := make([][]sessionDoc, len(scans))
	g, gctx := errgroup.WithContext(ctx)
	for i, kp := range scans {
		g.Go(func() (err error) {
			found[i], err = s.scanManifests(gctx, ns, kp, true)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range slices.Concat(found...) {
		if strings.HasPrefix(d.Session, prefix) && !seen[d.Session] {
			seen[d.Session] = true
			out = append(out, d.Session)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), limit)], nil
}

// scanManifests returns the session manifests of namespace ns ("" for
// all) whose keys start with prefix, sorted by namespace and session;
// with marked, also those that hold only marks of forgotten turns.
func (s *Store) scanManifests(ctx context.Context, ns, prefix string, marked bool) ([]sessionDoc, error) {
	res, err := s.coll.Scan(gocb.NewRangeScanForPrefix(prefix), &gocb.ScanOptions{
		Context: ctx, ConsistentWith: s.written.state(time.Now()),
	})
	if err != nil {
		return nil, wrap(err, s.cfg, "listing the sessions %s* of %s", prefix, s.cfg.keyspace())
	}
	defer res.Close()
	var out []sessionDoc
	for it := res.Next(); it != nil; it = res.Next() {
		var d sessionDoc
		if err := it.Content(&d); err != nil {
			return nil, wrap(err, s.cfg, "decoding session manifest %s", it.ID())
		}
		// a digested namespace part may be shared by no other name, but
		// check: the manifest says whose it is
		if d.Type != typeSession || len(d.IDs) == 0 && (!marked || len(d.Gone) == 0) || ns != "" && d.NS != ns {
			continue
		}
		out = append(out, d)
	}
	if err := res.Err(); err != nil {
		return nil, wrap(err, s.cfg, "listing the sessions %s* of %s", prefix, s.cfg.keyspace())
	}
	slices.SortFunc(out, func(a, b sessionDoc) int {
		return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.Session, b.Session))
	})
	return out, nil
}

// turnOf reads the turn from a memory id (session:turn); -1 when it has none.
func turnOf(id string) int {
	if _, n, ok := memory.ParseMemoryID(id); ok {
		return n
	}
	return -1
}

// firstID is the id of a manifest's first turn.
func firstID(d sessionDoc) string {
	return slices.MinFunc(d.IDs, func(a, b string) int { return cmp.Compare(turnOf(a), turnOf(b)) })
}

func lastID(d sessionDoc) string {
	return slices.MaxFunc(d.IDs, func(a, b string) int { return cmp.Compare(turnOf(a), turnOf(b)) })
}

// summaries turns manifests into session summaries, reading each session's
// first memory for its date and preview, and its last for the date of a
// turn said later (SessionInfo.Last).
func (s *Store) summaries(ctx context.Context, mans []sessionDoc) ([]memory.SessionInfo, error) {
	keys := make([]string, 0, 2*len(mans))
	for _, d := range mans {
		keys = append(keys, memoryKey(d.NS, firstID(d)), memoryKey(d.NS, lastID(d)))
	}
	docs, err := s.memories(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]memory.SessionInfo, len(mans))
	for i, d := range mans {
		out[i] = memory.SessionInfo{Namespace: d.NS, ID: d.Session, Turns: len(d.IDs)}
		if m, ok := docs[keys[2*i]]; ok {
			out[i].Date, out[i].Preview = m.SessionDate, memory.Preview(m.Text)
		}
		if m, ok := docs[keys[2*i+1]]; ok && len(d.IDs) > 1 {
			out[i].Last = m.SessionDate
		}
	}
	return out, nil
}

// Namespaces summarises every namespace.
func (s *Store) Namespaces(ctx context.Context) ([]memory.NamespaceInfo, error) {
	mans, err := s.manifests(ctx, "")
	if err != nil {
		return nil, err
	}
	sums, err := s.summaries(ctx, mans)
	if err != nil {
		return nil, err
	}
	var out []memory.NamespaceInfo
	for _, si := range sums {
		out = memory.AddSessionInfo(out, si)
	}
	return out, nil
}

// Sessions lists one page of a namespace's sessions, newest first.
func (s *Store) Sessions(ctx context.Context, ns string, f memory.SessionFilter) (memory.SessionPage, error) {
	mans, err := s.manifests(ctx, ns)
	if err != nil {
		return memory.SessionPage{}, err
	}
	sums, err := s.summaries(ctx, mans)
	if err != nil {
		return memory.SessionPage{}, err
	}
	return memory.PageSessions(sums, f)
}

// Export hands out every memory of ns ("" for all) in namespace, session
// and turn order, one session at a time.
func (s *Store) Export(ctx context.Context, ns string, vectors bool, fn func(memory.Memory) error) error {
	mans, err := s.manifests(ctx, ns)
	if err != nil {
		return err
	}
	for _, d := range mans {
		keys := make([]string, len(d.IDs))
		for i, id := range d.IDs {
			keys[i] = memoryKey(d.NS, id)
		}
		docs, err := s.memories(ctx, keys)
		if err != nil {
			return err
		}
		ms := make([]memory.Memory, 0, len(docs))
		for _, k := range keys {
			doc, ok := docs[k]
			if !ok || doc.Namespace != d.NS || doc.SessionID != d.Session {
				continue
			}
			m := doc.memory()
			if vectors {
				m.Vectors = doc.Vector
			}
			ms = append(ms, m)
		}
		slices.SortStableFunc(ms, func(a, b memory.Memory) int { return a.Turn - b.Turn })
		for _, m := range ms {
			if err := fn(m); err != nil {
				return err
			}
		}
	}
	return nil
}

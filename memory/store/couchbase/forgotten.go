package couchbase

import (
	"context"
	"fmt"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

// The marks of forgotten turns move with the memories (memory.ForgottenMarks):
// an export reads them from the session manifests (Gone), an import writes
// them there.

var _ memory.ForgottenMarks = (*Store)(nil)

// ExportForgotten hands out the marks of ns ("" for all), one session at
// a time in namespace, session and turn order: from the manifests, read
// by a key range scan as Export reads them, those that hold only marks
// too.
func (s *Store) ExportForgotten(ctx context.Context, ns string, fn func([]memory.Memory) error) error {
	prefix := kindSess + sep
	if ns != "" {
		prefix = nsPrefix(kindSess, ns)
	}
	mans, err := s.scanManifests(ctx, ns, prefix, true)
	if err != nil {
		return err
	}
	for _, d := range mans {
		if len(d.Gone) == 0 {
			continue
		}
		if err := fn(marksOf(d.NS, d.Session, d.Gone)); err != nil {
			return err
		}
	}
	return nil
}

// MarkForgotten stores marks of a session's forgotten turns (an import's)
// in its manifest, in one transaction, each replacing the mark at its
// position; a mark at a position the manifest lists a memory at is left
// out: the memory wins. A session that has no manifest gets one that
// holds only marks, as a forget of its every turn leaves.
func (s *Store) MarkForgotten(ctx context.Context, ns, session string, marks []memory.Memory) error {
	if len(marks) == 0 {
		return nil
	}
	gone := make([]goneTurn, len(marks))
	for i, m := range marks {
		if m.Namespace != ns || m.SessionID != session || m.ID == "" {
			return fmt.Errorf("the mark of turn %d (id %q) is not one of session %s of namespace %s", m.Turn, m.ID, session, ns)
		}
		gone[i] = goneTurn{ID: m.ID, Turn: m.Turn, Key: m.Key, Hash: m.Hash}
	}
	key := sessionKey(ns, session)
	res, err := s.cluster.Transactions().Run(func(tc *gocb.TransactionAttemptContext) error {
		old, cur, err := txGet[sessionDoc](tc, s.coll, key, "session manifest")
		switch {
		case err != nil:
			return err
		case old == nil:
			return s.txInsert(tc, key, sessionDoc{Type: typeSession, NS: ns, Session: session, IDs: []string{}}.marked(gone))
		}
		return txReplace(tc, old, cur.marked(gone))
	}, &gocb.TransactionOptions{Timeout: s.txTimeout(ctx)})
	if err != nil {
		return s.whyFailed(ctx, err, key, "marking %d turns of session %s of namespace %s forgotten", len(marks), session, ns)
	}
	s.touch(ctx, res, []string{key})
	return nil
}

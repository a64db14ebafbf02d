package couchbase

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

// Session returns the memories of one session in turn order. It reads the
// session's manifest and then its memories by key: key-value reads, which
// see every committed remember at once, where an index may lag.
func (s *Store) Session(ctx context.Context, namespace, sessionID string) ([]memory.Memory, error) {
	man, err := s.manifest(ctx, sessionKey(namespace, sessionID))
	if err != nil || man == nil {
		return nil, err
	}
	keys := make([]string, len(man.IDs))
	for i, id := range man.IDs {
		keys[i] = memoryKey(namespace, id)
	}
	out, err := s.sessionMemories(ctx, namespace, sessionID, keys)
	slices.SortStableFunc(out, func(a, b memory.Memory) int { return a.Turn - b.Turn })
	return out, err
}

var _ memory.ForgottenTurns = (*Store)(nil)

// ForgottenTurns returns the marks of a session's turns forgotten by their
// ids or with it, in turn order, from its manifest.
func (s *Store) ForgottenTurns(ctx context.Context, namespace, sessionID string) ([]memory.Memory, error) {
	man, err := s.manifest(ctx, sessionKey(namespace, sessionID))
	if err != nil || man == nil {
		return nil, err
	}
	return marksOf(namespace, sessionID, man.Gone), nil
}

// marksOf is the marks gone of a session's manifest, in turn order.
func marksOf(namespace, sessionID string, gone []goneTurn) []memory.Memory {
	out := make([]memory.Memory, len(gone))
	for i, g := range gone {
		out[i] = memory.Memory{ID: g.ID, Namespace: namespace, SessionID: sessionID, Turn: g.Turn, Key: g.Key, Hash: g.Hash}
	}
	slices.SortStableFunc(out, func(a, b memory.Memory) int { return a.Turn - b.Turn })
	return out
}

// Turns returns the memories of turns from..to of one session, in order:
// key-value reads of the turns' keys, which memory.MemoryID names.
func (s *Store) Turns(ctx context.Context, namespace, sessionID string, from, to int) ([]memory.Memory, error) {
	from = max(from, 0)
	if to < from {
		return nil, nil
	}
	if to-from > maxTurnRange {
		// a wide window: the manifest says which turns exist
		ms, err := s.Session(ctx, namespace, sessionID)
		if err != nil {
			return nil, err
		}
		return slices.DeleteFunc(ms, func(m memory.Memory) bool { return m.Turn < from || m.Turn > to }), nil
	}
	keys := make([]string, 0, to-from+1)
	for t := from; t <= to; t++ {
		keys = append(keys, memoryKey(namespace, memory.MemoryID(sessionID, t)))
	}
	return s.sessionMemories(ctx, namespace, sessionID, keys)
}

// sessionMemories reads the memories of keys, in their order, that are
// there and belong to the session.
func (s *Store) sessionMemories(ctx context.Context, namespace, sessionID string, keys []string) ([]memory.Memory, error) {
	docs, err := s.memories(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Memory, 0, len(docs))
	for _, k := range keys {
		if d, ok := docs[k]; ok && d.Namespace == namespace && d.SessionID == sessionID {
			out = append(out, d.memory())
		}
	}
	return out, nil
}

// maxTurnRange is the widest window Turns reads by key.
const maxTurnRange = 256

// manifest reads a session manifest; nil when the session has none.
func (s *Store) manifest(ctx context.Context, key string) (*sessionDoc, error) {
	res, err := s.coll.Get(key, &gocb.GetOptions{Context: ctx})
	if errors.Is(err, gocb.ErrDocumentNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(err, s.cfg, "reading session manifest %s", key)
	}
	var man sessionDoc
	if err := res.Content(&man); err != nil {
		return nil, fmt.Errorf("decoding session manifest %s: %w", key, err)
	}
	return &man, nil
}

// memories reads memory documents by key in one pipelined batch. Keys with
// no document (deleted since they were listed or indexed) are left out.
func (s *Store) memories(ctx context.Context, keys []string) (map[string]memoryDoc, error) {
	out := make(map[string]memoryDoc, len(keys))
	for chunk := range slices.Chunk(keys, 256) {
		ops := make([]gocb.BulkOp, len(chunk))
		gets := make([]*gocb.GetOp, len(chunk))
		for i, k := range chunk {
			gets[i] = &gocb.GetOp{ID: k}
			ops[i] = gets[i]
		}
		if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
			return nil, wrap(err, s.cfg, "reading %d memories from %s", len(chunk), s.cfg.keyspace())
		}
		for _, g := range gets {
			if errors.Is(g.Err, gocb.ErrDocumentNotFound) {
				continue
			}
			if g.Err != nil {
				return nil, wrap(g.Err, s.cfg, "reading memory %s", g.ID)
			}
			var d memoryDoc
			if err := g.Result.Content(&d); err != nil {
				return nil, fmt.Errorf("decoding memory %s: %w", g.ID, err)
			}
			out[g.ID] = d
		}
	}
	return out, nil
}

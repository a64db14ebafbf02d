package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// ForgetRequest deletes memories of one namespace: by ids, by session, or
// all of them (which needs Confirm, so that no stray call empties a memory).
// Turns forgotten by ids or with their session stay forgotten: a resend of
// their session skips them (ForgottenTurns); Reimport, with a session,
// lets a later capture or import store them again (to refresh an imported
// conversation). All starts the namespace over: nothing of it is kept.
type ForgetRequest struct {
	Namespace string
	IDs       []string
	SessionID string
	All       bool
	Confirm   bool
	Reimport  bool
}

// ForgetResult says what was deleted.
type ForgetResult struct {
	Namespace string `json:"namespace"`
	// SessionID is the session deleted, when the request named one that
	// held memories: its whole id, also when it was named by its start.
	SessionID string `json:"session_id,omitempty"`
	Deleted   int    `json:"deleted"`
	// Unknown is the ids of the request that named no memory of the
	// namespace (a typo, a memory forgotten before), in their order.
	Unknown []string `json:"unknown,omitempty"`
	// Before is those of Unknown whose turn is marked forgotten (a
	// memory forgotten before, where the store keeps marks), in their
	// order.
	Before []string `json:"before,omitempty"`
	// Note says what the forget could not do after it deleted (the
	// vectors of a turn after a forgotten one not made again).
	Note string `json:"note,omitempty"`
}

// Forget deletes what req selects. Exactly one of IDs, SessionID and All
// must be given.
func (s *Service) Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error) {
	ns, err := s.ns(ctx, req.Namespace, true)
	if err != nil {
		return ForgetResult{}, err
	}
	if err := checkForget(ns, req); err != nil {
		return ForgetResult{}, err
	}
	if req.SessionID != "" {
		if req.SessionID, err = s.sessionArg(ctx, ns, "session_id", req.SessionID); err != nil {
			return ForgetResult{}, err
		}
	}
	ids, err := s.resolveIDs(ctx, ns, req.IDs)
	if err != nil {
		return ForgetResult{}, err
	}
	// a remember of the same sessions ends first, or starts after: its
	// new turn is then the one re-embedded (reembedAfter), or is embedded
	// without the forgotten turn
	sessions := sessionsOf(ids, func(id string) string { session, _, _ := ParseMemoryID(id); return session })
	if req.SessionID != "" {
		sessions = []string{req.SessionID}
	}
	defer s.lockSessions(ns, sessions)()
	unknown, err := s.unknownIDs(ctx, ns, ids, req.IDs)
	if err != nil {
		return ForgetResult{}, err
	}
	n, err := s.store.Delete(ctx, Selector{Namespace: ns, IDs: ids, SessionID: req.SessionID, All: req.All, Reimport: req.Reimport})
	if err != nil {
		return ForgetResult{}, fmt.Errorf("deleting from namespace %s: %w", ns, err)
	}
	res := ForgetResult{Namespace: ns, Deleted: n, Unknown: unknown}
	resolved := make(map[string]string, len(ids)) // a given id's whole form
	for i, id := range ids {
		resolved[req.IDs[i]] = id
	}
	if res.Before, err = s.forgottenBefore(ctx, ns, unknown, resolved); err != nil {
		return ForgetResult{}, err
	}
	if n > 0 {
		res.SessionID = req.SessionID // "" unless a session was named
	}
	if n > 0 && len(ids) > 0 {
		if err := s.reembedAfter(ctx, ns, ids); err != nil {
			s.log.Warn("making the vectors of the turns after forgotten ones again", "namespace", ns, "err", err)
			res.Note = fmt.Sprintf("The turn after a forgotten one keeps vectors made with its last words until agentmem reindex: making them again failed (%v).", err)
		}
	}
	return res, nil
}

// checkForget checks what req asks of namespace ns: exactly one of ids,
// session_id and all, the ids' limits, reimport with a session or all,
// and all confirmed.
func checkForget(ns string, req ForgetRequest) error {
	chosen := 0
	for _, set := range []bool{len(req.IDs) > 0, req.SessionID != "", req.All} {
		if set {
			chosen++
		}
	}
	if chosen != 1 {
		return &FieldError{"ids", "give exactly one of ids, session_id or all"}
	}
	if len(req.IDs) > MaxIDs {
		return &FieldError{"ids", fmt.Sprintf("holds %d ids; the limit is %d", len(req.IDs), MaxIDs)}
	}
	for i, id := range req.IDs {
		if id == "" {
			return &FieldError{fmt.Sprintf("ids[%d]", i), "must not be empty"}
		}
	}
	if req.Reimport && len(req.IDs) > 0 {
		return &FieldError{"reimport", "goes with session_id or all: a turn forgotten by its id stays forgotten (forget its session with reimport to let a capture or an import store it again)"}
	}
	if req.All && !req.Confirm {
		return &FieldError{"confirm", fmt.Sprintf("must be true to delete every memory of namespace %q", ns)}
	}
	return nil
}

// reembedAfter makes again the vectors of the first stored turn after
// each turn forgotten by its id (ids): a contextual embedder led that
// turn's text with the forgotten turn's last words (PrevWords), which a
// search must no longer find. A turn whose vectors are still to be made
// gets them from the turns still stored, as every background vector does
// (the filler checks, once it has stored them, that the turn it embedded
// them after is still there: afterForgotten).
func (s *Service) reembedAfter(ctx context.Context, ns string, ids []string) error {
	up, ok := s.store.(VectorUpgrader)
	if !ok || s.embedder == nil || prevWords(s.embedder) == 0 {
		return nil
	}
	var next []Memory
	for _, id := range ids {
		session, turn, ok := ParseMemoryID(id)
		if !ok {
			continue
		}
		m, err := s.nextStored(ctx, ns, session, turn)
		if err != nil {
			return err
		}
		// one still waiting for its vectors gets them from the turns
		// stored then (the filler: afterForgotten)
		if m != nil && m.Embedder != "" && !slices.ContainsFunc(next, func(n Memory) bool { return n.ID == m.ID }) {
			next = append(next, *m)
		}
	}
	if len(next) == 0 {
		return nil
	}
	return revectorize(ctx, s.store, up, s.embedder, next)
}

// resolveIDs is ids with the session each names resolved as a session_id
// argument is: a memory of a session whose id is a UUID may be named by
// the start a recall shows ("01680260:2"). Ids of another form are kept
// as they are.
func (s *Service) resolveIDs(ctx context.Context, ns string, ids []string) ([]string, error) {
	var out []string
	for i, id := range ids {
		session, turn, ok := ParseMemoryID(id)
		if ok && shortForm(session) {
			whole, err := s.resolveSession(ctx, ns, session)
			var fe *FieldError
			if errors.As(err, &fe) {
				return nil, &FieldError{fmt.Sprintf("ids[%d]", i), fe.Msg}
			} else if err != nil {
				return nil, err
			}
			if whole != session {
				if out == nil {
					out = slices.Clone(ids)
				}
				out[i] = MemoryID(whole, turn)
			}
		}
	}
	if out == nil {
		return ids, nil
	}
	return out, nil
}

// unknownIDs is those of given, the ids of a request, that name no memory
// of namespace ns, ids[i] being given[i] resolved (resolveIDs): a memory's
// id is its session's id, ":" and its turn, looked up as that turn.
func (s *Service) unknownIDs(ctx context.Context, ns string, ids, given []string) ([]string, error) {
	var unknown []string
	for i, id := range ids {
		session, turn, ok := ParseMemoryID(id)
		if !ok {
			unknown = append(unknown, given[i])
			continue
		}
		ts, err := s.store.Turns(ctx, ns, session, turn, turn)
		if err != nil {
			return nil, fmt.Errorf("looking up memory %s: %w", given[i], err)
		}
		if !slices.ContainsFunc(ts, func(m Memory) bool { return m.ID == id }) {
			unknown = append(unknown, given[i])
		}
	}
	return unknown, nil
}

// forgottenBefore is those of ids (that named no memory, as given) whose
// turn is marked forgotten in namespace ns; resolved gives an id's whole
// form where it was given by its session's start ("bf28b8c3:2").
func (s *Service) forgottenBefore(ctx context.Context, ns string, ids []string, resolved map[string]string) ([]string, error) {
	ft, ok := s.store.(ForgottenTurns)
	if !ok {
		return nil, nil
	}
	var before []string
	bySession := map[string][]Memory{} // each session's marks, read once
	for _, id := range ids {
		session, turn, ok := ParseMemoryID(cmp.Or(resolved[id], id))
		if !ok {
			continue
		}
		marks, read := bySession[session]
		if !read {
			var err error
			if marks, err = ft.ForgottenTurns(ctx, ns, session); err != nil {
				return nil, fmt.Errorf("looking up the marks of session %s: %w", session, err)
			}
			bySession[session] = marks
		}
		if slices.ContainsFunc(marks, func(m Memory) bool { return m.Turn == turn }) {
			before = append(before, id)
		}
	}
	return before, nil
}

// nextStored is the first stored turn of the session after turn, however
// far (remember leads a turn with the last stored one before it), or nil:
// read in windows that grow eightfold, so that a run of forgotten turns
// costs a few reads and a dense session one.
func (s *Service) nextStored(ctx context.Context, ns, session string, turn int) (*Memory, error) {
	for from, width := turn+1, 8; from <= MaxTurn; from, width = from+width, width*8 {
		ts, err := s.store.Turns(ctx, ns, session, from, min(from+width-1, MaxTurn))
		if err != nil || len(ts) > 0 {
			if len(ts) > 0 {
				return &ts[0], err
			}
			return nil, err
		}
	}
	return nil, nil
}

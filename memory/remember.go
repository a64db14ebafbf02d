package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"agentmem/memory/embedder"
	"unicode/utf8"
)

// Message is one conversation turn as a client sends it.
type Message struct {
	Role      string
	Content   string
	Speaker   string
	Timestamp string
	// Key is the client's own id of the turn, if it has one: a message
	// whose key the session already holds is a resend, whatever its text.
	Key string
}

// RememberRequest stores the turns of one session.
type RememberRequest struct {
	Messages []Message
	// SessionID "" derives an id from the session's content and date, so the
	// same session sent twice is stored once, and the same words on another
	// day are another session.
	SessionID   string
	SessionDate string // "" means the session's existing date, else now
	Namespace   string // "" means the service default
	// Turn, when set, is the position in the session of the first message
	// (0 for the session's first turn): messages at positions the session
	// holds are resends (their content must match), the rest are appended.
	// Without it, newTurns tells resends from new turns.
	Turn *int
	// VectorsLater stores the turns without waiting for any of their
	// vectors, which are made in the background, in batches (with a store
	// that can hold memories before their vectors, else it is ignored):
	// for a history stored in bulk, searchable by its text first.
	// RecallResult.Pending counts the memories still waiting.
	VectorsLater bool
}

// RememberResult says what a remember call stored.
type RememberResult struct {
	Namespace   string
	SessionID   string
	SessionDate time.Time
	// Stored counts the turns stored by this call; Skipped the turns the
	// session already held (a session sent twice is stored once);
	// Forgotten the turns it held until they were forgotten (by their ids
	// or with their session), which are not stored again (ForgottenTurns).
	Stored    int
	Skipped   int
	Forgotten int
	// IDs is the memory id of every message of the call, in order: new for
	// those stored now, the existing one for those already held, the one
	// it had for a turn forgotten (no memory has it now).
	IDs []string
}

// Remember stores messages verbatim, one memory per turn, each carrying its
// session date so that "yesterday" in the text can be resolved later. It is
// idempotent and all-or-nothing: a session sent again stores nothing twice,
// a call that sends only the new turns appends them in order, and a call
// with any invalid message stores nothing. How a resend is told from new
// turns is newTurns'.
func (s *Service) Remember(ctx context.Context, req RememberRequest) (RememberResult, error) {
	ns, sessionID, turns, given, err := s.rememberTarget(ctx, req)
	if err != nil {
		return RememberResult{}, err
	}

	mu := s.sessionLock(ns, sessionID)
	mu.Lock()
	defer mu.Unlock()

	first, existing, byKey, err := s.sessionEnds(ctx, ns, sessionID, turns)
	if err != nil {
		return RememberResult{}, fmt.Errorf("reading session %s: %w", sessionID, err)
	}
	// the session as it was: what it holds, and the turns forgotten from it
	seen, forgot, err := s.sessionAsItWas(ctx, ns, sessionID, existing, byKey)
	if err != nil {
		return RememberResult{}, fmt.Errorf("reading session %s: %w", sessionID, err)
	}
	date, prev := s.sessionDates(given, first, existing)
	next := nextTurn(seen)
	var held []string
	if req.Turn != nil {
		if held, err = s.byPosition(ctx, ns, sessionID, *req.Turn, seen, turns, forgot); err != nil {
			return RememberResult{}, err
		}
	} else {
		held = newTurns(existing, seen, turns, byKey, forgot)
	}
	res := RememberResult{Namespace: ns, SessionID: sessionID, SessionDate: date, IDs: make([]string, len(turns))}
	ms, prev := s.newMemories(&res, turns, held, forgot, next, date, prev)
	if len(ms) == 0 {
		if !given.IsZero() && prev.Format(time.DateOnly) > given.Format(time.DateOnly) {
			res.SessionDate = prev // a resend: not a date before the session's last turn's day
		}
		return res, nil
	}
	// the date the call's turns are stored under: a session's days never
	// go back, so a date given before its last turn's day is not theirs
	res.SessionDate = ms[0].SessionDate
	if last := ms[len(ms)-1].Turn; last > MaxTurn {
		return RememberResult{}, &FieldError{"messages", fmt.Sprintf("session %s is full: its turns would reach %d; the limit is %d (start a new session_id)", sessionID, last, MaxTurn)}
	}
	if err := s.put(ctx, ms, existing, req.VectorsLater); err != nil {
		return RememberResult{}, fmt.Errorf("storing session %s: %w", sessionID, err)
	}
	res.Stored = len(ms)
	return res, nil
}

// rememberTarget reads req for Remember: the namespace it stores in, its
// session (the session a UUID's start names, when it gives one), its
// turns, and the session date it gives (zero: none).
func (s *Service) rememberTarget(ctx context.Context, req RememberRequest) (ns, sessionID string, turns []turn, given time.Time, err error) {
	ns, err = s.ns(ctx, req.Namespace, true)
	if err == nil {
		err = newName("namespace", ns, maxNamespace)
	}
	if err != nil {
		return "", "", nil, time.Time{}, err
	}
	turns, err = s.readMessages(req.Messages)
	if err != nil {
		return "", "", nil, time.Time{}, err
	}
	given, sessionID, err = s.sessionOf(req, turns)
	if err == nil && req.SessionID != "" {
		// the start of a UUID a recall showed adds to that session, as
		// every argument naming a session takes it; an id no session has
		// starts one
		sessionID, err = s.resolveSession(ctx, ns, sessionID) // newName checked it
	}
	if err != nil {
		return "", "", nil, time.Time{}, err
	}
	return ns, sessionID, turns, given, nil
}

// newMemories makes the memories of res's session of the turns held does
// not name (those it names are stored already: their ids go to res.IDs,
// counted in res.Skipped), numbered from next, each dated by its
// timestamp, the session's date and prev (the date of the turn before
// it); it returns them and the date of the session's last turn.
func (s *Service) newMemories(res *RememberResult, turns []turn, held []string, forgot map[string]bool, next int, date, prev time.Time) ([]Memory, time.Time) {
	ns, sessionID := res.Namespace, res.SessionID
	created := s.now().UTC()
	var ms []Memory
	for i, t := range turns {
		if held[i] != "" {
			res.IDs[i] = held[i]
			if forgot[held[i]] {
				res.Forgotten++
			} else {
				res.Skipped++
			}
			continue
		}
		m := Memory{
			ID:          MemoryID(sessionID, next),
			Namespace:   ns,
			SessionID:   sessionID,
			SessionDate: s.turnDate(date, prev, t.Timestamp),
			Turn:        next,
			Role:        t.Role,
			Speaker:     t.Speaker,
			Text:        t.Text,
			Timestamp:   t.Timestamp,
			Key:         t.Key,
			Hash:        t.Hash,
			Created:     created,
		}
		next++
		prev = m.SessionDate
		res.IDs[i] = m.ID
		ms = append(ms, m)
	}
	return ms, prev
}

// byPosition says which incoming turns, the first at position at of the
// session, the session already holds: a turn at a position below the
// session's next (after its last turn, seen with its forgotten ones) is a
// resend, and must match what the session holds there, or held until it
// was forgotten (a forgotten turn is not stored again, and is noted in
// forgot; a position the store keeps no mark of is taken as forgotten),
// and the others are new. A position past the next would leave a gap: an
// error.
func (s *Service) byPosition(ctx context.Context, ns, sessionID string, at int, seen []Memory, incoming []turn, forgot map[string]bool) ([]string, error) {
	next := nextTurn(seen)
	if err := positionAllowed(sessionID, at, next, seen, forgot); err != nil {
		return nil, err
	}
	held := make([]string, len(incoming))
	last := min(at+len(incoming), next) - 1
	if last < at {
		return held, nil
	}
	have, err := s.store.Turns(ctx, ns, sessionID, at, last)
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", sessionID, err)
	}
	byTurn := make(map[int]Memory, len(have))
	for _, m := range seen { // the marks, and turns read live before
		byTurn[m.Turn] = m
	}
	for _, m := range have {
		byTurn[m.Turn] = m
	}
	for i := range incoming[:last-at+1] {
		m, ok := byTurn[at+i]
		switch {
		case !ok:
			held[i] = MemoryID(sessionID, at+i) // forgotten, no mark kept: not stored again
			forgot[held[i]] = true
		case m.Hash != incoming[i].Hash && forgot[m.ID]:
			return nil, &FieldError{fmt.Sprintf("messages[%d]", i), fmt.Sprintf("is turn %d of session %s, which held another message there until it was forgotten: a resend must be the same message; to append, start at turn %d", at+i, sessionID, next)}
		case m.Hash != incoming[i].Hash:
			return nil, &FieldError{fmt.Sprintf("messages[%d]", i), fmt.Sprintf("is turn %d of session %s, which holds another message there (%s: %q): a resend must be the same message; to append, start at turn %d", at+i, sessionID, m.Role, Preview(m.Text), next)}
		default:
			held[i] = m.ID
		}
	}
	return held, nil
}

// positionAllowed checks a call's first position at against the session's
// next (seen: what it holds and its forgotten turns, whose ids forgot
// holds): from 0 to MaxTurn, and no gap after the session's last turn.
func positionAllowed(sessionID string, at, next int, seen []Memory, forgot map[string]bool) error {
	switch {
	case at < 0 || at > MaxTurn:
		return &FieldError{"turn", fmt.Sprintf("must be from 0 to %d, got %d", MaxTurn, at)}
	case at > next && next == 0:
		return &FieldError{"turn", fmt.Sprintf("is %d, but session %s holds no turns yet: its first is turn 0", at, sessionID)}
	case at > next && forgot[seen[len(seen)-1].ID]:
		return &FieldError{"turn", fmt.Sprintf("is %d, but session %s's turns went up to %d, the last forgotten since: the next one is turn %d", at, sessionID, next-1, next)}
	case at > next:
		return &FieldError{"turn", fmt.Sprintf("is %d, but session %s holds turns up to %d: the next one is turn %d", at, sessionID, next-1, next)}
	}
	return nil
}

// sessionEnds reads what Remember needs of a session: its first memory
// (for its date) and the memories newTurns compares the incoming turns
// with, the last of which numbers the next turn. Turns without client ids
// are compared with the session's tail only, which a store implementing
// SessionEnds reads without reading the session whole; client ids may be
// anywhere in the session: a store implementing KeyFinder finds them, and
// any other store's session is read whole.
func (s *Service) sessionEnds(ctx context.Context, ns, sessionID string, turns []turn) (first *Memory, have []Memory, byKey map[string]string, err error) {
	var keys []string
	for _, t := range turns {
		if t.Key != "" {
			keys = append(keys, t.Key)
		}
	}
	se, ends := s.store.(SessionEnds)
	kf, finds := s.store.(KeyFinder)
	if ends && (len(keys) == 0 || finds) {
		if first, have, err = se.SessionEnds(ctx, ns, sessionID, len(turns)); err != nil || first == nil || len(keys) == 0 {
			return first, have, nil, err
		}
		byKey, err = kf.FindKeys(ctx, ns, sessionID, keys)
		return first, have, byKey, err
	}
	all, err := s.store.Session(ctx, ns, sessionID)
	if err != nil || len(all) == 0 {
		return nil, nil, nil, err
	}
	return &all[0], all, nil, nil
}

func (s *Service) embed(ctx context.Context, ms, existing []Memory) error {
	if s.embedder == nil {
		return nil
	}
	return vectorize(ctx, s.embedder, ms, previousTurns(ms, existing))
}

// previousTurns returns the turn before each memory of ms in its session
// (one session): in ms itself, or the last of existing before it.
func previousTurns(ms, existing []Memory) []*Memory {
	all := append(slices.Clone(existing), ms...)
	slices.SortStableFunc(all, func(a, b Memory) int { return a.Turn - b.Turn })
	all = slices.CompactFunc(all, func(a, b Memory) bool { return a.ID == b.ID })
	byID := make(map[string]*Memory, len(all))
	for i := 1; i < len(all); i++ {
		byID[all[i].ID] = &all[i-1]
	}
	out := make([]*Memory, len(ms))
	for i, m := range ms {
		out[i] = byID[m.ID]
	}
	return out
}

// vectorize sets the vectors of ms, embedded by e from their text under
// e's recipe (embedInput, then addSentenceWindows); prev, when not nil,
// holds the turn before each memory of ms.
func vectorize(ctx context.Context, e Embedder, ms []Memory, prev []*Memory) error {
	texts := make([]string, len(ms))
	for i, m := range ms {
		var p *Memory
		if prev != nil {
			p = prev[i]
		}
		texts[i] = embedInput(e, m, p)
	}
	vecs, err := embedder.EmbedDocuments(ctx, e, texts)
	if err != nil {
		return fmt.Errorf("embedding %d turns with %s: %w", len(texts), e.ID(), err)
	}
	if len(vecs) != len(ms) {
		return fmt.Errorf("embedder %s returned %d results for %d texts", e.ID(), len(vecs), len(ms))
	}
	for i := range ms {
		ms[i].Vectors = vecs[i]
		ms[i].Embedder = e.ID()
	}
	return addSentenceWindows(ctx, e, ms)
}

// EmbedText is what a memory's vector is made from: the raw text, led by
// the speaker's name when there is one, so that "What did Caroline say
// about…" lands near Caroline's turns. On LoCoMo this lifted vector-only
// recall_all@10 from 20% to 33%, and hybrid from 45% to 54%.
func (m Memory) EmbedText() string {
	if m.Speaker == "" {
		return m.Text
	}
	return m.Speaker + ": " + m.Text
}

// turn is a validated message.
type turn struct {
	Role, Speaker, Text string
	Timestamp           *time.Time
	Key                 string
	Hash                string
}

func (s *Service) readMessages(msgs []Message) ([]turn, error) {
	if len(msgs) == 0 {
		return nil, &FieldError{"messages", "must hold at least one message"}
	}
	if len(msgs) > MaxMessages {
		return nil, &FieldError{"messages", fmt.Sprintf("holds %d messages; the limit is %d per call (send a long session in several calls with the same session_id)", len(msgs), MaxMessages)}
	}
	total := 0
	keys := map[string]int{}
	turns := make([]turn, len(msgs))
	for i, m := range msgs {
		field := fmt.Sprintf("messages[%d]", i)
		role := strings.ToLower(strings.TrimSpace(m.Role))
		if !slices.Contains(Roles, role) {
			return nil, &FieldError{field + ".role", fmt.Sprintf("must be one of %v, got %q", Roles, m.Role)}
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, &FieldError{field + ".content", "must not be empty"}
		}
		if !utf8.ValidString(m.Content) {
			return nil, &FieldError{field + ".content", "is not valid UTF-8"}
		}
		if n := utf8.RuneCountInString(m.Content); n > MaxContentChars {
			return nil, &FieldError{field + ".content", fmt.Sprintf("is %d characters; the limit is %d", n, MaxContentChars)}
		}
		total += len(m.Content)
		if total > MaxCallBytes {
			return nil, &FieldError{"messages", fmt.Sprintf("content adds up to more than %d bytes (%d MiB) in one call; send the session in several calls with the same session_id", MaxCallBytes, MaxCallBytes>>20)}
		}
		speaker := strings.TrimSpace(m.Speaker)
		if n := utf8.RuneCountInString(speaker); n > maxSpeaker {
			return nil, &FieldError{field + ".speaker", fmt.Sprintf("is %d characters; the limit is %d", n, maxSpeaker)}
		}
		if err := plainField(field+".speaker", speaker); err != nil {
			return nil, err
		}
		if err := CheckMessageID(field+".id", m.Key); err != nil {
			return nil, err
		}
		if m.Key != "" {
			if j, dup := keys[m.Key]; dup {
				return nil, &FieldError{field + ".id", fmt.Sprintf("%q is also the id of messages[%d]", m.Key, j)}
			}
			keys[m.Key] = i
		}
		var ts *time.Time
		if m.Timestamp != "" {
			t, _, err := s.parseDate(field+".timestamp", m.Timestamp)
			if err != nil {
				return nil, err
			}
			ts = &t
		}
		turns[i] = turn{
			Role: role, Speaker: speaker, Text: m.Content, Timestamp: ts, Key: m.Key,
			Hash: turnHash(role, speaker, m.Content, ts),
		}
	}
	return turns, nil
}

// newTurns says which incoming turns the session already holds: held[i] is
// the memory id of incoming turn i when it is a resend, "" when it is new.
// have is the session, or at least its last len(incoming) turns; byKey
// maps the client keys of the session that incoming carries to their
// memories (nil: found in have).
//
// A turn with a client key is a resend exactly when the session holds that
// key. For the others, content decides, and only against the session's
// tail: the longest tail of the session that the incoming turns start with
// is a resend (a call sent again, or a client re-sending the last exchange,
// or the whole session, with the new turns), and what follows it is new.
// Everything else is new, however often its text occurs earlier in the
// session: "yes" after "Deleting file A now." is a new consent, and so is
// a repeated exchange. The one case content cannot tell is a turn that
// repeats the session's last turn ("yes", "yes") sent without a key: it is
// taken for a resend, so a client that may repeat itself sends ids.
//
// seen is have with the session's forgotten turns (withForgotten), whose
// ids forgot holds: a resend meets them where they were. And forgotten
// words stay forgotten in their session: a turn without a key that says
// what a forgotten turn said, wherever it comes, is that turn
// (forgottenByContent), as is a turn whose key the session does not know
// that says what a forgotten turn sent without a key said (the same
// conversation sent again with ids).
func newTurns(have, seen []Memory, incoming []turn, byKey map[string]string, forgot map[string]bool) []string {
	held := make([]string, len(incoming))
	if byKey == nil {
		byKey = map[string]string{}
		for _, m := range seen {
			if m.Key != "" {
				byKey[m.Key] = m.ID
			}
		}
	}
	// keyed turns are settled by their key; the unkeyed runs between them
	// by content
	var run []int
	settle := func() {
		if len(run) > 0 {
			byContent(have, seen, incoming, run, held)
			run = run[:0]
		}
	}
	for i, t := range incoming {
		if t.Key != "" {
			settle()
			held[i] = byKey[t.Key]
			continue
		}
		run = append(run, i)
	}
	settle()
	forgottenByContent(seen, incoming, held, forgot)
	return held
}

// derivedSessionID names a session the client did not name, from its
// content and its day: sending the same session twice without an id still
// stores it once, and the same words said on another day are another
// session.
func derivedSessionID(turns []turn, day time.Time) string {
	h := sha256.New()
	h.Write([]byte(day.Format("2006-01-02")))
	for _, t := range turns {
		h.Write([]byte(t.Hash))
	}
	return "s-" + hex.EncodeToString(h.Sum(nil)[:6])
}

// sessionOf reads the call's session date (zero when none is given, in
// the server's zone when written in UTC: local) and names its session:
// the id given, or one derived from the turns and the session's day.
func (s *Service) sessionOf(req RememberRequest, turns []turn) (given time.Time, id string, err error) {
	if req.SessionDate != "" {
		if given, _, err = s.parseDate("session_date", req.SessionDate); err != nil {
			return given, "", err
		}
		given = s.local(given)
	}
	if id = req.SessionID; id != "" {
		return given, id, newName("session_id", id, maxSessionID)
	}
	day := given
	if day.IsZero() {
		day = s.Now()
	}
	return given, derivedSessionID(turns, day), nil
}

// sessionDates is the date a call stores its session under (the date
// given, or the session's stored one, or today) and prev, the date of the
// turn before the call's first (turnDate): a session's days never go
// back. A date given that is the instant the session is stored under
// keeps the stored one, in its zone: a session stored with its date in
// UTC by an earlier version keeps its day.
func (s *Service) sessionDates(given time.Time, first *Memory, existing []Memory) (date, prev time.Time) {
	switch {
	case !given.IsZero() && first != nil && given.Equal(first.SessionDate):
		date = first.SessionDate
	case !given.IsZero():
		date = given
	case first != nil:
		date = first.SessionDate
	default:
		date = s.Now()
	}
	prev = date
	if n := len(existing); n > 0 && existing[n-1].SessionDate.After(prev) {
		prev = existing[n-1].SessionDate
	}
	return date, prev
}

// turnDate is the date a turn is stored under, in a session dated session
// whose turn before it is dated prev: its own timestamp when that falls
// on a later day than the session's, as in a session resumed days later
// (Claude Code's --resume), else prev. Its header then shows the day it
// was said, its relative dates are resolved against that day ("yesterday"
// in a turn of 3 December is 2 December), and a recall bounded by dates
// finds it by that day. A turn without a timestamp takes prev, and so does
// one whose timestamp is a day before prev's: a session's days never go
// back. Each day is read where its date was written (a UTC time in the
// server's zone: local).
func (s *Service) turnDate(session, prev time.Time, ts *time.Time) time.Time {
	if ts == nil {
		return prev
	}
	t := s.local(*ts)
	if day := t.Format(time.DateOnly); day > session.Format(time.DateOnly) && day >= prev.Format(time.DateOnly) {
		return t
	}
	return prev
}

// local is t in the server's zone when it was written in UTC ("Z" or
// "+00:00"), else t: a UTC time is how programs write an instant (Claude
// Code's transcripts, JSON encoders), not where the user was, and its day
// in the server's zone is the user's (01:30Z is the evening before in Los
// Angeles); whoever wrote "+09:00" said where they were.
func (s *Service) local(t time.Time) time.Time {
	if _, off := t.Zone(); off == 0 {
		return t.In(s.loc)
	}
	return t
}

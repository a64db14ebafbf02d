package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"agentmem/memory"
)

// sessionIDs checks SessionIDs, and that a session shown by the start of
// its UUID (memory.ShortSession) is found by it where a call names a
// session: reading it, forgetting it; a start that several UUIDs share is
// refused, naming them, and an id that is itself such a start wins.
func (s *suite) sessionIDs(t *testing.T) {
	const ns = "short-ids"
	uuidA := "5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6f"
	uuidB := "5f0b8a2e-ffff-4e7a-9b6f-1a2b3c4d5e6f"
	uuidC := "5f0b8a2f-0000-4000-8000-000000000000"
	long := "5f0b8a2e-long-" + strings.Repeat("x", 240) // past a Couchbase key: kept as its digest
	// "5f0b8a2e" first: once uuidA is stored, remembering it would add to
	// uuidA (the start of a UUID names its session in every call)
	for _, id := range []string{"5f0b8a2e", uuidA, uuidB, uuidC, long, "s1"} {
		remember(t, s.svc, ns, id, "2023-05-01", "a turn of session "+id[:min(len(id), 12)], "its answer", "and one more")
	}
	remember(t, s.svc, ns+"-other", "5f0b8a2e-0000-4000-8000-000000000000", "2023-05-01", "another namespace")
	s.sessionIDsListed(t, ns, uuidA, uuidB, uuidC, long)
	s.sessionsByStart(t, ns, uuidA, uuidB, uuidC, long)
	s.startsCrowded(t)
}

// sessionIDsListed checks SessionIDs of ns, which holds the sessions
// 5f0b8a2e, uuidA, uuidB, uuidC, long and s1: by prefix, in order, up to
// a limit.
func (s *suite) sessionIDsListed(t *testing.T, ns, uuidA, uuidB, uuidC, long string) {
	for _, c := range []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"5f0b8a2e", 10, []string{"5f0b8a2e", uuidA, uuidB, long}},
		{"5f0b8a2e", 2, []string{"5f0b8a2e", uuidA}},
		{"5f0b8a2e-", 10, []string{uuidA, uuidB, long}},
		{"5f0b8a2f", 10, []string{uuidC}},
		{uuidC, 10, []string{uuidC}},
		{"5f0b8a2e-long-xx", 10, []string{long}},
		{"5f0b8a3", 10, nil},
		{"", 3, []string{"5f0b8a2e", uuidA, uuidB}},
		{"5f0b8a2e", 0, nil},
		{"5f0b8a2e", -1, nil},
	} {
		got, err := s.st.SessionIDs(ctx, ns, c.prefix, c.limit)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SessionIDs(%q, %d) = %q, %v; want %q", c.prefix, c.limit, got, err, c.want)
		}
	}
}

// sessionsByStart checks, in the sessions of sessionIDsListed, that a
// session is found by the start of its UUID where a call names a session:
// remembering, reading and forgetting by it; that an id that is itself
// such a start names its own session; and that a start two UUIDs share is
// refused, naming both.
func (s *suite) sessionsByStart(t *testing.T, ns, uuidA, uuidB, uuidC, long string) {
	// remembering by the start a recall shows adds to that session
	if res := remember(t, s.svc, ns, memory.ShortSession(uuidC), "", "a fourth turn"); res.SessionID != uuidC || res.Stored != 1 {
		t.Errorf("remember by %s's start: %+v", uuidC, res)
	}
	// reading by it, in either case
	ms, err := s.svc.Session(ctx, ns, strings.ToUpper(memory.ShortSession(uuidC)))
	if err != nil || len(ms) != 4 || ms[0].SessionID != uuidC {
		t.Fatalf("session %s by its start: %d memories, %v", uuidC, len(ms), err)
	}
	if h := ms[0].Header(); !strings.Contains(h, "session 5f0b8a2f ·") {
		t.Errorf("header %q does not show the UUID by its start", h)
	}
	// an id that is itself the start names its own session
	if ms, err := s.svc.Session(ctx, ns, "5f0b8a2e"); err != nil || len(ms) != 3 || ms[0].SessionID != "5f0b8a2e" {
		t.Errorf("session 5f0b8a2e: %d memories, %v", len(ms), err)
	}
	// a start two UUIDs share is refused, naming both
	var fe *memory.FieldError
	_, err = s.svc.Session(ctx, ns, "5f0b8a2e-")
	if !errors.As(err, &fe) || fe.Field != "session_id" || !strings.Contains(fe.Msg, uuidA) || !strings.Contains(fe.Msg, uuidB) {
		t.Errorf("an ambiguous start: %v, want a session_id error naming both sessions", err)
	}
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "5f0b8a2e-"}); !errors.As(err, &fe) {
		t.Errorf("forgetting by an ambiguous start: %v, want a field error", err)
	}
	// forgetting by the start deletes that session, and only it, and says which
	res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "5f0b8a2e-3c1d"})
	if err != nil || res.Deleted != 3 || res.SessionID != uuidA {
		t.Fatalf("forget by a start: %+v, %v", res, err)
	}
	// it keeps the marks of its forgotten turns, and its start finds it
	// (a forget with reimport names it so), until they are dropped
	if got, err := s.st.SessionIDs(ctx, ns, "", 10); err != nil || !slices.Equal(got, []string{"5f0b8a2e", uuidA, uuidB, long, uuidC, "s1"}) {
		t.Errorf("after the forget: %q, %v", got, err)
	}
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "5f0b8a2e-3c1d", Reimport: true}); err != nil {
		t.Fatalf("forget with reimport by a start: %v", err)
	}
	if got, err := s.st.SessionIDs(ctx, ns, "", 10); err != nil || !slices.Equal(got, []string{"5f0b8a2e", uuidB, long, uuidC, "s1"}) {
		t.Errorf("after the forget with reimport: %q, %v", got, err)
	}
}

// startsCrowded checks that sessions that are no UUIDs but start alike do
// not hide a second UUID: six of them sort before the two UUIDs.
func (s *suite) startsCrowded(t *testing.T) {
	var fe *memory.FieldError
	const ns2 = "short-ids-crowded"
	for i := range 6 {
		remember(t, s.svc, ns2, fmt.Sprintf("0a1b2c3d+%d", i), "2023-05-01", "a session that is no UUID")
	}
	for _, id := range []string{"0a1b2c3d-1111-4000-8000-000000000000", "0a1b2c3d-2222-4000-8000-000000000000"} {
		remember(t, s.svc, ns2, id, "2023-05-01", "a UUID session")
	}
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns2, SessionID: "0a1b2c3d"}); !errors.As(err, &fe) || !strings.Contains(fe.Msg, "2222") {
		t.Errorf("forgetting by a start two UUIDs share behind six other ids: %v, want a field error naming both", err)
	}
}

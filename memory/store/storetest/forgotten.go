package storetest

import (
	"slices"
	"strings"
	"testing"

	"agentmem/memory"
)

// A turn forgotten by its id stays forgotten: the session sent again,
// without message ids (the whole session or its tail), with them, or by
// position, skips it and stores nothing twice, and a new turn after it
// takes the next position. Forgetting the whole session drops the marks:
// it may be stored anew, from turn 0.
func (s *suite) forgottenStayForgotten(t *testing.T) {
	if _, ok := s.st.(memory.ForgottenTurns); !ok {
		t.Fatalf("%T does not keep forgotten turns (memory.ForgottenTurns): a resent session would store them again", s.st)
	}
	ns := "forgotten"
	forget := func(ids ...string) {
		t.Helper()
		res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, IDs: ids})
		if err != nil || res.Deleted != len(ids) {
			t.Fatalf("forget %v = %+v, %v", ids, res, err)
		}
	}
	texts := func(session string) string {
		t.Helper()
		ms, err := s.st.Session(ctx, ns, session)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		return strings.Join(out, " | ")
	}
	says := []string{"my PIN is 4512", "noted", "pizza in Lisbon?"}

	// without message ids: the whole session again
	remember(t, s.svc, ns, "s1", "2023-05-07", says...)
	forget("s1:0")
	again := remember(t, s.svc, ns, "s1", "", says...)
	if again.Stored != 0 || again.Skipped != 2 || again.Forgotten != 1 || !slices.Equal(again.IDs, []string{"s1:0", "s1:1", "s1:2"}) {
		t.Fatalf("resend after forgetting turn 0 = %+v, want nothing stored, 1 forgotten", again)
	}
	// the last turn forgotten: its tail sent again with a new turn, which
	// takes a position of its own
	forget("s1:2")
	tail := append(msgs(says...)[1:], memory.Message{Role: "assistant", Content: "try the one near the river"})
	more, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s1", Messages: tail})
	if err != nil {
		t.Fatal(err)
	}
	if more.Stored != 1 || more.Forgotten != 1 || !slices.Equal(more.IDs, []string{"s1:1", "s1:2", "s1:3"}) {
		t.Fatalf("tail resent with a new turn = %+v, want only s1:3 stored", more)
	}
	if got := texts("s1"); got != "noted | try the one near the river" {
		t.Fatalf("session s1 = %q", got)
	}
	// a client that dropped the forgotten turns from its own copy resends
	// the conversation as it now stands, with a new turn: only that is new
	now := append(msgs(says...)[1:2], memory.Message{Role: "assistant", Content: "try the one near the river"}, memory.Message{Role: "user", Content: "thanks"})
	if r, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s1", Messages: now}); err != nil || r.Stored != 1 || r.IDs[2] != "s1:4" {
		t.Fatalf("the session as it stands, resent with a new turn = %+v, %v; want only s1:4 stored", r, err)
	}
	// another message at a forgotten position is refused, as at a stored one
	two := 2
	if _, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s1", Turn: &two, Messages: msgs("where shall we eat?")}); err == nil || !strings.Contains(err.Error(), "until it was forgotten") {
		t.Fatalf("another message at a forgotten position: %v, want it refused", err)
	}

	// with message ids, as the hooks and the history import send them
	keyed := func(texts ...string) []memory.Message {
		ms := msgs(texts...)
		for i := range ms {
			ms[i].Key = "k" + string(rune('a'+i))
		}
		return ms
	}
	rem := func(req memory.RememberRequest) memory.RememberResult {
		t.Helper()
		req.Namespace, req.SessionID = ns, "s2"
		res, err := s.svc.Remember(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	rem(memory.RememberRequest{SessionDate: "2023-05-08", Messages: keyed(says...)})
	forget("s2:1")
	if r := rem(memory.RememberRequest{Messages: keyed(says...)}); r.Stored != 0 || r.Forgotten != 1 || r.IDs[1] != "s2:1" {
		t.Fatalf("keyed resend = %+v, want nothing stored, s2:1 forgotten", r)
	}
	// by position
	zero := 0
	if r := rem(memory.RememberRequest{Messages: msgs(says...), Turn: &zero}); r.Stored != 0 || r.Forgotten != 1 {
		t.Fatalf("resend from turn 0 = %+v, want nothing stored, 1 forgotten", r)
	}
	if got := texts("s2"); got != "my PIN is 4512 | pizza in Lisbon?" {
		t.Fatalf("session s2 = %q", got)
	}

	// after a restart too
	if err := s.st.Close(); err != nil {
		t.Fatal(err)
	}
	var st memory.Store
	st, err = s.open(s.emb.ID(), s.emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	s.st, s.svc = st, s.service(t, st, s.emb)
	if r := rem(memory.RememberRequest{Messages: keyed(says...)}); r.Stored != 0 || r.Forgotten != 1 {
		t.Fatalf("keyed resend after a restart = %+v, want nothing stored", r)
	}

	// every turn forgotten: the session is gone from the listings, and a
	// resend still stores nothing
	forget("s2:0", "s2:2")
	if r := rem(memory.RememberRequest{Messages: keyed(says...)}); r.Stored != 0 || r.Forgotten != 3 {
		t.Fatalf("resend of a session forgotten turn by turn = %+v, want nothing stored", r)
	}
	var infos memory.SessionPage
	infos, err = s.st.Sessions(ctx, ns, memory.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos.Sessions {
		if in.ID == "s2" {
			t.Fatalf("sessions lists s2, every turn of which was forgotten: %+v", in)
		}
	}

	// a session forgotten whole stays forgotten: sent again as it was, by
	// content or by message ids, it stores nothing, and its next turn is
	// numbered after it
	whole := append(msgs(says...), memory.Message{Role: "assistant", Content: "try the one near the river"}, memory.Message{Role: "user", Content: "thanks"})
	if res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "s1"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget session s1 = %+v, %v", res, err)
	}
	if r, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s1", Messages: whole}); err != nil || r.Stored != 0 || r.Forgotten != 5 {
		t.Fatalf("a session forgotten whole, sent again = %+v, %v; want nothing stored", r, err)
	}
	if r := rem(memory.RememberRequest{Messages: keyed(append(says, "and the weather?")...)}); r.Stored != 1 || r.Forgotten != 3 || r.IDs[3] != "s2:3" {
		t.Fatalf("a session forgotten turn by turn, sent again with a new turn = %+v, want only s2:3 stored", r)
	}
	// with reimport, forgetting a session drops its marks: it may be
	// stored anew, from turn 0 (a session that holds only marks included)
	if res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "s1", Reimport: true}); err != nil || res.Deleted != 0 {
		t.Fatalf("forget session s1 with reimport = %+v, %v", res, err)
	}
	if r := remember(t, s.svc, ns, "s1", "2023-05-07", says...); r.Stored != 3 || !slices.Equal(r.IDs, []string{"s1:0", "s1:1", "s1:2"}) {
		t.Fatalf("session stored anew after forgetting it with reimport = %+v, want 3 turns from s1:0", r)
	}
	if res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, SessionID: "s2", Reimport: true}); err != nil || res.Deleted != 1 {
		t.Fatalf("forget session s2 with reimport = %+v, %v", res, err)
	}
	if r := rem(memory.RememberRequest{Messages: keyed(says...)}); r.Stored != 3 || r.IDs[0] != "s2:0" {
		t.Fatalf("session forgotten with reimport, stored anew = %+v, want 3 turns from s2:0", r)
	}
	// reimport goes with a session (or all), not with ids
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, IDs: []string{"s2:0"}, Reimport: true}); err == nil || !strings.Contains(err.Error(), "reimport") {
		t.Fatalf("forget ids with reimport: %v, want it refused", err)
	}
}

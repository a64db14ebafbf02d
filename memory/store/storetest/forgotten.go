package storetest

import (
	"slices"
	"strings"
	"testing"

	"agentmem/memory"
)

// Turns forgotten by their ids or with their session stay forgotten: the
// session sent again, without message ids (as it was, as it now stands,
// or its tail), with them, or by position, skips them and stores nothing
// twice, and a new turn after them takes the next position. Forgetting a
// session with reimport drops the marks: it may be stored anew, from turn
// 0.
func (s *suite) forgottenStayForgotten(t *testing.T) {
	if _, ok := s.st.(memory.ForgottenTurns); !ok {
		t.Fatalf("%T does not keep forgotten turns (memory.ForgottenTurns): a resent session would store them again", s.st)
	}
	f := &forgetting{s: s, t: t, ns: "forgotten"}
	f.byContentAndPosition()
	f.byKeys()
	f.wholeSessions()
	f.saidAgain()
}

// forgetting is the namespace the forgotten turns' cases share.
type forgetting struct {
	s  *suite
	t  *testing.T
	ns string
}

// says is what each case's session says first.
var says = []string{"my PIN is 4512", "noted", "pizza in Lisbon?"}

func (f *forgetting) forget(ids ...string) {
	f.t.Helper()
	res, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, IDs: ids})
	if err != nil || res.Deleted != len(ids) {
		f.t.Fatalf("forget %v = %+v, %v", ids, res, err)
	}
}

func (f *forgetting) remember(session string, msgs []memory.Message, turn *int) memory.RememberResult {
	f.t.Helper()
	res, err := f.s.svc.Remember(ctx, memory.RememberRequest{Namespace: f.ns, SessionID: session, SessionDate: "2023-05-07", Messages: msgs, Turn: turn})
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

// texts is what the session holds, in turn order.
func (f *forgetting) texts(session string) string {
	f.t.Helper()
	ms, err := f.s.st.Session(ctx, f.ns, session)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, " | ")
}

// keyed is msgs(texts) with message ids ka, kb, …, as the hooks and the
// history import send them.
func keyed(texts ...string) []memory.Message {
	ms := msgs(texts...)
	for i := range ms {
		ms[i].Key = "k" + string(rune('a'+i))
	}
	return ms
}

// Without message ids, session s1: by content, then by position.
func (f *forgetting) byContentAndPosition() {
	t := f.t
	f.remember("s1", msgs(says...), nil)
	f.forget("s1:0")
	if r := f.remember("s1", msgs(says...), nil); r.Stored != 0 || r.Skipped != 2 || r.Forgotten != 1 || !slices.Equal(r.IDs, []string{"s1:0", "s1:1", "s1:2"}) {
		t.Fatalf("resend after forgetting turn 0 = %+v, want nothing stored, 1 forgotten", r)
	}
	// the last turn forgotten: its tail sent again with a new turn, which
	// takes a position of its own
	f.forget("s1:2")
	tail := append(msgs(says...)[1:], memory.Message{Role: "assistant", Content: "try the one near the river"})
	if r := f.remember("s1", tail, nil); r.Stored != 1 || r.Forgotten != 1 || !slices.Equal(r.IDs, []string{"s1:1", "s1:2", "s1:3"}) {
		t.Fatalf("tail resent with a new turn = %+v, want only s1:3 stored", r)
	}
	if got := f.texts("s1"); got != "noted | try the one near the river" {
		t.Fatalf("session s1 = %q", got)
	}
	// a client that dropped the forgotten turns from its own copy resends
	// the conversation as it now stands, with a new turn: only that is new
	now := append(msgs(says...)[1:2], tail[2], memory.Message{Role: "user", Content: "thanks"})
	if r := f.remember("s1", now, nil); r.Stored != 1 || r.IDs[2] != "s1:4" {
		t.Fatalf("the session as it stands, resent with a new turn = %+v; want only s1:4 stored", r)
	}
	// another message at a forgotten position is refused, as at a stored one
	two := 2
	if _, err := f.s.svc.Remember(ctx, memory.RememberRequest{Namespace: f.ns, SessionID: "s1", Turn: &two, Messages: msgs("where shall we eat?")}); err == nil || !strings.Contains(err.Error(), "until it was forgotten") {
		t.Fatalf("another message at a forgotten position: %v, want it refused", err)
	}
}

// With message ids, session s2; by position too, and after a restart.
func (f *forgetting) byKeys() {
	t := f.t
	f.remember("s2", keyed(says...), nil)
	f.forget("s2:1")
	if r := f.remember("s2", keyed(says...), nil); r.Stored != 0 || r.Forgotten != 1 || r.IDs[1] != "s2:1" {
		t.Fatalf("keyed resend = %+v, want nothing stored, s2:1 forgotten", r)
	}
	zero := 0
	if r := f.remember("s2", msgs(says...), &zero); r.Stored != 0 || r.Forgotten != 1 {
		t.Fatalf("resend from turn 0 = %+v, want nothing stored, 1 forgotten", r)
	}
	if got := f.texts("s2"); got != "my PIN is 4512 | pizza in Lisbon?" {
		t.Fatalf("session s2 = %q", got)
	}
	if err := f.s.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := f.s.open(f.s.emb.ID(), f.s.emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	f.s.st, f.s.svc = st, f.s.service(t, st, f.s.emb)
	if r := f.remember("s2", keyed(says...), nil); r.Stored != 0 || r.Forgotten != 1 {
		t.Fatalf("keyed resend after a restart = %+v, want nothing stored", r)
	}
	// every turn forgotten: the session is gone from the listings, and a
	// resend still stores nothing
	f.forget("s2:0", "s2:2")
	if r := f.remember("s2", keyed(says...), nil); r.Stored != 0 || r.Forgotten != 3 {
		t.Fatalf("resend of a session forgotten turn by turn = %+v, want nothing stored", r)
	}
	infos, err := f.s.st.Sessions(ctx, f.ns, memory.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos.Sessions {
		if in.ID == "s2" {
			t.Fatalf("sessions lists s2, every turn of which was forgotten: %+v", in)
		}
	}
}

// A session forgotten whole (s1, holding turns 1, 3 and 4 after
// byContentAndPosition) stays forgotten; with reimport it may be stored
// anew, and so may s2, which holds only marks.
func (f *forgetting) wholeSessions() {
	t := f.t
	whole := append(msgs(says...), memory.Message{Role: "assistant", Content: "try the one near the river"}, memory.Message{Role: "user", Content: "thanks"})
	if res, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, SessionID: "s1"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget session s1 = %+v, %v", res, err)
	}
	if r := f.remember("s1", whole, nil); r.Stored != 0 || r.Forgotten != 5 {
		t.Fatalf("a session forgotten whole, sent again = %+v; want nothing stored", r)
	}
	if r := f.remember("s2", keyed(append(says, "and the weather?")...), nil); r.Stored != 1 || r.Forgotten != 3 || r.IDs[3] != "s2:3" {
		t.Fatalf("a session forgotten turn by turn, sent again with a new turn = %+v, want only s2:3 stored", r)
	}
	if res, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, SessionID: "s1", Reimport: true}); err != nil || res.Deleted != 0 {
		t.Fatalf("forget session s1 with reimport = %+v, %v", res, err)
	}
	if r := f.remember("s1", msgs(says...), nil); r.Stored != 3 || !slices.Equal(r.IDs, []string{"s1:0", "s1:1", "s1:2"}) {
		t.Fatalf("session stored anew after forgetting it with reimport = %+v, want 3 turns from s1:0", r)
	}
	if res, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, SessionID: "s2", Reimport: true}); err != nil || res.Deleted != 1 {
		t.Fatalf("forget session s2 with reimport = %+v, %v", res, err)
	}
	if r := f.remember("s2", keyed(says...), nil); r.Stored != 3 || r.IDs[0] != "s2:0" {
		t.Fatalf("session forgotten with reimport, stored anew = %+v, want 3 turns from s2:0", r)
	}
	// a session that holds only marks is found by its id's start too
	const u = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	f.remember(u, msgs(says...), nil)
	for _, req := range []memory.ForgetRequest{{Namespace: f.ns, SessionID: "0190a1b2"}, {Namespace: f.ns, SessionID: "0190a1b2", Reimport: true}} {
		if _, err := f.s.svc.Forget(ctx, req); err != nil {
			t.Fatalf("forget %+v: %v", req, err)
		}
	}
	if r := f.remember(u, msgs(says...), nil); r.Stored != 3 {
		t.Fatalf("a session forgotten, then forgotten with reimport by its id's start, sent again = %+v, want 3 stored", r)
	}
	// reimport goes with a session (or all), not with ids
	if _, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, IDs: []string{"s2:0"}, Reimport: true}); err == nil || !strings.Contains(err.Error(), "reimport") {
		t.Fatalf("forget ids with reimport: %v, want it refused", err)
	}
}

// What a forgotten turn said stays forgotten in its session however it
// comes again (a new-user trial's three ways back): alone, without ids; in
// the conversation sent again with ids where it had none; and without
// ids after the session grew past it.
func (f *forgetting) saidAgain() {
	t := f.t
	f.remember("s3", msgs(says...), nil)
	f.forget("s3:0")
	if r := f.remember("s3", msgs(says...)[:1], nil); r.Stored != 0 || r.Forgotten != 1 {
		t.Fatalf("the forgotten turn alone, sent again = %+v, want it not stored", r)
	}
	if r := f.remember("s3", keyed(says...), nil); r.Forgotten != 1 || r.IDs[0] != "s3:0" {
		t.Fatalf("the session sent again with ids it was stored without = %+v, want turn 0 held as forgotten", r)
	}
	f.remember("s4", keyed(says...), nil)
	if res, err := f.s.svc.Forget(ctx, memory.ForgetRequest{Namespace: f.ns, SessionID: "s4"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget session s4 = %+v, %v", res, err)
	}
	if r := f.remember("s4", keyed(append(says, "and the weather?")...), nil); r.Stored != 1 {
		t.Fatalf("s4 sent again with a new turn = %+v, want only that stored", r)
	}
	if r := f.remember("s4", msgs(says...), nil); r.Stored != 0 || r.Forgotten != 3 {
		t.Fatalf("s4's forgotten turns sent again without ids after it grew = %+v, want nothing stored", r)
	}
	if got := f.texts("s4"); got != "and the weather?" {
		t.Fatalf("session s4 = %q", got)
	}
}

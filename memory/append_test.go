package memory_test

import (
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// texts is a session's stored texts in turn order.
func texts(t *testing.T, svc *memory.Service, ns, session string) []string {
	t.Helper()
	ms, err := svc.Session(bg, ns, session)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// A repeated turn is a new turn (issue 10, item 6): the second consent is
// stored, and so is an exchange repeated later in the session; a call
// sent twice in a row stays idempotent, with or without client ids.
func TestRepeatedTurnsAreKept(t *testing.T) {
	svc := open(t, nil)
	one := func(session, role, text string) memory.RememberResult {
		t.Helper()
		res, err := svc.Remember(bg, memory.RememberRequest{SessionID: session, Messages: []memory.Message{{Role: role, Content: text}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// four calls to one session
	for _, m := range [][2]string{{"user", "yes"}, {"assistant", "Deleting file A now."}, {"user", "yes"}, {"assistant", "Deleting file B now."}} {
		if res := one("s-del", m[0], m[1]); res.Stored != 1 {
			t.Errorf("%q: stored %d, skipped %d", m[1], res.Stored, res.Skipped)
		}
	}
	want := []string{"yes", "Deleting file A now.", "yes", "Deleting file B now."}
	if got := texts(t, svc, "default", "s-del"); !slices.Equal(got, want) {
		t.Errorf("session = %q, want %q", got, want)
	}

	// an exchange repeated later in the session is new; sent twice in a row
	// it is a resend
	pair := []memory.Message{{Role: "user", Content: "Shall I run the tests?"}, {Role: "assistant", Content: "Yes, run them."}}
	calls := [][]memory.Message{pair, {{Role: "user", Content: "They failed."}, {Role: "assistant", Content: "Fix the parser."}}, pair, pair}
	var stored []int
	for _, c := range calls {
		res, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s-pair", Messages: c})
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, res.Stored)
	}
	if !slices.Equal(stored, []int{2, 2, 2, 0}) {
		t.Errorf("stored per call %v, want [2 2 2 0] (the repeated exchange is new, its immediate resend is not)", stored)
	}
	if got := texts(t, svc, "default", "s-pair"); len(got) != 6 {
		t.Errorf("session = %q, want 6 turns", got)
	}

	// with client ids, ids decide: a repeated "yes" with a new id is new,
	// even right after another "yes"; a known id is a resend
	for i, id := range []string{"m1", "m2", "m2", "m1", "m3"} {
		res, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s-ids", Messages: []memory.Message{{Role: "user", Content: "yes", Key: id}}})
		if err != nil {
			t.Fatal(err)
		}
		if wantNew := i != 2 && i != 3; (res.Stored == 1) != wantNew {
			t.Errorf("call %d (id %s): stored %d", i, id, res.Stored)
		}
	}
	if got := texts(t, svc, "default", "s-ids"); len(got) != 3 {
		t.Errorf("keyed session = %q, want 3 turns", got)
	}
}

// A session sent without an id gets one derived from its content and day:
// sent again the same day it is a resend, sent on another day (by the
// clock, or by session_date) it is another session.
func TestDerivedSessionIDsByDay(t *testing.T) {
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2023, 5, 7, 9, 0, 0, 0, time.UTC)
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	send := func(date string) memory.RememberResult {
		res, err := svc.Remember(bg, memory.RememberRequest{SessionDate: date, Messages: []memory.Message{{Role: "user", Content: "I took my pills."}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := send("")
	now = now.Add(3 * time.Hour)
	if b := send(""); b.SessionID != a.SessionID || b.Stored != 0 {
		t.Errorf("the same day: %+v after %+v, want a resend", b, a)
	}
	now = now.Add(24 * time.Hour)
	c := send("")
	d := send("2023-05-20")
	if c.SessionID == a.SessionID || c.Stored != 1 || d.SessionID == a.SessionID || d.SessionID == c.SessionID || d.Stored != 1 {
		t.Errorf("another day: %+v and %+v after %+v, want new sessions", c, d, a)
	}
}

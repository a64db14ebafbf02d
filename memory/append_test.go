package memory_test

import (
	"slices"
	"strings"
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

// With the position of its first message, a call is exact: a message at a
// position the session holds is a resend (and must match it), the others
// are appended, even "yes" right after "yes".
func TestRememberByPosition(t *testing.T) {
	svc := open(t, nil)
	at := func(turn int, texts ...string) (memory.RememberResult, error) {
		var ms []memory.Message
		for _, s := range texts {
			ms = append(ms, memory.Message{Role: "user", Content: s})
		}
		return svc.Remember(bg, memory.RememberRequest{SessionID: "s", Messages: ms, Turn: &turn})
	}
	for i, text := range []string{"yes", "yes", "Deleting file A now.", "yes"} {
		if res, err := at(i, text); err != nil || res.Stored != 1 {
			t.Fatalf("turn %d: %+v %v", i, res, err)
		}
	}
	// a resend of turns 2-3 with a new turn 4
	res, err := at(2, "Deleting file A now.", "yes", "Deleting file B now.")
	if err != nil || res.Stored != 1 || !slices.Equal(res.IDs, []string{"s:2", "s:3", "s:4"}) {
		t.Errorf("resend with a new turn: %+v %v", res, err)
	}
	// a message that is not what the session holds there, and a gap
	if _, err := at(1, "yes", "no"); err == nil || !strings.Contains(err.Error(), "messages[1]: is turn 2 of session s, which holds another message") {
		t.Errorf("a mismatch: %v", err)
	}
	if _, err := at(7, "later"); err == nil || !strings.Contains(err.Error(), "turn: is 7, but session s holds turns up to 4: the next one is turn 5") {
		t.Errorf("a gap: %v", err)
	}
	five := 5
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "new", Messages: []memory.Message{{Role: "user", Content: "hi"}}, Turn: &five}); err == nil || !strings.Contains(err.Error(), "turn: is 5, but session new holds no turns yet: its first is turn 0") {
		t.Errorf("a gap in a new session: %v", err)
	}
	want := []string{"yes", "yes", "Deleting file A now.", "yes", "Deleting file B now."}
	if got := texts(t, svc, "default", "s"); !slices.Equal(got, want) {
		t.Errorf("session = %q, want %q", got, want)
	}
	// a forgotten turn sent again is not stored again
	if _, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:1"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := at(0, "yes", "yes"); err != nil || res.Stored != 0 || !slices.Equal(res.IDs, []string{"s:0", "s:1"}) {
		t.Errorf("resend over a forgotten turn: %+v %v", res, err)
	}
}

// forget by ids says which ids named no memory (a typo, a memory already
// forgotten): "Deleted 0 memories" alone left the caller guessing.
func TestForgetNamesUnknownIDs(t *testing.T) {
	svc := open(t, nil)
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s:june", Messages: []memory.Message{{Role: "user", Content: "one"}, {Role: "user", Content: "two"}}}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:june:1", "s:june:99", "nocolon", "s:june:x", "s:june:1"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 1 || !slices.Equal(res.Unknown, []string{"s:june:99", "nocolon", "s:june:x"}) {
		t.Errorf("forget: deleted %d, unknown %q; want 1 and the three ids that name nothing", res.Deleted, res.Unknown)
	}
	if got := texts(t, svc, "default", "s:june"); !slices.Equal(got, []string{"one"}) {
		t.Errorf("the session holds %q, want only its first turn", got)
	}
}

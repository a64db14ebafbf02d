package memory_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"agentmem/memory"
)

// FuzzSessionAppend drives one session with calls decoded from the input
// and checks append semantics against a model of them:
//   - with client ids, or with each call's position in the session, the
//     session is exactly the conversation, every turn once, whatever the
//     calls and their resends;
//   - without, a call stores every message but the longest tail of the
//     session it starts with (a resend), so a turn that repeats an earlier
//     one is never dropped unless it continues the session's tail;
//   - a call sent again at once stores nothing and gets the same ids;
//   - every id returned names a memory of that role and text.
func FuzzSessionAppend(f *testing.F) {
	for _, s := range [][]byte{
		{0x00, 0x04, 0x10, 0x04, 0x10, 0x05},       // yes / Deleting A / yes / Deleting B, one call each
		{0x08, 0x0c, 0x18, 0x0c, 0x38, 0x0d},       // the same with ids, one resent
		{0x20, 0x24, 0x30, 0x20, 0x24, 0x30, 0x22}, // an exchange, resent, repeated
		{0x01, 0x01, 0x11, 0x01, 0x21, 0x01},       // one turn over and over
		{0x00, 0x15, 0x02, 0x17, 0x00, 0x15},       // an exchange repeated after another
		{0x40, 0x11, 0x31, 0x00, 0x15},             // by position: "yes" after "yes", resent
	} {
		f.Add(s)
	}
	svc := open(f, nil)
	n := 0
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) == 0 || len(script) > 64 {
			return
		}
		n++
		session := fmt.Sprint("s-", n)
		texts := []string{"yes", "Deleting file A now.", "no", "Deleting file B now."}
		keyed := script[0]&0x08 != 0
		positioned := script[0]&0x40 != 0
		// a call ends at a byte with bit 4 set, and is resent when that
		// byte also has bit 5 set
		type msg struct{ role, text, key string }
		var conv []msg
		var calls [][]memory.Message
		var resend []bool
		var starts []int
		var cur []memory.Message
		for i, b := range script {
			if len(cur) == 0 {
				starts = append(starts, i)
			}
			m := memory.Message{Role: []string{"user", "assistant"}[b>>2&1], Content: texts[b&3]}
			if keyed {
				m.Key = fmt.Sprint("k", i)
			}
			conv = append(conv, msg{m.Role, m.Content, m.Key})
			cur = append(cur, m)
			if b&0x10 != 0 || i == len(script)-1 {
				calls = append(calls, cur)
				resend = append(resend, b&0x20 != 0)
				cur = nil
			}
		}
		var have []msg // the session as stored, by the model
		for i, call := range calls {
			before := sessionOrNone(t, svc, session)
			req := memory.RememberRequest{SessionID: session, Messages: call}
			if positioned {
				req.Turn = &starts[i]
			}
			res, err := svc.Remember(bg, req)
			if err != nil {
				t.Fatal(err)
			}
			want := len(call)
			if !keyed && !positioned {
				for o := min(len(have), len(call)); o > 0; o-- {
					if slices.EqualFunc(have[len(have)-o:], call[:o], func(h msg, m memory.Message) bool { return h.role == m.Role && h.text == m.Content }) {
						want -= o
						break
					}
				}
			}
			if res.Stored != want {
				t.Fatalf("call %d of %v: stored %d, want %d (session before: %d turns)", i, script, res.Stored, want, len(before))
			}
			for _, m := range call[len(call)-want:] {
				have = append(have, msg{m.Role, m.Content, m.Key})
			}
			after := sessionOrNone(t, svc, session)
			byID := map[string]memory.Memory{}
			for _, m := range after {
				byID[m.ID] = m
			}
			for j, id := range res.IDs {
				if m, ok := byID[id]; !ok || m.Role != call[j].Role || m.Text != call[j].Content {
					t.Fatalf("call %d message %d: id %s names %+v", i, j, id, m)
				}
			}
			if resend[i] {
				again, err := svc.Remember(bg, req)
				if err != nil || again.Stored != 0 || !slices.Equal(again.IDs, res.IDs) {
					t.Fatalf("call %d resent: %+v %v, first %+v", i, again, err, res)
				}
			}
		}
		stored := sessionOrNone(t, svc, session)
		if len(stored) != len(have) {
			t.Fatalf("%v: %d turns stored, model %d", script, len(stored), len(have))
		}
		for i, m := range stored {
			if m.Role != have[i].role || m.Text != have[i].text || m.Key != have[i].key {
				t.Fatalf("%v: turn %d is %s %q, model %s %q", script, i, m.Role, m.Text, have[i].role, have[i].text)
			}
		}
		if (keyed || positioned) && len(stored) != len(conv) {
			t.Fatalf("%v: with ids or positions, %d turns stored of %d", script, len(stored), len(conv))
		}
	})
}

// sessionOrNone is a session's memories, none for a session not stored.
func sessionOrNone(t *testing.T, svc *memory.Service, session string) []memory.Memory {
	t.Helper()
	ms, err := svc.Session(bg, "default", session)
	var nf *memory.NotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

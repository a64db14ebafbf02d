package embedded_test

import (
	"fmt"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// BenchmarkAppendLongSession measures a remember that appends one turn to
// a session already holding 50,000 turns (issue 10: it took 264 ms,
// proportional to the session's length). BenchmarkAppendShortSession is
// the reference: the same append to a session of 10 turns in a store that
// also holds the long one (so the index is as large), measured in the same
// run.
// The Keyed variants send a message id with each turn.
func BenchmarkAppendLongSession(b *testing.B)       { benchmarkAppend(b, "long", false) }
func BenchmarkAppendShortSession(b *testing.B)      { benchmarkAppend(b, "short", false) }
func BenchmarkAppendLongSessionKeyed(b *testing.B)  { benchmarkAppend(b, "long", true) }
func BenchmarkAppendShortSessionKeyed(b *testing.B) { benchmarkAppend(b, "short", true) }

func benchmarkAppend(b *testing.B, session string, keyed bool) {
	st, err := embedded.Open(ctx, b.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc, err := memory.New(memory.Options{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	date := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	// the session is written straight to the store: faster than remember
	ms := make([]memory.Memory, 0, 1000)
	const long, short = 50_000, 10
	for i := range long + short {
		id, t := "long", i
		if i >= long {
			id, t = "short", i-long
		}
		ms = append(ms, memory.Memory{ID: memory.MemoryID(id, t), Namespace: "default", SessionID: id, SessionDate: date, Turn: t,
			Role: "user", Text: fmt.Sprintf("turn %d of a %s session", t, id), Hash: fmt.Sprint("h", t), Key: fmt.Sprint("k", t), Created: date})
		if len(ms) == cap(ms) || i == long+short-1 {
			if err := st.Put(ctx, ms); err != nil {
				b.Fatal(err)
			}
			ms = ms[:0]
		}
	}
	// one append before timing: a store indexes its message ids on the
	// first lookup, once
	if _, err := svc.Remember(ctx, memory.RememberRequest{SessionID: session, Messages: []memory.Message{{Role: "user", Content: "first append", Key: "first"}}}); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		m := msgs(fmt.Sprintf("appended turn %d", i))
		if keyed {
			m[0].Key = fmt.Sprint("msg-", i)
		}
		res, err := svc.Remember(ctx, memory.RememberRequest{SessionID: session, Messages: m})
		if err != nil || res.Stored != 1 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

// FuzzJournalReplay runs a sequence of writes, deletes and index flushes
// in two namespaces, then "crashes" (the indexes' pending batches are lost,
// as in kill -9) after one more journal entry of arbitrary content is
// written as a write would write it, and reopens: the open must succeed
// without a panic and leave text indexes that are exactly what the records
// make (as agentmem check verifies), whatever the journal held. One index
// is open at a time, so the writes also close and reopen them.
func FuzzJournalReplay(f *testing.F) {
	f.Add([]byte{0, 4, 8, 12, 1, 5}, []byte(`{"keys":["default\u001fs0:1"]}`))
	f.Add([]byte{0, 4, 0x83, 8, 2, 6, 3}, []byte("not json"))
	f.Add([]byte{16, 20, 24, 0x83, 28, 7}, []byte(`{"keys":["default\u001f\u0000page\u001fs1\u001f-3","","\u001f"]}`))
	f.Add([]byte{1, 2, 3}, []byte(`{"keys":null}`))
	f.Add([]byte{0, 0x83, 0x87}, []byte{})
	f.Add([]byte{0, 8, 0x8b, 4, 12, 0x8b, 10, 1}, []byte(`{"keys":["other\u001fs2:0","default\u001fs0:0"]}`))
	f.Fuzz(func(t *testing.T, ops, extra []byte) {
		if len(ops) > 48 || len(extra) > 512 {
			t.Skip("inputs are kept small: each run opens a store twice")
		}
		replayCase(t, ops, extra)
	})
}

func replayCase(t *testing.T, ops, extra []byte) {
	// one index open at a time: writes to the other namespace close it
	defer SetMaxOpen(SetMaxOpen(1))
	{
		ctx := context.Background()
		dir := t.TempDir()
		st, err := Open(ctx, dir, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
		for i, op := range ops {
			session := fmt.Sprintf("s%d", op>>2&3)
			ns := []string{"default", "other"}[op>>3&1] // s0, s1 and s2, s3
			turn := int(op>>4) & 7
			switch op & 3 {
			case 0, 1:
				m := memory.Memory{ID: memory.MemoryID(session, turn), Namespace: ns, SessionID: session, SessionDate: day,
					Turn: turn, Role: "user", Text: fmt.Sprintf("op %d wrote turn %d", i, turn), Hash: fmt.Sprint(i), Created: day}
				err = st.Put(ctx, []memory.Memory{m})
			case 2:
				_, err = st.Delete(ctx, memory.Selector{Namespace: ns, IDs: []string{memory.MemoryID(session, turn)}})
			case 3:
				if op&0x80 != 0 {
					st.mu.Lock()
					err = st.flushText(ns)
					st.mu.Unlock()
				} else {
					_, err = st.Delete(ctx, memory.Selector{Namespace: ns, SessionID: session})
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// one more journal entry, with arbitrary content, written as Put
		// writes one (with the records' last sequence)
		if len(extra) > 0 {
			err := st.update(func(tx *bolt.Tx) error {
				n := st.seq + 1
				if err := tx.Bucket(bucketMeta).Put(keyLastSeq, seqKey(n)); err != nil {
					return err
				}
				// and marked for the namespaces it names, as Put marks them
				var e entry
				if json.Unmarshal(extra, &e) == nil {
					var keys []string
					for _, k := range e.Keys {
						if ns, _ := splitKey(k); ns == "default" || ns == "other" {
							keys = append(keys, k)
						}
					}
					if err := markText(tx, n, keys); err != nil {
						return err
					}
				}
				return tx.Bucket(bucketJournal).Put(seqKey(n), extra)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// kill -9: the pending index batch never reaches the index
		for _, ti := range st.texts {
			if ti.idx != nil {
				ti.idx.Close()
			}
		}
		st.db.Close()
		forgetFile(st.db, false)

		st, err = Open(ctx, dir, Options{NoSync: true})
		if err != nil {
			t.Fatalf("reopening after the crash: %v", err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Check(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Fatalf("after replay: records %q; index %s", r.Records, strings.Join(r.Index, "; "))
		}
	}
}

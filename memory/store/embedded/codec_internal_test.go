package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
)

func codecMemories() []memory.Memory {
	ts := time.Date(2023, 5, 7, 23, 59, 1, 123456789, time.FixedZone("", -5*3600))
	return []memory.Memory{
		{},
		{ID: "s1:0", Namespace: "default", SessionID: "s1", SessionDate: time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC),
			Turn: 0, Role: "user", Text: "hello", Hash: "abc", Created: time.Now()},
		{ID: "séance:41", Namespace: "ns/ü", SessionID: "séance", SessionDate: ts, Turn: 41, Role: "assistant",
			Speaker: "Caroline", Text: strings.Repeat("I went to Oregon 🌲 ", 200), Timestamp: &ts, Key: "k-1",
			Hash: "0123456789abcdef", Embedder: "use-lite-en", Created: time.Date(2026, 12, 2, 17, 0, 0, 1, time.Local),
			Vectors: [][]float32{{1, 0}}},
		{ID: "big", SessionID: "big", Turn: 1 << 40, Role: "user", Text: "\x00tab\tnewline\n", SessionDate: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
}

// A record reads back as the JSON records of earlier stores did: the same
// memory, field for field, zones and nanoseconds included, vectors apart.
func TestCodecReadsBackAsJSONDid(t *testing.T) {
	for i, m := range codecMemories() {
		raw, err := encode(m)
		if err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		got, err := decode(raw)
		if err != nil {
			t.Fatalf("memory %d: %v", i, err)
		}
		m.Vectors = nil
		js, _ := json.Marshal(m)
		var want memory.Memory
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			got.Text, want.Text = got.Text[:min(len(got.Text), 40)], want.Text[:min(len(want.Text), 40)]
			t.Errorf("memory %d read back as\n%#v\nwant (as JSON)\n%#v", i, got, want)
		}
		old, err := decode(js) // a record an earlier version wrote
		if err != nil || !reflect.DeepEqual(old, want) {
			t.Errorf("memory %d: the JSON record reads as %+v, %v", i, old, err)
		}
	}
}

// A record with any byte changed, or cut short anywhere, is an error
// (errRecord), never a memory with a field missing, and never a panic.
func TestCodecDetectsDamage(t *testing.T) {
	raw, err := encode(codecMemories()[2])
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, b []byte) {
		t.Helper()
		if m, err := decode(b); !errors.Is(err, errRecord) {
			t.Fatalf("%s: decoded as %q, %v; want errRecord", what, m.ID, err)
		}
	}
	for n := range len(raw) {
		check("cut", raw[:n])
	}
	for i := range raw {
		b := []byte(string(raw))
		b[i] ^= 0x10
		if b[0] == '{' {
			continue // read as JSON: checked by encoding/json
		}
		check("flipped", b)
	}
}

// Unknown fields (a later version's) are skipped.
func TestCodecSkipsUnknownFields(t *testing.T) {
	m := codecMemories()[1]
	raw, _ := encode(m)
	body := append([]byte{14<<3 | 0, 7}, raw[:len(raw)-5]...) // field 14, varint 7
	got, err := decode(seal(body))
	if err != nil || got.ID != m.ID || got.Text != m.Text || got.Turn != m.Turn {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, m := range codecMemories() {
		raw, _ := encode(m)
		f.Add(raw)
		f.Add(raw[:len(raw)-5])
	}
	f.Add([]byte(`{"id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		decode(b)
		decode(seal(b)) // past the checksum: the fields' own parsing
	})
}

func BenchmarkDecode(b *testing.B) {
	m := codecMemories()[2]
	m.Vectors = nil
	js, _ := json.Marshal(m)
	raw, _ := encode(m)
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"json", js}, {"protowire", raw}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			for b.Loop() {
				if _, err := decode(c.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A store written before records were protobuf (every record JSON) opens,
// passes Check, recalls and lists its memories, and takes new turns beside
// the old ones.
func TestStoreOfJSONRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	st, err := Open(ctx, dir, Options{NoSync: true, EmbedderID: "test", Dims: 4})
	if err != nil {
		t.Fatal(err)
	}
	turn := func(n int, text string) memory.Memory {
		return memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day,
			Turn: n, Role: "user", Text: text, Hash: fmt.Sprint(n), Created: day, Embedder: "test", Vectors: [][]float32{{1, 0, 0, 0}}}
	}
	var old []memory.Memory
	for n := range 20 {
		old = append(old, turn(n, fmt.Sprintf("old turn %d about the lake", n)))
	}
	if err := st.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	err = st.update(func(tx *bolt.Tx) error { // as an earlier version wrote them
		mem := tx.Bucket(bucketMem)
		for _, m := range old {
			m.Vectors = nil
			js, _ := json.Marshal(m)
			if err := mem.Put([]byte(key("default", m.ID)), js); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if r, err := Check(ctx, dir); err != nil || !r.OK() || r.Memories != 20 {
		t.Fatalf("Check of the JSON store: %+v, %v", r, err)
	}
	if st, err = Open(ctx, dir, Options{NoSync: true, EmbedderID: "test", Dims: 4}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Put(ctx, []memory.Memory{turn(20, "a new turn about the lake")}); err != nil {
		t.Fatal(err)
	}
	hits, err := st.Search(ctx, memory.Query{Namespace: "default", Text: "lake", K: 30, Vector: []float32{1, 0, 0, 0}})
	if err != nil || len(hits) != 21 {
		t.Fatalf("search found %d of 21, %v", len(hits), err)
	}
	got, err := st.Session(ctx, "default", "s")
	if err != nil || len(got) != 21 || got[3].Text != old[3].Text || !got[3].SessionDate.Equal(day) || got[20].Text != "a new turn about the lake" {
		t.Fatalf("session read back as %d memories, %v", len(got), err)
	}
}

// A record file of a later format is refused at Open with ErrNewerFormat,
// saying what to do, and left as it is; one of JSON records (no format
// recorded) is marked as holding this version's records.
func TestRecordsFormat(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	format := func() string {
		t.Helper()
		db, err := bolt.Open(filepath.Join(dir, recordFile), 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var v string
		db.View(func(tx *bolt.Tx) error { v = string(tx.Bucket(bucketMeta).Get(keyRecords)); return nil })
		return v
	}
	set := func(v []byte) {
		t.Helper()
		db, err := bolt.Open(filepath.Join(dir, recordFile), 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = db.Update(func(tx *bolt.Tx) error {
			if v == nil {
				return tx.Bucket(bucketMeta).Delete(keyRecords)
			}
			return tx.Bucket(bucketMeta).Put(keyRecords, v)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := format(); got != "2" {
		t.Fatalf("a new store records format %q, want 2", got)
	}
	set(nil) // as a store of JSON records
	if st, err = Open(ctx, dir, Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := format(); got != "2" {
		t.Fatalf("an older store records format %q after Open, want 2", got)
	}
	set([]byte("3"))
	st, err = Open(ctx, dir, Options{NoSync: true})
	if !errors.Is(err, ErrNewerFormat) || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "format 3") || !strings.Contains(err.Error(), "agentmem export") {
		if st != nil {
			st.Close()
		}
		t.Fatalf("Open of a format 3 store: %v", err)
	}
	if got := format(); got != "3" {
		t.Fatalf("the refused store's format became %q", got)
	}
}

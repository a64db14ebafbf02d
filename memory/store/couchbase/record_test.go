package couchbase

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"agentmem/memory/hybrid"
)

// TestMemoryDocFields checks that a stored document carries the searchable
// fields under the names the index maps (memory.IndexDoc's), and the
// vectors under hybrid.FieldVector.
func TestMemoryDocFields(t *testing.T) {
	m := fixture()[0]
	raw, err := json.Marshal(newMemoryDoc(m))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	var idx map[string]any
	ri, _ := json.Marshal(hybrid.Doc(m))
	json.Unmarshal(ri, &idx)
	for f, v := range idx {
		if !reflect.DeepEqual(doc[f], v) {
			t.Errorf("field %s = %v, the index document has %v", f, doc[f], v)
		}
	}
	if doc["type"] != typeMemory {
		t.Errorf("type %v, want %q (the index maps only these)", doc["type"], typeMemory)
	}
	vec, ok := doc[hybrid.FieldVector].([]any)
	if !ok || len(vec) != len(m.Vectors) {
		t.Fatalf("%s = %v, want the %d windows as an array of arrays", hybrid.FieldVector, doc[hybrid.FieldVector], len(m.Vectors))
	}
	if _, err := time.Parse(time.RFC3339, doc["session_date"].(string)); err != nil {
		t.Errorf("session_date is not RFC 3339: %v", err)
	}
}

func TestMemoryDocRoundTrip(t *testing.T) {
	for _, m := range fixture() {
		ts := m.SessionDate.Add(time.Minute)
		m.Timestamp = &ts
		m.Speaker = "Ann"
		raw, err := json.Marshal(newMemoryDoc(m))
		if err != nil {
			t.Fatal(err)
		}
		var d memoryDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		got := d.memory()
		want := m
		want.Vectors = nil // reads hand out no vectors, as the embedded store's
		if !reflect.DeepEqual(got, want) {
			t.Errorf("round trip\n got %+v\nwant %+v", got, want)
		}
		if !reflect.DeepEqual(d.Vector, m.Vectors) {
			t.Errorf("vectors %v, want %v", d.Vector, m.Vectors)
		}
	}
}

func TestSessionDoc(t *testing.T) {
	d := sessionDoc{Type: typeSession, NS: "a", Session: "s"}.with("s:1", "s:0")
	d = d.with("s:1", "s:2")
	if want := []string{"s:0", "s:1", "s:2"}; !slices.Equal(d.IDs, want) {
		t.Errorf("ids %v, want %v", d.IDs, want)
	}
	e := d.without([]memoryDoc{{ID: "s:1", Turn: 1, Key: "k1", Hash: "h1"}, {ID: "s:9", Turn: 9}})
	if want := []string{"s:0", "s:2"}; !slices.Equal(e.IDs, want) {
		t.Errorf("ids %v, want %v", e.IDs, want)
	}
	if want := []goneTurn{{ID: "s:1", Turn: 1, Key: "k1", Hash: "h1"}, {ID: "s:9", Turn: 9}}; !slices.Equal(e.Gone, want) {
		t.Errorf("marks %+v, want %+v", e.Gone, want)
	}
	if len(d.IDs) != 3 || len(d.Gone) != 0 {
		t.Error("without changed the manifest it was called on")
	}
	// a turn put again where it was forgotten is no longer marked
	if f := e.with("s:1"); !slices.Equal(f.IDs, d.IDs) || len(f.Gone) != 1 || f.Gone[0].ID != "s:9" || len(e.Gone) != 2 {
		t.Errorf("with after without = %+v (from %+v)", f, e)
	}
	raw, _ := json.Marshal(e)
	var fields map[string]any
	json.Unmarshal(raw, &fields)
	for _, f := range []string{hybrid.FieldNamespace, hybrid.FieldSessionID, hybrid.FieldText} {
		if _, ok := fields[f]; ok {
			t.Errorf("a manifest has the indexed field %s", f)
		}
	}
}

// An import's marks join a manifest: each replaces the mark at its
// position, and one where the manifest lists a memory is left out.
func TestSessionDocMarked(t *testing.T) {
	d := sessionDoc{Type: typeSession, NS: "a", Session: "s", IDs: []string{"s:0", "s:2"}, Gone: []goneTurn{{ID: "s:1", Turn: 1, Hash: "old"}}}
	e := d.marked([]goneTurn{{ID: "s:0", Turn: 0, Hash: "live"}, {ID: "s:1", Turn: 1, Key: "k1", Hash: "new"}, {ID: "s:3", Turn: 3, Hash: "h3"}, {ID: "s:3", Turn: 3, Hash: "h3b"}})
	if want := []goneTurn{{ID: "s:1", Turn: 1, Key: "k1", Hash: "new"}, {ID: "s:3", Turn: 3, Hash: "h3b"}}; !slices.Equal(e.Gone, want) {
		t.Errorf("marks %+v, want %+v", e.Gone, want)
	}
	if !slices.Equal(e.IDs, d.IDs) || d.Gone[0].Hash != "old" {
		t.Errorf("marked changed the memories listed, or the manifest it was called on: %+v, %+v", e, d)
	}
}

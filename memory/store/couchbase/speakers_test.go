package couchbase

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"agentmem/memory"
)

// A namespace's speakers are kept for factsTTL, dropped by a write to
// that namespace, and a read that began before a write does not store
// what it read.
func TestSpeakerCache(t *testing.T) {
	var c factsCache
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if _, _, ok := c.get("alice", t0); ok {
		t.Fatal("an empty cache has speakers")
	}
	_, gen, _ := c.get("alice", t0)
	c.put("alice", nsFacts{speakers: []string{"Caroline"}}, gen, t0)
	if got, _, ok := c.get("alice", t0.Add(factsTTL-time.Second)); !ok || !slices.Equal(got.speakers, []string{"Caroline"}) {
		t.Errorf("within the TTL: %q %v, want [Caroline] true", got.speakers, ok)
	}
	if _, _, ok := c.get("bob", t0); ok {
		t.Error("another namespace has alice's speakers")
	}
	if _, _, ok := c.get("alice", t0.Add(factsTTL)); ok {
		t.Error("speakers kept past the TTL")
	}

	// a write drops them at once
	c.put("alice", nsFacts{speakers: []string{"Caroline"}}, gen, t0)
	c.drop("alice", "carol")
	if _, _, ok := c.get("alice", t0); ok {
		t.Error("speakers kept after a write to the namespace")
	}

	// a read begun before a write stores nothing; one begun after does
	_, before, _ := c.get("alice", t0)
	c.drop("alice")
	c.put("alice", nsFacts{speakers: []string{"Caroline"}}, before, t0)
	if _, _, ok := c.get("alice", t0); ok {
		t.Error("a read begun before a write stored what it read")
	}
	_, after, _ := c.get("alice", t0)
	c.put("alice", nsFacts{speakers: []string{"Caroline", "Melanie"}}, after, t0)
	if got, _, ok := c.get("alice", t0); !ok || len(got.speakers) != 2 {
		t.Errorf("a read begun after the write: %q %v", got.speakers, ok)
	}

	// expired entries are swept once the cache grows
	for i := range sweepAt {
		_, g, _ := c.get("ns", t0)
		c.put(string(rune('A'+i%26))+strconv.Itoa(i), nsFacts{}, g, t0)
	}
	later := t0.Add(factsTTL)
	_, g, _ := c.get("new", later)
	c.put("new", nsFacts{speakers: []string{"Ken"}}, g, later)
	if len(c.byNS) != 1 {
		t.Errorf("%d entries after a sweep, want 1: the expired ones dropped", len(c.byNS))
	}
}

func TestNamespacesOf(t *testing.T) {
	ms := []memory.Memory{{Namespace: "a"}, {Namespace: "b"}, {Namespace: "a"}}
	if got := namespacesOf(ms); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("namespacesOf = %q", got)
	}
}

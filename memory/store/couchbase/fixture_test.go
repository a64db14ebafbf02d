package couchbase

import (
	"math"
	"time"

	"agentmem/memory"
)

// fixture is a small history in two namespaces: the same words appear in
// both, so a query that leaks across namespaces shows.
func fixture() []memory.Memory {
	day := func(d int) time.Time { return time.Date(2024, 5, d, 9, 0, 0, 0, time.UTC) }
	mk := func(ns, sess string, date time.Time, turn int, role, text string, vec []float32) memory.Memory {
		return memory.Memory{
			ID: memory.MemoryID(sess, turn), Namespace: ns, SessionID: sess, SessionDate: date, Turn: turn,
			Role: role, Text: text, Hash: "h-" + sess + string(rune('a'+turn)),
			Vectors: [][]float32{unit(vec)}, Embedder: "fake@1", Created: date,
		}
	}
	return []memory.Memory{
		mk("alice", "s-may", day(3), 0, "user", "I adopted a dog named Biscuit from the shelter.", []float32{1, 0, 0, 0}),
		mk("alice", "s-may", day(3), 1, "assistant", "Congratulations on adopting Biscuit! Dogs need daily walks.", []float32{0.9, 0.1, 0, 0}),
		mk("alice", "s-june", day(20), 0, "user", "My sister Carol is visiting Lisbon next week.", []float32{0, 1, 0, 0}),
		mk("alice", "s-june", day(20), 1, "user", "Biscuit chewed my running shoes again.", []float32{0.7, 0, 0.7, 0}),
		mk("bob", "s-may", day(4), 0, "user", "Our dog Biscuit won the agility contest.", []float32{1, 0, 0, 0}),
		mk("bob", "s-x", day(5), 0, "user", "I am learning Portuguese for Lisbon.", []float32{0, 0.9, 0.1, 0}),
	}
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

package spec

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "memory", "1 memory"}, {0, "memory", "0 memories"}, {3, "memory", "3 memories"},
		{1, "turn", "1 turn"}, {2, "turn", "2 turns"}, {5, "problem", "5 problems"}, {2, "day", "2 days"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

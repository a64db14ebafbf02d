package main

import (
	"testing"

	"agentmem/memory/store/embedded"
)

// A list cut at its limit is counted as more than what it shows, not with
// its last line as one more problem.
func TestProblemsCount(t *testing.T) {
	cut := make([]string, 50)
	for _, c := range []struct {
		list []string
		want string
	}{
		{[]string{"a"}, "1 problem"},
		{[]string{"a", "b"}, "2 problems"},
		{append(cut, embedded.MoreProblems), "more than 50 problems"},
	} {
		if got := problems(c.list); got != c.want {
			t.Errorf("problems of %d lines = %q, want %q", len(c.list), got, c.want)
		}
	}
}

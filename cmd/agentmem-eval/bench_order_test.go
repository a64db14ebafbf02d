package main

import (
	"fmt"
	"slices"
	"testing"
)

// Every mode asks the same questions: the warm-up ones, then all of them,
// however many modes ran before it (the questions come with spare
// capacity, as the bench's do after it keeps the first --queries).
func TestBenchOrderLeavesTheQuestions(t *testing.T) {
	all := make([]string, 250)
	for i := range all {
		all[i] = fmt.Sprint("q", i)
	}
	queries := all[:100]
	want := slices.Clone(queries)
	for mode := range 5 {
		got := benchOrder(queries)
		if !slices.Equal(got[:benchWarmUp], want[:benchWarmUp]) || !slices.Equal(got[benchWarmUp:], want) {
			t.Fatalf("mode %d asks %v", mode, got)
		}
		if !slices.Equal(queries, want) {
			t.Fatalf("after mode %d the questions are %v", mode, queries)
		}
	}
	if got := benchOrder(want[:5]); !slices.Equal(got, slices.Concat(want[:5], want[:5])) {
		t.Errorf("5 questions: %v", got)
	}
}

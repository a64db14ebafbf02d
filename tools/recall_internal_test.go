package tools

import (
	"testing"

	"agentmem/tools/spec"
)

// A structured recall (format json) asks the service for each memory's
// rank on each side, which its text_rank and vector_rank report and the
// hooks' relevance floor reads: a store whose server fuses the sides
// (Couchbase) then runs them apart. A text recall does not ask.
func TestStructuredRecallAsksForRanks(t *testing.T) {
	if !recallRequest(spec.RecallArgs{Query: "q", Format: "json"}).Ranks {
		t.Error("format json: the request does not ask for the ranks")
	}
	for _, format := range []string{"", "text"} {
		if recallRequest(spec.RecallArgs{Query: "q", Format: format}).Ranks {
			t.Errorf("format %q: the request asks for the ranks", format)
		}
	}
}

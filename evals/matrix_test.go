package evals

import (
	"strings"
	"testing"
)

func TestParseConfigReranker(t *testing.T) {
	q := Question{Text: "q"}
	for name, want := range map[string]string{"base": "<nil>", "reranker=off": "false", "reranker=on+k=5": "true"} {
		c, err := ParseConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if r := c.RecallArgs(q, "ns").Reranker; r != nil {
			got = map[bool]string{true: "true", false: "false"}[*r]
		}
		if got != want {
			t.Errorf("%s: reranker %s, want %s", name, got, want)
		}
	}
	if _, err := ParseConfig("reranker=maybe"); err == nil || !strings.Contains(err.Error(), "on or off") {
		t.Errorf("reranker=maybe: %v", err)
	}
}

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

// k=auto leaves k out of the recall (the server takes one from the
// history's size); budget=k asks for the best k's space; a budget the
// tool does not know is refused before the run.
func TestParseConfigKAndBudget(t *testing.T) {
	q := Question{Text: "q"}
	for name, want := range map[string][2]any{"base": {10, ""}, "k=auto": {0, ""}, "k=auto+budget=k": {0, "k"}, "k=15+budget=chance": {15, "chance"}} {
		c, err := ParseConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		if a := c.RecallArgs(q, "ns"); a.K != want[0] || a.Budget != want[1] {
			t.Errorf("%s: k %d, budget %q; want %v, %q", name, a.K, a.Budget, want[0], want[1])
		}
	}
	if _, err := ParseConfig("budget=tokens"); err == nil || !strings.Contains(err.Error(), "chance or k") {
		t.Errorf("budget=tokens: %v", err)
	}
	if _, err := ParseConfig("k=auto+order=recency"); err == nil || !strings.Contains(err.Error(), "needs a k") {
		t.Errorf("k=auto+order=recency: %v", err)
	}
}

// A k=auto row is summarised (and charted) at the k its recalls reported,
// their median; a row with a k at that k.
func TestSummaryKOfAutoK(t *testing.T) {
	auto, err := ParseConfig("k=auto")
	if err != nil {
		t.Fatal(err)
	}
	rs := []Result{{K: 10}, {K: 17}, {K: 17}, {}}
	if got := summarizeConfig("longmemeval", auto, "scripted", rs, nil).K; got != 17 {
		t.Errorf("k=auto summarised at k %d, want 17 (the reported median)", got)
	}
	if got := summarizeConfig("longmemeval", auto, "scripted", []Result{{}}, nil).K; got != auto.K {
		t.Errorf("k=auto without reported k: %d, want %d", got, auto.K)
	}
	base := Baseline()
	if got := summarizeConfig("longmemeval", base, "scripted", rs, nil).K; got != base.K {
		t.Errorf("base summarised at k %d, want its %d", got, base.K)
	}
}

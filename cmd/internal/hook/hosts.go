package hook

import (
	"fmt"
	"strings"

	"agentmem/memory/history/claudecode"
	"agentmem/memory/history/codex"
)

// parse makes turns of a transcript's new bytes (before: the lines read
// already) with the host's reader, says on Errs which lines it could not
// read, and returns the bytes it consumed.
func (h Hook) parse(path string, data []byte, before int) ([]claudecode.Turn, int) {
	if h.Host == "codex" {
		res := codex.Parse(data, false)
		h.reportBadRollout(path, before, res)
		return res.Turns, res.Consumed
	}
	res := claudecode.Parse(data, false)
	h.reportBad(path, before, res)
	return res.Turns, res.Consumed
}

// reportBad says on stderr which lines were not JSON objects; a file of
// which no line is a transcript's is not a transcript.
func (h Hook) reportBad(path string, before int, res claudecode.Result) {
	if before == 0 && res.Lines > 0 && len(res.Bad)+res.Skipped[claudecode.Untyped] == res.Lines {
		fmt.Fprintf(h.Errs, "agentmem hook claude-code: %s is not a Claude Code transcript (none of its %d lines is a transcript's); nothing stored\n", path, res.Lines)
		return
	}
	if len(res.Bad) > 0 {
		fmt.Fprintf(h.Errs, "agentmem hook claude-code: %s: %s not JSON objects, left out; the other turns are stored\n", path, badLines(before, res.Bad))
	}
}

// reportBadRollout says on stderr which lines were not JSON; a file in
// which no line is one is not a rollout.
func (h Hook) reportBadRollout(path string, before int, res codex.Result) {
	n := len(res.Bad)
	switch {
	case n == 0:
	case n == res.Lines:
		fmt.Fprintf(h.Errs, "agentmem hook codex: %s is not a Codex rollout (no line is JSON); nothing stored\n", path)
	default:
		fmt.Fprintf(h.Errs, "agentmem hook codex: %s: %s not JSON, left out; the other turns are stored\n", path, badLines(before, res.Bad))
	}
}

// badLines names the first five bad lines (numbered from the file's
// start) and counts the others.
func badLines(before int, bad []int) string {
	n := len(bad)
	lines := make([]string, 0, min(n, 5))
	for _, b := range bad[:min(n, 5)] {
		lines = append(lines, fmt.Sprint(before+b))
	}
	what := "line(s) " + strings.Join(lines, ", ")
	if n > 5 {
		what += fmt.Sprintf(" and %d more", n-5)
	}
	return what
}

package evals

import (
	"regexp"
	"strings"
)

// header matches the line that introduces a memory in agentmem's recall
// text: "[2023-05-08 Mon · session s-may · Caroline (user)]".
var header = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} [A-Z][a-z]{2} · session [^\]]*\]$`)

// Context is what the answer model is shown of a recall: the text the
// recall tool returned, exactly; with noPrefix, the same text without the
// lines that introduce each memory with its date, session and speaker.
func Context(text string, noPrefix bool) string {
	if !noPrefix {
		return text
	}
	var out []string
	for _, b := range memoryBlocks(text) {
		if i := strings.IndexByte(b, '\n'); i >= 0 && header.MatchString(b[:i]) {
			b = b[i+1:]
		}
		out = append(out, b)
	}
	return strings.Join(out, "\n\n")
}

// firstMemories is the recall text cut to its first k memories.
func firstMemories(text string, k int) string {
	bs := memoryBlocks(text)
	if len(bs) <= k {
		return text
	}
	return strings.Join(bs[:k], "\n\n")
}

// memoryBlocks cuts a recall text into one block per memory: a block starts
// at a header line that follows a blank line (or starts the text). Text
// without headers is one block.
func memoryBlocks(text string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	start := 0
	for i := 1; i < len(lines); i++ {
		if lines[i-1] == "" && header.MatchString(lines[i]) {
			out = append(out, strings.Join(lines[start:i-1], "\n"))
			start = i
		}
	}
	return append(out, strings.Join(lines[start:], "\n"))
}

package evals

import (
	"strings"
	"time"

	"agentmem/memory"
	"agentmem/tools"
)

// Context is what the answer model is shown of the recalled memories: the
// recall tool's own text rendering, each memory introduced by its
// "[date · session · speaker]" header, or without the headers when
// noPrefix.
func Context(ms []tools.Recalled, noPrefix bool) string {
	if !noPrefix {
		hits := make([]memory.Hit, len(ms))
		for i, r := range ms {
			hits[i] = memory.Hit{Memory: asMemory(r), Score: r.Score}
		}
		return tools.Prompt(hits)
	}
	if len(ms) == 0 {
		return "No stored memories match."
	}
	texts := make([]string, len(ms))
	for i, r := range ms {
		texts[i] = r.Text
	}
	return strings.Join(texts, "\n\n")
}

// asMemory rebuilds the fields of a memory that its header shows.
func asMemory(r tools.Recalled) memory.Memory {
	date, _ := time.Parse(time.RFC3339, r.SessionDate)
	return memory.Memory{ID: r.ID, SessionID: r.SessionID, SessionDate: date, Role: r.Role, Speaker: r.Speaker, Text: r.Text}
}

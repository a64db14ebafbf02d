package evals

import (
	"strings"
	"time"

	"agentmem/memory"
	"agentmem/tools"
)

// Context is what the answer model is shown of the recalled memories: each
// memory's text, introduced by its "[date · session · speaker]" header
// unless noPrefix. With the header it is the recall tool's own text
// rendering.
func Context(ms []tools.Recalled, noPrefix bool) string {
	if len(ms) == 0 {
		return "No stored memories match."
	}
	var b strings.Builder
	for i, r := range ms {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if !noPrefix {
			b.WriteString(asMemory(r).Header())
			b.WriteByte('\n')
		}
		b.WriteString(r.Text)
	}
	return b.String()
}

// asMemory rebuilds the fields of a memory that its header shows.
func asMemory(r tools.Recalled) memory.Memory {
	date, _ := time.Parse(time.RFC3339, r.SessionDate)
	return memory.Memory{ID: r.ID, SessionID: r.SessionID, SessionDate: date, Role: r.Role, Speaker: r.Speaker, Text: r.Text}
}

package evals

import (
	"regexp"
	"strings"

	"agentmem/tools/spec"
)

// header matches the line that introduces a passage in agentmem's recall
// text: a memory alone, "[2023-05-08 Mon · session s-may · Caroline
// (user)]", or several turns of one session, "[2023-05-08 Mon · session
// s-may]", each on its own "Caroline (user): …" line ("Caroline: …" once
// the text has given Caroline that role).
var header = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} [A-Z][a-z]{2} · session [^\]]*\]$`)

// Context is what the answer model is shown of a recall: the text the
// recall tool returned, exactly; with noPrefix, the same text without the
// lines that introduce each passage with its date and session (and, for a
// memory alone, its speaker, and the role the text says there once for
// the lines after it; a passage's turns keep their speakers).
func Context(text string, noPrefix bool) string {
	if !noPrefix {
		return text
	}
	var out []string
	for _, b := range passageBlocks(text) {
		if i := strings.IndexByte(b, '\n'); i >= 0 && header.MatchString(b[:i]) {
			b = b[i+1:]
		}
		out = append(out, b)
	}
	return strings.Join(out, "\n\n")
}

// WithoutToday is recall's text without its first line, "Today is ...":
// the scripted agent puts the date it asked for at the head of its prompt
// (AnswerPrompt), as the in-process figures always have, so context
// tokens count the memories alone.
func WithoutToday(text string) string {
	if first, rest, ok := strings.Cut(text, "\n\n"); ok && strings.HasPrefix(first, "Today is ") {
		return rest
	}
	return text
}

// firstMemories is the recall text cut to its first k memories; ms are the
// recall's memories, in the order of the text (spec.Recalled.Passage
// numbers their passages). A passage of several turns is cut after the
// line of its last memory kept.
func firstMemories(text string, ms []spec.Recalled, k int) string {
	if len(ms) <= k {
		return text
	}
	blocks := passageBlocks(text)
	var out []string
	kept := 0
	for n, b := range blocks {
		in := where(ms, func(m spec.Recalled) bool { return m.Passage == n })
		if kept+len(in) <= k {
			out = append(out, b)
			kept += len(in)
			continue
		}
		if room := k - kept; room > 0 && len(in) > 1 {
			out = append(out, cutPassage(b, in, room))
		}
		break
	}
	return strings.Join(out, "\n\n")
}

// cutPassage is a passage block of several turns cut before the line of
// its memory number keep (its first keep memories and the gaps between
// them).
func cutPassage(block string, in []spec.Recalled, keep int) string {
	lines := strings.Split(block, "\n")
	next := 0 // the memory whose line is looked for
	for i := 1; i < len(lines); i++ {
		if next < len(in) && saysWho(lines[i], in[next]) {
			if next == keep {
				end := i
				if end > 1 && lines[end-1] == "…" {
					end--
				}
				return strings.Join(lines[:end], "\n")
			}
			next++
		}
	}
	return block
}

// saysWho reports whether line is m's in a passage, which names its
// speaker as "Caroline (user): " where the text first gives Caroline that
// role, "Caroline: " after it, or the role alone (memory.Memory's rule).
func saysWho(line string, m spec.Recalled) bool {
	if m.Speaker != "" && !strings.EqualFold(m.Speaker, m.Role) {
		return strings.HasPrefix(line, m.Speaker+" ("+m.Role+"): ") || strings.HasPrefix(line, m.Speaker+": ")
	}
	return strings.HasPrefix(line, m.Role+": ")
}

// passageBlocks cuts a recall text into one block per passage: a block
// starts at a header line that follows a blank line (or starts the text).
// Text without headers is one block.
func passageBlocks(text string) []string {
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

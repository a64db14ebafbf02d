// Package claudecode reads Claude Code's session transcripts (the JSON Lines
// files under ~/.claude/projects/<project>/<session>.jsonl) as conversation:
// the user's prompts and the assistant's text, verbatim, each turn with its
// own timestamp and the transcript's message uuid as its id. Everything
// that is not conversation is left out and counted by reason: tool calls
// and results, thinking, subagents' sidechains, meta and command-wrapper
// lines, and the bookkeeping lines (queue-operation, attachment, progress,
// file-history-snapshot, api-request*, tools-used, last-prompt, cost-state,
// summary, ...).
//
// The hook capture (agentmem hook claude-code) and the history import
// (agentmem import --from claude-code) both read transcripts with Parse, so
// a session captured by one and imported by the other is stored once.
//
// Claude Code writes one line per content block of a model reply; the
// blocks of one reply (one API message id) that follow each other make one
// turn, identified by the uuid of its first text line.
//
// A prompt the user typed while the model was busy is written as an
// attachment line of type queued_command (commandMode "prompt", not meta,
// of human origin), the only record of that prompt in the stored
// transcript: it is a user turn like any other (Claude Code's own readers
// count it as the user's: it shows it to remote clients as a user
// message, and its human-turn test accepts it).
package claudecode

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"agentmem/memory/history"
)

// Turn is one conversation turn of a transcript: its ID the uuid of the
// transcript line (of a reply's first text line), Session Claude Code's
// session id and CWD the project directory.
type Turn = history.Turn

// Skipped counts the lines and blocks left out, by reason.
type Skipped = history.Skipped

// Result is what Parse read.
type Result struct {
	Turns   []Turn
	Skipped Skipped
	// Consumed is how many bytes of the input were read: every complete
	// line. A last line without its newline (a transcript being written)
	// is left for the next read, unless final.
	Consumed int
	// Lines counts the complete lines read that are not blank, and Bad
	// lists the 1-based numbers (counted from the start of the input) of
	// those that are not JSON objects.
	Lines int
	Bad   []int
}

// Untyped is the reason of the JSON objects without a type, which no
// transcript line is: input whose every line is Bad or Untyped is not a
// transcript.
const Untyped = "line without a type"

// OwnLine is the reason of a line of a type Claude Code writes for itself
// (a summary, a file snapshot, its request bookkeeping), named so that a
// user reading an import's report knows it is not conversation.
func OwnLine(typ string) string { return "Claude Code's own " + typ + " line" }

// line is the part of a transcript line Parse reads.
type line struct {
	Type             string    `json:"type"`
	UUID             string    `json:"uuid"`
	SessionID        string    `json:"sessionId"`
	CWD              string    `json:"cwd"`
	Timestamp        time.Time `json:"timestamp"`
	IsSidechain      bool      `json:"isSidechain"`
	IsMeta           bool      `json:"isMeta"`
	IsCompactSummary bool      `json:"isCompactSummary"`
	TranscriptOnly   bool      `json:"isVisibleInTranscriptOnly"`
	IsAPIError       bool      `json:"isApiErrorMessage"`
	Attachment       *queued   `json:"attachment"`
	Message          *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// queued is the part of an attachment line Parse reads: a queued_command
// is a prompt queued while the model was busy (commandMode "prompt"), a
// shell command ("bash") or a task's notice; origin says who wrote it.
type queued struct {
	Type        string          `json:"type"`
	Prompt      json.RawMessage `json:"prompt"`
	CommandMode string          `json:"commandMode"`
	IsMeta      bool            `json:"isMeta"`
	Origin      *struct {
		Kind string `json:"kind"`
	} `json:"origin"`
}

// typedPrompt says whether an attachment line is a prompt the user typed
// while the model was busy: a queued_command in prompt mode (the mode
// absent: older versions), not meta, of no origin or a human one.
func (l line) typedPrompt() bool {
	a := l.Attachment
	return l.Type == "attachment" && a != nil && a.Type == "queued_command" &&
		(a.CommandMode == "prompt" || a.CommandMode == "") && !a.IsMeta &&
		(a.Origin == nil || a.Origin.Kind == "human") && len(a.Prompt) > 0
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Parse reads the complete lines of data (a transcript, or the part of one
// after what an earlier Parse consumed). final reads a last line that has
// no newline too (a whole file read for import, not one being written).
func Parse(data []byte, final bool) Result {
	res := Result{Skipped: Skipped{}}
	p := parser{res: &res}
	res.Consumed = history.EachLine(data, final, p.line)
	p.flush()
	return res
}

type parser struct {
	res *Result
	// reply is the assistant turn being joined from its blocks, and msgID
	// its API message id.
	reply *Turn
	msgID string
}

func (p *parser) skip(reason string) { p.res.Skipped[reason]++ }

func (p *parser) flush() {
	switch {
	case p.reply == nil:
	case strings.TrimSpace(p.reply.Text) == "":
		p.skip("empty")
	default:
		p.res.Turns = append(p.res.Turns, *p.reply)
	}
	p.reply, p.msgID = nil, ""
}

func (p *parser) line(raw []byte, n int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	p.res.Lines++
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		if raw[0] == '{' && json.Valid(raw) {
			// an object whose field Parse reads is of another type or
			// form than it knows: a transcript line all the same
			p.skip(history.WrongField(err, "timestamp"))
			return
		}
		p.res.Bad = append(p.res.Bad, n)
		p.skip("not a JSON object")
		return
	}
	if l.typedPrompt() && !l.IsSidechain && l.UUID != "" {
		p.flush()
		texts, other := blocks(l.Attachment.Prompt)
		p.said(l, texts, other)
		return
	}
	if reason := leftOut(l); reason != "" {
		if l.Type == "user" {
			p.flush() // a tool result ends the reply before it
		}
		p.skip(reason)
		return
	}
	switch l.Type {
	case "user":
		p.flush()
		p.user(l)
	case "assistant":
		p.assistant(l)
	}
}

// leftOut says why a line is not conversation, or "".
func leftOut(l line) string {
	switch {
	case l.Type != "user" && l.Type != "assistant":
		if l.Type == "" {
			return Untyped
		}
		return OwnLine(l.Type)
	case l.Message == nil:
		return "line without a message"
	case l.IsSidechain:
		return "sidechain (subagent)"
	case l.IsCompactSummary: // before meta: it is also transcript-only
		return "compaction summary"
	case l.IsMeta, l.TranscriptOnly:
		return "meta"
	case l.IsAPIError || l.Message.Model == "<synthetic>":
		return "synthetic message"
	case l.UUID == "":
		return "line without a uuid"
	}
	return ""
}

func (p *parser) user(l line) {
	texts, other := blocks(l.Message.Content)
	if other["tool_result"] > 0 {
		p.skip("tool result")
		return
	}
	p.said(l, texts, other)
}

// said adds the user's turn of a line whose texts are the user's words,
// but for wrappers and notices; other counts its other blocks.
func (p *parser) said(l line, texts []string, other map[string]int) {
	p.countOther(other)
	text := strings.Join(texts, "\n\n")
	if reason := NotSaid(text); reason != "" {
		p.skip(reason)
		return
	}
	p.res.Turns = append(p.res.Turns, Turn{ID: l.UUID, Role: "user", Text: text, Time: l.Timestamp, Session: l.SessionID, CWD: l.CWD})
}

func (p *parser) assistant(l line) {
	texts, other := blocks(l.Message.Content)
	p.countOther(other)
	if len(texts) == 0 && len(other) == 0 {
		p.skip("empty")
	}
	if len(texts) == 0 {
		return // a tool call or thinking block between the reply's texts
	}
	text := strings.Join(texts, "\n\n")
	if p.reply != nil && l.Message.ID != "" && l.Message.ID == p.msgID {
		p.reply.Text += "\n\n" + text
		return
	}
	p.flush()
	p.reply = &Turn{ID: l.UUID, Role: "assistant", Text: text, Time: l.Timestamp, Session: l.SessionID, CWD: l.CWD}
	p.msgID = l.Message.ID
}

func (p *parser) countOther(other map[string]int) {
	for t, n := range other {
		p.res.Skipped[t+" block"] += n
	}
}

// blocks returns the text of content's text blocks (a plain string is
// one), and counts the other blocks by type.
func blocks(content json.RawMessage) ([]string, map[string]int) {
	// the first byte says which (no decoding of a huge tool result as a
	// string first, to fail at its end)
	var s string
	if c := bytes.TrimLeft(content, " \t\r\n"); len(c) > 0 && c[0] == '"' && json.Unmarshal(c, &s) == nil {
		return []string{s}, nil
	}
	var bs []block
	if json.Unmarshal(content, &bs) != nil {
		return nil, map[string]int{"unreadable content": 1}
	}
	var texts []string
	other := map[string]int{}
	for _, b := range bs {
		if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
			texts = append(texts, b.Text)
		} else if b.Type == "text" {
			other["system-reminder"]++
		} else {
			other[b.Type]++
		}
	}
	return texts, other
}

// wrappers start the lines Claude Code writes for slash commands, shell
// escapes and their output: the user's words are not in them.
var wrappers = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
	"<local-command-stderr>", "<local-command-caveat>", "<bash-input>", "<bash-stdout>",
	"<bash-stderr>", "<user-memory-input>", "<task-notification>",
}

// NotSaid says why a user text is not something the user said, or "":
// a slash command's or a shell escape's wrapper, a background task's
// notification, an interruption notice. The hooks give such a prompt no
// memories.
func NotSaid(text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return "empty"
	case strings.HasPrefix(t, "[Request interrupted by user"):
		return "interruption notice"
	}
	for _, w := range wrappers {
		if strings.HasPrefix(t, w) {
			return "command wrapper"
		}
	}
	return ""
}

// Package codex reads Codex CLI's session rollouts (the JSON Lines files
// under ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl) as
// conversation: what the user typed and the assistant's replies, verbatim,
// each turn with its own timestamp and a stable id.
//
// A rollout holds two logs, interleaved: response_item lines are what the
// model was sent (with the context Codex injects: environment, AGENTS.md,
// skills, hook output), event_msg lines what the user saw. Parse reads the
// second one: the item_completed events of UserMessage and AgentMessage
// items (Codex 0.171), and the user_message / agent_message events of
// older releases. Everything else is left out and counted by reason: the
// model-side log, tool calls and their output (commands, MCP calls, file
// changes, web searches), reasoning, and the bookkeeping lines
// (session_meta, turn_context, world_state, token counts, task events).
//
// A user turn's id is its item id (a UUID); an assistant turn's is the
// turn id and the model's message id (the model's ids are unique only in
// their turn), so a rollout read again, or resumed (Codex appends to the
// same file), yields the same ids. Events without ids (older releases) get
// one from their timestamp, role and text.
//
// Rollouts written before the envelope of timestamp, type and payload
// (Codex CLI until mid-2025) are read too: their first line is the
// session's meta ({"id", "timestamp", "instructions", maybe "git"}), then
// lines {"record_type": "state"} and the model-side items as they are,
// with neither timestamp nor event. There the user's and the assistant's
// message items are the conversation, save the context Codex injects as
// user messages (environment_context, user_instructions, AGENTS.md), left
// out and counted; function calls, their output and reasoning are left
// out and counted by type. Every turn has the meta's timestamp (the
// session's start: its lines have none), and an id made of it, the role,
// the text and how many times the same text was said before in the file:
// such a rollout is read whole (Codex no longer writes it, so no hook
// reads one as it grows).
package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"agentmem/memory/history"
)

// Result is what Parse read.
type Result struct {
	Turns   []history.Turn
	Skipped history.Skipped
	// Consumed is how many bytes of the input were read: every complete
	// line. A last line without its newline (a rollout being written) is
	// left for the next read, unless final.
	Consumed int
	// Bad lists the 1-based numbers (counted from the start of the input)
	// of lines that are not JSON objects.
	Bad []int
	// Lines is how many lines were read.
	Lines int
}

// line is the part of a rollout line Parse reads.
type line struct {
	Timestamp time.Time       `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// an older rollout's: its meta line's id, its state lines' record_type
	ID         json.RawMessage `json:"id"`
	RecordType string          `json:"record_type"`
}

// oldItem is the part of an older rollout's item line (a model-side item,
// without the envelope) Parse reads.
type oldItem struct {
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

type event struct {
	Type    string `json:"type"`
	TurnID  string `json:"turn_id"`
	Message string `json:"message"` // user_message, agent_message
	Kind    string `json:"kind"`    // user_message: "plain", ...
	Item    *struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

type sessionMeta struct {
	ID  string `json:"id"`
	CWD string `json:"cwd"`
	// Time is an older rollout's meta's timestamp: the time of its turns.
	Time time.Time `json:"-"`
}

// parser is what Parse knows of the lines before the one it reads.
type parser struct {
	meta    sessionMeta
	skipped history.Skipped
	// said counts the turns of an older rollout by role and text (their
	// ids tell a text said again from the first time).
	said map[string]int
}

// Parse reads the complete lines of data (a rollout, or the part of one
// after what an earlier Parse consumed). final reads a last line that has
// no newline too (a whole file read for import, not one being written).
func Parse(data []byte, final bool) Result {
	res := Result{Skipped: history.Skipped{}}
	p := parser{skipped: res.Skipped, said: map[string]int{}}
	res.Consumed = history.EachLine(data, final, func(l []byte, n int) {
		res.Lines = n
		if len(bytes.TrimSpace(l)) == 0 {
			return // a blank line: nothing
		}
		t, reason := p.readLine(l)
		switch {
		case reason == "not JSON":
			res.Bad = append(res.Bad, n)
			res.Skipped[reason]++
		case reason != "":
			res.Skipped[reason]++
		default:
			res.Turns = append(res.Turns, t)
		}
	})
	return res
}

// readLine returns the line's turn, or why it is not one.
func (p *parser) readLine(raw []byte) (history.Turn, string) {
	meta := &p.meta
	raw = bytes.TrimSpace(raw)
	var l line
	if raw[0] != '{' {
		return history.Turn{}, "not JSON"
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		if json.Valid(raw) {
			return history.Turn{}, history.WrongField(err, "timestamp")
		}
		return history.Turn{}, "not JSON"
	}
	if l.Payload == nil && l.Timestamp.IsZero() && l.Type != "" {
		return p.oldItem(raw, l.Type)
	}
	switch l.Type {
	case "event_msg":
	case "session_meta":
		json.Unmarshal(l.Payload, meta)
		return history.Turn{}, l.Type
	case "response_item":
		return history.Turn{}, "model-side log (response_item)"
	case "":
		return p.oldBookkeeping(l)
	default:
		return history.Turn{}, l.Type
	}
	var ev event
	if json.Unmarshal(l.Payload, &ev) != nil {
		return history.Turn{}, "unreadable event"
	}
	t, reason := turnOf(ev, l.Timestamp)
	if reason != "" {
		return history.Turn{}, reason
	}
	if strings.TrimSpace(t.Text) == "" {
		return history.Turn{}, "empty"
	}
	t.Time, t.Session, t.CWD = l.Timestamp, meta.ID, meta.CWD
	return t, ""
}

// oldBookkeeping reads a line without a type: an older rollout's meta
// (its first line) or state, or why it is neither.
func (p *parser) oldBookkeeping(l line) (history.Turn, string) {
	var id string
	switch {
	case l.RecordType != "":
		return history.Turn{}, "record_type " + l.RecordType
	case l.Payload == nil && json.Unmarshal(l.ID, &id) == nil && id != "" && !l.Timestamp.IsZero():
		p.meta.ID, p.meta.Time = id, l.Timestamp
		return history.Turn{}, "session_meta"
	}
	return history.Turn{}, "line without a type"
}

// injected are the beginnings of the user messages of an older rollout
// that are the context Codex injects, not what the user typed, by name.
var injected = []struct{ prefix, name string }{
	{"<environment_context>", "environment_context"},
	{"<user_instructions>", "user_instructions"},
	{"# AGENTS.md instructions for ", "AGENTS.md instructions"},
}

// cwdTag is the project directory in an environment_context.
var cwdTag = regexp.MustCompile(`<cwd>([^<]*)</cwd>`)

// oldItem reads an older rollout's item line of type typ: the turn of a
// user's or an assistant's message, or why it holds none.
func (p *parser) oldItem(raw []byte, typ string) (history.Turn, string) {
	if typ != "message" {
		return history.Turn{}, "item " + typ // reasoning, function calls and their output, ...
	}
	var it oldItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return history.Turn{}, history.WrongField(err, "timestamp")
	}
	if it.Role != "user" && it.Role != "assistant" {
		return history.Turn{}, fmt.Sprintf("message of role %q", it.Role)
	}
	var parts, contexts []string // its text, and the context Codex injected in it
	for _, c := range it.Content {
		if c.Type != "input_text" && c.Type != "output_text" && c.Type != "text" {
			p.skipped[c.Type+" part"]++
			continue
		}
		if name := injectedName(it.Role, c.Text); name != "" {
			if m := cwdTag.FindStringSubmatch(c.Text); m != nil && name == "environment_context" && p.meta.CWD == "" {
				p.meta.CWD = strings.TrimSpace(m[1])
			}
			contexts = append(contexts, "context Codex injects ("+name+")")
			continue
		}
		parts = append(parts, c.Text)
	}
	sep := "" // an assistant message's parts are pieces of one text
	if it.Role == "user" {
		sep = "\n\n" // a user message's text parts are separate inputs
	}
	text := strings.Join(parts, sep)
	if strings.TrimSpace(text) == "" {
		if len(contexts) == 0 {
			return history.Turn{}, "empty"
		}
		// the line's reason is its last context, the others counted here
		for _, c := range contexts[:len(contexts)-1] {
			p.skipped[c]++
		}
		return history.Turn{}, contexts[len(contexts)-1]
	}
	for _, c := range contexts {
		p.skipped[c]++
	}
	p.said[it.Role+"\x00"+text]++
	who := it.Role
	if n := p.said[it.Role+"\x00"+text]; n > 1 {
		who = fmt.Sprintf("%s#%d", it.Role, n)
	}
	return history.Turn{ID: derivedID(p.meta.Time, who, text), Role: it.Role, Text: text, Time: p.meta.Time, Session: p.meta.ID, CWD: p.meta.CWD}, ""
}

// injectedName names the context Codex injects that a user message's text
// is, or "".
func injectedName(role, text string) string {
	if role != "user" {
		return ""
	}
	text = strings.TrimLeft(text, " \t\r\n")
	for _, in := range injected {
		if strings.HasPrefix(text, in.prefix) {
			return in.name
		}
	}
	return ""
}

// turnOf is the turn an event_msg holds, or why it holds none.
func turnOf(ev event, ts time.Time) (history.Turn, string) {
	switch ev.Type {
	case "item_completed":
		return itemTurn(ev)
	case "user_message":
		if ev.Kind != "" && ev.Kind != "plain" {
			return history.Turn{}, "user_message " + ev.Kind
		}
		return history.Turn{ID: derivedID(ts, "user", ev.Message), Role: "user", Text: ev.Message}, ""
	case "agent_message":
		return history.Turn{ID: derivedID(ts, "assistant", ev.Message), Role: "assistant", Text: ev.Message}, ""
	case "":
		return history.Turn{}, "event without a type"
	}
	return history.Turn{}, "event " + ev.Type
}

func itemTurn(ev event) (history.Turn, string) {
	it := ev.Item
	if it == nil {
		return history.Turn{}, "item_completed without an item"
	}
	var role string
	switch it.Type {
	case "UserMessage":
		role = "user"
	case "AgentMessage":
		role = "assistant"
	default:
		return history.Turn{}, "item " + it.Type // tool calls, reasoning, file changes, ...
	}
	var parts []string
	for _, c := range it.Content {
		if strings.EqualFold(c.Type, "text") {
			parts = append(parts, c.Text)
		}
	}
	sep := "" // an agent message's parts are pieces of one text
	if role == "user" {
		sep = "\n\n" // a user message's text parts are separate inputs
	}
	t := history.Turn{Role: role, Text: strings.Join(parts, sep)}
	switch {
	case it.ID == "":
		t.ID = derivedID(time.Time{}, role+ev.TurnID, t.Text)
	case role == "assistant" && ev.TurnID != "":
		t.ID = ev.TurnID + "/" + it.ID
	default:
		t.ID = it.ID
	}
	return t, ""
}

// derivedID is the id of a turn without one: a hash of when it was said,
// by whom, and what.
func derivedID(ts time.Time, role, text string) string {
	sum := sha256.Sum256([]byte(ts.UTC().Format(time.RFC3339Nano) + "\x00" + role + "\x00" + text))
	return fmt.Sprintf("codex-%x", sum[:12])
}

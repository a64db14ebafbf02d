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
package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
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
}

// Parse reads the complete lines of data (a rollout, or the part of one
// after what an earlier Parse consumed). final reads a last line that has
// no newline too (a whole file read for import, not one being written).
func Parse(data []byte, final bool) Result {
	res := Result{Skipped: history.Skipped{}}
	var meta sessionMeta
	res.Consumed = history.EachLine(data, final, func(l []byte, n int) {
		res.Lines = n
		if len(bytes.TrimSpace(l)) == 0 {
			return // a blank line: nothing
		}
		t, reason := readLine(l, &meta)
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
func readLine(raw []byte, meta *sessionMeta) (history.Turn, string) {
	raw = bytes.TrimSpace(raw)
	var l line
	if raw[0] != '{' {
		return history.Turn{}, "not JSON"
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		if json.Valid(raw) {
			return history.Turn{}, history.WrongField(err)
		}
		return history.Turn{}, "not JSON"
	}
	switch l.Type {
	case "event_msg":
	case "session_meta":
		json.Unmarshal(l.Payload, meta)
		return history.Turn{}, l.Type
	case "response_item":
		return history.Turn{}, "model-side log (response_item)"
	case "":
		return history.Turn{}, "line without a type"
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

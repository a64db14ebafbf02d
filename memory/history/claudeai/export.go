// Package claudeai reads Claude.ai's data export (conversations.json, in
// the zip Claude.ai mails, or taken out of it) as conversation: each
// conversation one session, its chat_messages from the human and the
// assistant verbatim (their text content blocks; a message without
// content blocks, as older exports write them, by its text), each turn
// with its own created_at and its message uuid as its id. Tool calls and
// results, thinking, attachments and files are left out and counted by
// reason. Where messages carry parent_message_uuid, the branch of the
// conversation's last message is followed, and edited or regenerated
// branches are left out.
//
// Read streams the file's top-level array one conversation at a time.
package claudeai

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"agentmem/memory/history/internal/jsonarray"
)

// Turn is one conversation turn.
type Turn struct {
	ID   string // the message uuid
	Role string // "user" or "assistant"
	Text string
	Time time.Time // zero when the message has no created_at
}

// Conversation is one conversation of the export.
type Conversation struct {
	Index  int   // 1-based place in the file
	Offset int64 // the byte it starts at
	ID     string
	Title  string
	Create time.Time // the conversation's created_at
	Turns  []Turn
	// Skipped counts the messages and blocks left out, by reason.
	Skipped map[string]int
}

// Error is a conversation the export cannot be read past: it names the
// conversation and the field.
type Error struct {
	Index  int
	ID     string
	Field  string
	Reason string
}

func (e *Error) Error() string {
	id := ""
	if e.ID != "" {
		id = " (uuid " + e.ID + ")"
	}
	return fmt.Sprintf("conversation %d%s: %s %s", e.Index, id, e.Field, e.Reason)
}

// DateOutOfRange is the reason of a time no memory can hold (dates from
// 1678 to 2261): the turn is left out.
const DateOutOfRange = "date out of range"

type conversation struct {
	UUID         string     `json:"uuid"`
	Name         *string    `json:"name"`
	CreatedAt    string     `json:"created_at"`
	ChatMessages *[]message `json:"chat_messages"`
	// Mapping is the field of a ChatGPT export, to say so.
	Mapping json.RawMessage `json:"mapping"`
}

type message struct {
	UUID        string            `json:"uuid"`
	Text        string            `json:"text"`
	Content     []block           `json:"content"`
	Sender      string            `json:"sender"`
	CreatedAt   string            `json:"created_at"`
	Parent      string            `json:"parent_message_uuid"`
	Attachments []json.RawMessage `json:"attachments"`
	Files       []json.RawMessage `json:"files"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Read calls fn with each conversation of the export r holds, in order.
// A file that is not a Claude.ai export (another JSON, a ChatGPT export),
// cut short, or with a conversation whose fields have the wrong types is
// an error naming the conversation and the field; an error of fn ends the
// reading and is returned as it is.
func Read(r io.Reader, fn func(Conversation) error) error {
	return jsonarray.Each(r, func(i int, at int64, raw json.RawMessage) error {
		c, err := parse(i+1, raw)
		if err != nil {
			return err
		}
		c.Offset = at
		return fn(c)
	})
}

func parse(index int, raw json.RawMessage) (Conversation, error) {
	var v conversation
	if len(raw) == 0 || raw[0] != '{' {
		return Conversation{}, &Error{Index: index, Field: "the element", Reason: "is not a JSON object: this is not a Claude.ai export"}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		field := "the conversation"
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			field = te.Field
		}
		return Conversation{}, &Error{Index: index, ID: v.UUID, Field: field, Reason: "has the wrong type (" + err.Error() + ")"}
	}
	if v.ChatMessages == nil {
		reason := "is missing: this is not a Claude.ai export"
		if v.Mapping != nil {
			reason = "is missing and it has a mapping: this is a ChatGPT export (use --from chatgpt)"
		}
		return Conversation{}, &Error{Index: index, ID: v.UUID, Field: "chat_messages", Reason: reason}
	}
	if v.UUID == "" {
		return Conversation{}, &Error{Index: index, Field: "uuid", Reason: "is missing"}
	}
	c := Conversation{Index: index, ID: v.UUID, Skipped: map[string]int{}}
	if v.Name != nil {
		c.Title = *v.Name
	}
	c.Create, _, _ = when(v.CreatedAt)
	for _, m := range branch(*v.ChatMessages, c.Skipped) {
		c.turn(m)
	}
	return c, nil
}

// branch returns the messages of the conversation's last message's
// branch, in order: all of them when none has a parent_message_uuid.
func branch(ms []message, skipped map[string]int) []message {
	byID := map[string]int{}
	linked := false
	for i, m := range ms {
		if m.UUID != "" {
			byID[m.UUID] = i
		}
		linked = linked || m.Parent != ""
	}
	if !linked || len(ms) == 0 {
		return ms
	}
	on := make([]bool, len(ms))
	for i := len(ms) - 1; ; {
		if on[i] {
			break // a cycle
		}
		on[i] = true
		j, ok := byID[ms[i].Parent]
		if !ok {
			break // the root (its parent is a made-up uuid) or a missing one
		}
		i = j
	}
	var out []message
	for i, m := range ms {
		if on[i] {
			out = append(out, m)
		} else {
			skipped["other branch (edited or regenerated)"]++
		}
	}
	return out
}

var roles = map[string]string{"human": "user", "user": "user", "assistant": "assistant"}

func (c *Conversation) turn(m message) {
	role, ok := roles[m.Sender]
	if !ok {
		c.Skipped[fmt.Sprintf("message of sender %q", m.Sender)]++
		return
	}
	if k := len(m.Attachments) + len(m.Files); k > 0 {
		c.Skipped["attachment or file (its content is not imported)"] += k
	}
	text := c.text(m)
	if strings.TrimSpace(text) == "" {
		c.Skipped["empty message"]++
		return
	}
	t, ok, readable := when(m.CreatedAt)
	switch {
	case !readable:
		c.Skipped["created_at unreadable (the turn is kept without its time)"]++
	case !ok:
		c.Skipped[DateOutOfRange]++
		return
	}
	c.Turns = append(c.Turns, Turn{ID: m.UUID, Role: role, Text: text, Time: t})
}

// text joins the message's text blocks, counting the others by type; a
// message without blocks is its text.
func (c *Conversation) text(m message) string {
	if len(m.Content) == 0 {
		return m.Text
	}
	var texts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
			continue
		}
		c.Skipped[b.Type+" block"]++
	}
	return strings.Join(texts, "\n\n")
}

var (
	minTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// when reads a created_at: the zero time for none; ok false for a time
// out of range, readable false for one that is not RFC 3339.
func when(s string) (t time.Time, ok, readable bool) {
	if s == "" {
		return time.Time{}, true, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, true, false
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, false, true
	}
	return t, true, true
}

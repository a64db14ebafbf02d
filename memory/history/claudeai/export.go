// Package claudeai reads Claude.ai's data export (conversations.json, in
// the zip Claude.ai mails, or taken out of it) as conversation: each
// conversation one session, its chat_messages from the human and the
// assistant verbatim (their text content blocks; a message without
// content blocks, as older exports write them, by its text), each turn
// with its own created_at and its message uuid as its id; the text of an
// attachment (a long paste, which Claude.ai keeps as one, or a document)
// is part of its message, after what was typed. Tool calls and results,
// thinking, and the attachments and files without their text in the
// export (images) are left out and counted by reason. Where messages
// carry parent_message_uuid, the branch of the conversation's last
// message is followed, and edited or regenerated branches are left out.
//
// Read streams the file's top-level array one conversation at a time.
package claudeai

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"agentmem/memory/history"
)

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
func Read(r io.Reader, fn func(history.Conversation) error) error {
	return history.ReadExport(r, parse, fn)
}

func parse(index int, raw json.RawMessage) (history.Conversation, error) {
	var v conversation
	if len(raw) == 0 || raw[0] != '{' {
		return history.Conversation{}, &history.Error{Index: index, IDName: "uuid", Field: "the element", Reason: "is not a JSON object: this is not a Claude.ai export"}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return history.Conversation{}, history.WrongType(index, "uuid", v.UUID, err)
	}
	if v.ChatMessages == nil {
		reason := "is missing: this is not a Claude.ai export"
		if v.Mapping != nil {
			reason = "is missing and it has a mapping: this is a ChatGPT export (use --from chatgpt)"
		}
		return history.Conversation{}, &history.Error{Index: index, IDName: "uuid", ID: v.UUID, Field: "chat_messages", Reason: reason}
	}
	if v.UUID == "" {
		return history.Conversation{}, &history.Error{Index: index, IDName: "uuid", Field: "uuid", Reason: "is missing"}
	}
	c := history.Conversation{Index: index, ID: v.UUID, Skipped: history.Skipped{}}
	if v.Name != nil {
		c.Title = *v.Name
	}
	c.Create, _, _ = when(v.CreatedAt)
	for _, m := range branch(*v.ChatMessages, c.Skipped) {
		turn(&c, m)
	}
	return c, nil
}

// branch returns the messages of the conversation's last message's
// branch, in order: all of them when none has a parent_message_uuid.
func branch(ms []message, skipped history.Skipped) []message {
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

func turn(c *history.Conversation, m message) {
	role, ok := roles[m.Sender]
	if !ok {
		c.Skipped[fmt.Sprintf("message of sender %q", m.Sender)]++
		return
	}
	text := messageText(c, m)
	if pasted := attached(c, m); pasted != "" {
		if strings.TrimSpace(text) == "" {
			text = pasted
		} else {
			text += "\n\n" + pasted
		}
	}
	if strings.TrimSpace(text) == "" {
		c.Skipped["empty message"]++
		return
	}
	t, ok, readable := when(m.CreatedAt)
	switch {
	case !readable:
		c.Skipped["created_at unreadable (the turn is kept without its time)"]++
	case !ok:
		c.Skipped[history.DateOutOfRange]++
		return
	}
	c.Turns = append(c.Turns, history.Turn{ID: m.UUID, Role: role, Text: text, Time: t})
}

// attached is the text of the message's attachments that hold their
// extracted_content (a long paste, or a document's text): what the user
// gave the model, each after a blank line, under its file name when it
// has one ("[notes.txt]"). The other attachments and the files (images)
// are left out and counted.
func attached(c *history.Conversation, m message) string {
	var texts []string
	for _, raw := range m.Attachments {
		var a struct {
			FileName         string `json:"file_name"`
			ExtractedContent string `json:"extracted_content"`
		}
		if json.Unmarshal(raw, &a) != nil || strings.TrimSpace(a.ExtractedContent) == "" {
			c.Skipped[leftOutFile]++
			continue
		}
		if a.FileName != "" {
			a.ExtractedContent = "[" + a.FileName + "]\n" + a.ExtractedContent
		}
		texts = append(texts, a.ExtractedContent)
	}
	if len(m.Files) > 0 {
		c.Skipped[leftOutFile] += len(m.Files)
	}
	return strings.Join(texts, "\n\n")
}

// leftOutFile is the reason an attachment or a file is left out.
const leftOutFile = "attachment or file (its content is not imported)"

// messageText joins the message's text blocks, counting the others by type; a
// message without blocks is its text.
func messageText(c *history.Conversation, m message) string {
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
	if t.Before(history.MinTime) || !t.Before(history.MaxTime) {
		return time.Time{}, false, true
	}
	return t, true, true
}

// Package chatgpt reads ChatGPT's data export (conversations.json, in the
// zip ChatGPT mails, or taken out of it; a newer export's shards,
// conversations-000.json, conversations-001.json, …, one after the other
// with a Reader) as conversation: each
// conversation one session, the branch the user ended on (current_node up
// through parent; the branches left by an edit or a regeneration are left
// out), the user's and the assistant's text verbatim, each turn with its
// own create_time and its node id as its id; a voice conversation's turns
// are their transcriptions (audio_transcription parts). System, tool and
// hidden messages, tool calls, code, browsing and reasoning parts, images,
// audio and attachments are left out and counted by reason, and so is a
// conversation without a mapping (exported without its messages).
//
// Read streams the file's top-level array one conversation at a time, so
// an export of hundreds of MB is never held whole.
package chatgpt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"agentmem/memory/history"
)

type conversation struct {
	ID             string          `json:"id"`
	ConversationID string          `json:"conversation_id"`
	Title          *string         `json:"title"`
	CreateTime     *float64        `json:"create_time"`
	CurrentNode    *string         `json:"current_node"`
	Mapping        map[string]node `json:"mapping"`
	// ChatMessages is the field of a Claude.ai export, to say so.
	ChatMessages json.RawMessage `json:"chat_messages"`
}

type node struct {
	ID       string   `json:"id"`
	Message  *message `json:"message"`
	Parent   *string  `json:"parent"`
	Children []string `json:"children"`
}

type message struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
	} `json:"content"`
	Recipient string `json:"recipient"`
	Metadata  struct {
		Hidden      bool              `json:"is_visually_hidden_from_conversation"`
		Attachments []json.RawMessage `json:"attachments"`
	} `json:"metadata"`
}

// Read calls fn with each conversation of the export r holds, in order.
// A file that is not a ChatGPT export (another JSON, a Claude.ai export,
// an array none of whose conversations has a mapping), cut short, or with
// a conversation whose fields have the wrong types is an error naming the
// conversation and the field; an error of fn ends the reading and is
// returned as it is. A conversation without a mapping (ChatGPT writes
// "mapping": null now and then) is passed to fn left out (LeftOut, its
// Skipped saying why), unless none of the file has one: then Read returns
// the first one's error, after fn was called with every conversation.
func Read(r io.Reader, fn func(history.Conversation) error) error {
	var x Reader
	if err := x.Read(r, fn); err != nil {
		return err
	}
	return x.Err()
}

// A Reader reads the files of one export in turn as one export (the
// shards conversations-000.json, conversations-001.json, … of a newer
// export): a conversation without a mapping is left out unless no
// conversation of any of the files has one.
type Reader struct {
	mapped   bool           // a conversation had a mapping
	unmapped *history.Error // the first conversation without one
}

// Read reads one file of the export as the package's Read does, but for
// the check that some conversation has a mapping, which Err makes once
// every file is read.
func (x *Reader) Read(r io.Reader, fn func(history.Conversation) error) error {
	return history.ReadExport(r, x.parse, fn)
}

// Err is the error of an export read so far none of whose conversations
// has a mapping (it is not a ChatGPT export), or nil.
func (x *Reader) Err() error {
	if x.mapped || x.unmapped == nil {
		return nil
	}
	return x.unmapped
}

// withoutMapping is the reason a conversation without a mapping is left out.
const withoutMapping = "conversation without a mapping (no messages in the export)"

func (x *Reader) parse(index int, raw json.RawMessage) (history.Conversation, error) {
	var v conversation
	if len(raw) == 0 || raw[0] != '{' {
		return history.Conversation{}, &history.Error{Index: index, IDName: "id", Field: "the element", Reason: "is not a JSON object: this is not a ChatGPT export"}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return history.Conversation{}, history.WrongType(index, "id", v.ID, err)
	}
	id := cmp.Or(v.ID, v.ConversationID)
	if v.Mapping == nil {
		if v.ChatMessages != nil {
			return history.Conversation{}, &history.Error{Index: index, IDName: "id", ID: id, Field: "mapping", Reason: "is missing and it has chat_messages: this is a Claude.ai export (use --from claude-ai)"}
		}
		if x.unmapped == nil {
			x.unmapped = &history.Error{Index: index, IDName: "id", ID: id, Field: "mapping", Reason: "is missing: this is not a ChatGPT export (none of its conversations has one)"}
		}
		return history.Conversation{Index: index, ID: id, LeftOut: true, Skipped: history.Skipped{withoutMapping: 1}}, nil
	}
	x.mapped = true
	if id == "" {
		return history.Conversation{}, &history.Error{Index: index, IDName: "id", Field: "id", Reason: "is missing (and conversation_id too)"}
	}
	c := history.Conversation{Index: index, ID: id, Skipped: history.Skipped{}}
	if v.Title != nil {
		c.Title = *v.Title
	}
	c.Create, _ = epoch(v.CreateTime)
	for _, nodeID := range branch(v, c.Skipped) {
		turn(&c, nodeID, v.Mapping[nodeID])
	}
	return c, nil
}

// branch returns the node ids of the branch the user ended on, root
// first: current_node up through parent. Without a current_node (an old
// export), the latest leaf. The nodes of the other branches are counted.
func branch(v conversation, skipped history.Skipped) []string {
	leaf := ""
	if v.CurrentNode != nil {
		leaf = *v.CurrentNode
	}
	if _, ok := v.Mapping[leaf]; !ok {
		if leaf != "" {
			skipped["current_node not in mapping (latest leaf taken)"]++
		}
		leaf = latestLeaf(v.Mapping)
	}
	var path []string
	seen := map[string]bool{}
	for id := leaf; id != ""; {
		n, ok := v.Mapping[id]
		if !ok {
			skipped["parent not in mapping"]++
			break
		}
		if seen[id] {
			skipped["parent cycle"]++
			break
		}
		seen[id] = true
		path = append(path, id)
		if n.Parent == nil {
			break
		}
		id = *n.Parent
	}
	slices.Reverse(path)
	for id, n := range v.Mapping {
		if !seen[id] && n.Message != nil {
			skipped["other branch (edited or regenerated)"]++
		}
	}
	return path
}

// latestLeaf is the node without children whose message is the latest.
func latestLeaf(m map[string]node) string {
	best, bestT := "", math.Inf(-1)
	for id, n := range m {
		if len(n.Children) > 0 {
			continue
		}
		t := math.Inf(-1) + 1
		if n.Message != nil && n.Message.CreateTime != nil {
			t = *n.Message.CreateTime
		}
		if best == "" || t > bestT || (t == bestT && id > best) {
			best, bestT = id, t
		}
	}
	return best
}

func turn(c *history.Conversation, nodeID string, n node) {
	m := n.Message
	if m == nil {
		return // the tree's root
	}
	if reason := leftOut(m); reason != "" {
		c.Skipped[reason]++
		return
	}
	text := messageText(c, m)
	if strings.TrimSpace(text) == "" {
		c.Skipped["empty message"]++
		return
	}
	if k := len(m.Metadata.Attachments); k > 0 {
		c.Skipped["attachment (the file is not in conversations.json)"] += k
	}
	t, ok := epoch(m.CreateTime)
	if !ok {
		c.Skipped[history.DateOutOfRange]++
		return
	}
	id := cmp.Or(n.ID, nodeID)
	c.Turns = append(c.Turns, history.Turn{ID: id, Role: m.Author.Role, Text: text, Time: t})
}

// leftOut says why a message is not conversation, or "".
func leftOut(m *message) string {
	role := m.Author.Role
	switch {
	case role == "system":
		return "system message"
	case role == "tool":
		return "tool message"
	case role != "user" && role != "assistant":
		return fmt.Sprintf("message of role %q", role)
	case m.Metadata.Hidden:
		return "hidden message"
	case role == "assistant" && m.Recipient != "" && m.Recipient != "all":
		return "tool call"
	case m.Content.ContentType != "text" && m.Content.ContentType != "multimodal_text":
		return fmt.Sprintf("%s content", m.Content.ContentType)
	}
	return ""
}

// messageText joins the message's string parts and the text of its
// audio_transcription parts (what was said in a voice conversation); the
// other parts (images, files, the audio itself) are counted by their
// content_type.
func messageText(c *history.Conversation, m *message) string {
	var texts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			if s != "" {
				texts = append(texts, s)
			}
			continue
		}
		var o struct {
			ContentType string `json:"content_type"`
			Text        string `json:"text"`
		}
		switch {
		case json.Unmarshal(p, &o) != nil || o.ContentType == "":
			c.Skipped["unreadable part"]++
		case o.ContentType == "audio_transcription" && strings.TrimSpace(o.Text) != "":
			texts = append(texts, o.Text)
		default:
			c.Skipped[o.ContentType+" part"]++
		}
	}
	if len(texts) == 0 && m.Content.Text != "" {
		texts = append(texts, m.Content.Text)
	}
	return strings.Join(texts, "\n\n")
}

// epoch reads a create_time (epoch seconds, with a fraction): the zero
// time for none, and false for one out of range.
func epoch(f *float64) (time.Time, bool) {
	if f == nil {
		return time.Time{}, true
	}
	if math.IsNaN(*f) || *f < float64(history.MinTime.Unix()) || *f >= float64(history.MaxTime.Unix()) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(*f)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
	return t, true
}

// Package host runs agentmem behind real agent hosts (Claude Code from npm)
// with a scripted model: an Anthropic Messages API server on loopback whose
// replies a Go function decides, and which records every request, so a test
// or an eval sees exactly what the host handed its model.
package host

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Request is one call the host made to the model, as sent.
type Request struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []Message       `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Stream bool `json:"stream"`
	// Raw is the whole request body.
	Raw []byte `json:"-"`
}

// Message is one message of a request.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Block is a content block: text, tool_use or tool_result.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   Content         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// Content is a message's or a tool result's content: a string or blocks,
// always decoded as blocks.
type Content []Block

func (c *Content) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var bs []Block
	if err := json.Unmarshal(b, &bs); err != nil {
		return err
	}
	*c = bs
	return nil
}

// Text joins the text of c's text blocks.
func (c Content) Text() string {
	var parts []string
	for _, b := range c {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResults returns the tool results of the request's last user message.
func (r Request) ToolResults() []Block {
	if len(r.Messages) == 0 {
		return nil
	}
	var out []Block
	for _, b := range r.Messages[len(r.Messages)-1].Content {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// Reply is what the scripted model answers: text, and optionally one tool
// call (the host runs it and calls the model again with its result).
type Reply struct {
	Text     string
	ToolName string
	ToolArgs any
}

// Script decides the model's reply to a request.
type Script func(Request) Reply

// Model is a scripted Anthropic Messages API server on 127.0.0.1.
type Model struct {
	URL string
	scripted[Request]
	script Script
}

// StartModel serves script on a free loopback port.
func StartModel(script Script) (*Model, error) {
	m := &Model{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", m.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", m.countTokens)
	var err error
	m.URL, err = m.start(mux, `{"type":"error","error":{"type":"not_found_error","message":"scripted model: no such endpoint"}}`)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Model) countTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4)
}

func (m *Model) messages(w http.ResponseWriter, r *http.Request) {
	var req Request
	n := m.record(w, r, &req, &req.Raw, func(msg string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":` + strconv.Quote(msg) + `}}`
	})
	if n == 0 {
		return
	}
	id := fmt.Sprintf("msg_scripted_%d", n)
	reply := m.script(req)
	if req.Stream {
		stream(w, id, req.Model, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(message(id, req.Model, reply))
}

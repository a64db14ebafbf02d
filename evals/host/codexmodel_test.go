package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// A scripted OpenAI Responses API server on loopback, for Codex CLI: POST
// /v1/responses, streamed as server-sent events (response.created, one
// response.output_item.added / .done per item, response.completed). Codex
// reaches it as a custom model provider (base_url, wire_api "responses").

// CodexRequest is one call Codex made to the model, as sent.
type CodexRequest struct {
	Model        string      `json:"model"`
	Instructions string      `json:"instructions"`
	Input        []CodexItem `json:"input"`
	Tools        []CodexTool `json:"tools"`
	Stream       bool        `json:"stream"`
	// Raw is the whole request body.
	Raw []byte `json:"-"`
}

// CodexItem is an input item: a message, a function call or its output.
type CodexItem struct {
	Type      string       `json:"type"`
	Role      string       `json:"role,omitempty"`
	Content   []CodexPart  `json:"content,omitempty"`
	CallID    string       `json:"call_id,omitempty"`
	Name      string       `json:"name,omitempty"`
	Namespace string       `json:"namespace,omitempty"`
	Arguments string       `json:"arguments,omitempty"`
	Output    CodexContent `json:"output,omitempty"`
}

// CodexPart is a part of a message's content (input_text, output_text).
type CodexPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// CodexContent is a function call's output: a string or parts, always
// decoded as parts.
type CodexContent []CodexPart

func (c *CodexContent) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = CodexContent{{Type: "input_text", Text: s}}
		return nil
	}
	var ps []CodexPart
	if err := json.Unmarshal(b, &ps); err != nil {
		return err
	}
	*c = ps
	return nil
}

// Text joins the parts' text.
func (c CodexContent) Text() string {
	var parts []string
	for _, p := range c {
		parts = append(parts, p.Text)
	}
	return strings.Join(parts, "\n")
}

// CodexTool is a tool offered to the model: a function, or a namespace of
// functions (Codex offers an MCP server's tools as namespace mcp__<server>).
type CodexTool struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// Prompt is the user's last message: its text parts that are not context
// Codex injects (<environment_context>, ...).
func (r CodexRequest) Prompt() string {
	for i := len(r.Input) - 1; i >= 0; i-- {
		it := r.Input[i]
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		for _, p := range it.Content {
			if p.Type == "input_text" && !strings.HasPrefix(p.Text, "<") {
				return strings.TrimSpace(p.Text)
			}
		}
	}
	return ""
}

// ToolOutputs returns the function call outputs after the request's last
// user message.
func (r CodexRequest) ToolOutputs() []CodexItem {
	var out []CodexItem
	for i := len(r.Input) - 1; i >= 0 && !(r.Input[i].Type == "message" && r.Input[i].Role == "user"); i-- {
		if r.Input[i].Type == "function_call_output" {
			out = append([]CodexItem{r.Input[i]}, out...)
		}
	}
	return out
}

// HasTool says whether the request offers the tool name (a namespace's
// tools spelled namespace__name, as Claude Code spells MCP tools).
func (r CodexRequest) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
		for _, sub := range t.Tools {
			if t.Name+"__"+sub.Name == name {
				return true
			}
		}
	}
	return false
}

// CodexScript decides the model's reply to a request. A Reply's ToolName
// is spelled namespace__name for a namespace's tool (mcp__agentmem__recall).
type CodexScript func(CodexRequest) Reply

// CodexModel is a scripted Responses API server on 127.0.0.1.
type CodexModel struct {
	URL string // the base URL Codex is given (ends in /v1)
	scripted[CodexRequest]
	script CodexScript
}

// StartCodexModel serves script on a free loopback port.
func StartCodexModel(script CodexScript) (*CodexModel, error) {
	m := &CodexModel{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", m.responses)
	url, err := m.start(mux, `{"error":{"type":"not_found","message":"scripted model: no such endpoint"}}`)
	if err != nil {
		return nil, err
	}
	m.URL = url + "/v1"
	return m, nil
}

func (m *CodexModel) responses(w http.ResponseWriter, r *http.Request) {
	if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		http.Error(w, `{"error":{"message":"scripted model: compressed requests are not supported"}}`, http.StatusUnsupportedMediaType)
		return
	}
	var req CodexRequest
	n := m.record(w, r, &req, &req.Raw, func(msg string) string {
		return fmt.Sprintf(`{"error":{"type":"invalid_request_error","message":%q}}`, msg)
	})
	if n == 0 {
		return
	}
	codexStream(w, fmt.Sprintf("%d", n), m.script(req), req)
}

// codexItems are the reply's output items.
func codexItems(id string, r Reply, req CodexRequest) []map[string]any {
	var out []map[string]any
	if r.Text != "" || r.ToolName == "" {
		out = append(out, map[string]any{"type": "message", "role": "assistant", "id": "msg_scripted_" + id, "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}})
	}
	if r.ToolName != "" {
		args := r.ToolArgs
		if args == nil {
			args = map[string]any{}
		}
		b, _ := json.Marshal(args)
		call := map[string]any{"type": "function_call", "id": "fc_scripted_" + id, "call_id": "call_scripted_" + id, "name": r.ToolName, "arguments": string(b)}
		for _, t := range req.Tools {
			if ns, name, ok := strings.Cut(r.ToolName, t.Name+"__"); ok && ns == "" && t.Type == "namespace" {
				call["namespace"], call["name"] = t.Name, name
			}
		}
		out = append(out, call)
	}
	return out
}

// codexStream writes the reply as the Responses API's server-sent events.
func codexStream(w http.ResponseWriter, id string, r Reply, req CodexRequest) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	resp := map[string]any{"id": "resp_scripted_" + id, "object": "response", "model": req.Model}
	send(map[string]any{"type": "response.created", "response": resp})
	for i, it := range codexItems(id, r, req) {
		send(map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		send(map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	resp["status"] = "completed"
	resp["usage"] = map[string]any{"input_tokens": len(req.Raw) / 4, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": len(req.Raw)/4 + 10}
	send(map[string]any{"type": "response.completed", "response": resp})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

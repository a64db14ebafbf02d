package host

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// blocks are the reply's content blocks as the Messages API returns them.
func (r Reply) blocks(id string) []map[string]any {
	var out []map[string]any
	if r.Text != "" || r.ToolName == "" {
		out = append(out, map[string]any{"type": "text", "text": r.Text})
	}
	if r.ToolName != "" {
		args := r.ToolArgs
		if args == nil {
			args = map[string]any{}
		}
		out = append(out, map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": r.ToolName, "input": args})
	}
	return out
}

func (r Reply) stopReason() string {
	if r.ToolName != "" {
		return "tool_use"
	}
	return "end_turn"
}

var usage = map[string]any{"input_tokens": 10, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}

// message is the non-streaming response.
func message(id, model string, r Reply) map[string]any {
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": r.blocks(id), "stop_reason": r.stopReason(), "stop_sequence": nil, "usage": usage,
	}
}

// stream writes the reply as the Messages API's server-sent events:
// message_start, one content_block_start/delta/stop per block,
// message_delta, message_stop.
func stream(w http.ResponseWriter, id, model string, r Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	start := message(id, model, Reply{})
	start["content"] = []any{}
	start["stop_reason"] = nil
	send("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range r.blocks(id) {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": r.stopReason(), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

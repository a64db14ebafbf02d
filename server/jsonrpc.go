package server

import (
	"bytes"
	"encoding/json"
)

// The relay and the socket server look into the JSON-RPC messages they
// pass on, just enough to pair requests with responses: what a message is,
// its id, its method, and for a few methods one parameter.

type kind int

const (
	opaque       kind = iota // not a JSON-RPC object we can read (a batch, a parse error): passed on untouched
	request                  // method and id: expects a response
	notification             // method, no id
	response                 // id and result or error, no method
)

type message struct {
	kind    kind
	version string // "jsonrpc"
	id      string // canonical form of the id (see idKey), for requests and responses
	rawID   json.RawMessage
	method  string
	params  json.RawMessage
	result  json.RawMessage
	err     *rpcError
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func peek(line []byte) message {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   *rpcError       `json:"error"`
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return message{kind: opaque}
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	out := message{version: m.JSONRPC, rawID: m.ID, method: m.Method, params: m.Params, result: m.Result, err: m.Error}
	switch {
	case m.Method != "" && hasID:
		out.kind = request
	case m.Method != "":
		out.kind = notification
	case hasID && (m.Result != nil || m.Error != nil):
		out.kind = response
	default:
		return message{kind: opaque}
	}
	if hasID {
		out.id = idKey(m.ID)
	}
	return out
}

// idKey is the canonical text of a JSON-RPC id, so that 1, 1.0 and 1e0
// pair up as the MCP server (which decodes and re-encodes ids) pairs them;
// a string id stays a quoted string, distinct from the number.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // what json.Unmarshal made always encodes
	return string(b)
}

// toolName is params.name of a tools/call request.
func toolName(params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(params, &p)
	return p.Name
}

// cancelledID is params.requestId of a notifications/cancelled.
func cancelledID(params json.RawMessage) (string, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return "", false
	}
	return idKey(p.RequestID), true
}

// withID returns the message line with its id replaced.
func withID(line []byte, id string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	m["id"], _ = json.Marshal(id) // a string always encodes
	return json.Marshal(m)
}

// errorLine is a JSON-RPC error response to the request with id rawID.
func errorLine(rawID json.RawMessage, code int, msg string, data any) []byte {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rawID, "error": e})
	return append(b, '\n')
}

// Error codes agentmem's own processes use between themselves, in the
// range JSON-RPC leaves to servers.
const (
	// codeHandover answers a request that a holder which is shutting down
	// received and did not start: the relay sends it to the next holder.
	codeHandover = -32090
	// codeHolderLost answers a request that was in flight when the holder
	// died and that the relay did not repeat.
	codeHolderLost = -32091
)

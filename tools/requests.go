package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/tools/spec"
)

// checkRequest refuses, before mcp-go reads it, a request whose fault
// mcp-go would answer without naming it, or would not see. mcp-go answers
// its error as an invalid request (-32600).
//   - A number too large for a float64 in a call's arguments: mcp-go's
//     decoding of the call fails naming no argument.
//   - A cursor a list did not return: the hook that makes resources/list
//     cannot fail the request, mcp-go reads any base64 as its own cursor
//     for the other lists, and an empty page would read as the list's end.
func checkRequest(_ context.Context, _ any, message any) error {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return nil
	}
	if err := spec.OutOfRange(raw); err != nil {
		return fmt.Errorf("invalid argument %w", err)
	}
	// a list request is small; a call's text may say "cursor"
	if len(raw) > 64<<10 || !bytes.Contains(raw, []byte(`"cursor"`)) {
		return nil
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Params.Cursor == "" {
		return nil
	}
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodResourcesList:
		_, err := decodeListCursor(req.Params.Cursor)
		return err
	case mcp.MethodToolsList, mcp.MethodResourcesTemplatesList:
		// lists this server returns whole, never with a cursor
		return fmt.Errorf("cursor: %q is not a cursor this server returned (%s returns its whole list at once)", req.Params.Cursor[:min(len(req.Params.Cursor), 64)], req.Method)
	}
	return nil
}

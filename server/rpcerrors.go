package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// mcp-go reports every error of a resource handler as -32603, an internal
// error. A bad URI or argument is -32602 (invalid params) and a session or
// namespace that holds nothing -32002 (resource not found), as the MCP
// specification has them. resourceErrors marks the handlers' errors by
// their message's first words, and fixCodes, at each transport, gives the
// marked responses their code.

const (
	invalidParams    = "invalid params: "
	resourceNotFound = "resource not found: "
)

// resourceErrors is the middleware that marks resource errors.
func resourceErrors() mcpserver.ServerOption {
	return mcpserver.WithResourceHandlerMiddleware(func(next mcpserver.ResourceHandlerFunc) mcpserver.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			res, err := next(ctx, req)
			switch {
			case err == nil:
			case errors.As(err, new(*memory.FieldError)), errors.As(err, new(*spec.FieldError)), errors.Is(err, memory.ErrForbidden):
				err = fmt.Errorf("%s%w", invalidParams, err)
			case errors.Is(err, memory.ErrNotFound):
				err = fmt.Errorf("%s%w", resourceNotFound, err)
			}
			return res, err
		}
	})
}

// fixCode returns a JSON-RPC message with the code its marked error
// should have; any other message as it is.
func fixCode(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"code":-32603`)) {
		return msg
	}
	var m map[string]json.RawMessage
	var e rpcError
	if json.Unmarshal(msg, &m) != nil || json.Unmarshal(m["error"], &e) != nil {
		return msg
	}
	switch {
	case strings.HasPrefix(e.Message, invalidParams):
		e.Code = mcp.INVALID_PARAMS
	case strings.HasPrefix(e.Message, resourceNotFound):
		e.Code = mcp.RESOURCE_NOT_FOUND
	default:
		return msg
	}
	m["error"], _ = json.Marshal(e)
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// fixLines applies fixCode to each line of b (a JSON body, a stream of
// JSON lines, or server-sent events' "data: " lines).
func fixLines(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lines {
		body, _ := bytes.CutSuffix(l, []byte("\n"))
		prefix := []byte{}
		if rest, ok := bytes.CutPrefix(body, []byte("data: ")); ok {
			prefix, body = []byte("data: "), rest
		}
		fixed := fixCode(body)
		if !bytes.Equal(fixed, body) {
			lines[i] = slices.Concat(prefix, fixed, l[len(prefix)+len(body):]) // and the newline, if any
		}
	}
	return bytes.Join(lines, nil)
}

// fixingWriter rewrites whole lines as they pass (stdio's responses).
type fixingWriter struct {
	w   interface{ Write([]byte) (int, error) }
	buf []byte
}

func (f *fixingWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	i := bytes.LastIndexByte(f.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	out := fixLines(f.buf[:i+1])
	f.buf = append(f.buf[:0], f.buf[i+1:]...)
	if _, err := f.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fixResourceReads buffers the response to a resources/read over HTTP
// (it is small, and done in one go) and corrects its error code.
func fixResourceReads(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{header: w.Header(), code: http.StatusOK}
		next.ServeHTTP(rec, r)
		body := fixLines(rec.body.Bytes())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.code)
		w.Write(body)
	})
}

type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }
func (r *recorder) Flush()                      {}

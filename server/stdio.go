package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves s on in/out (stdin/stdout) until in closes or ctx ends.
// Nothing else may write to out: it belongs to the protocol. A client that
// closes its end of out (a host shutting down) ends nothing worse than a
// debug record; any other failure to write is logged as an error. When in
// closes, the calls already sent are finished and answered first (for up
// to ShutdownGrace; see heldEOF), as over HTTP and on the socket.
func ServeStdio(ctx context.Context, s *mcpserver.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	stdio := mcpserver.NewStdioServer(s)
	registerSession("stdio", nil) // mcp-go's one stdio session: this process's own client
	defer unregisterSession("stdio")
	w := &closeWatch{w: out}
	stdio.SetErrorLogger(log.New(&stdioLog{log: logger, out: w}, "", 0))
	calls := &unanswered{ids: map[string]bool{}}
	answers := &lineWriter{w: w, onLine: calls.answered}
	in = &heldEOF{r: in, calls: calls, ctx: ctx, grace: ShutdownGrace, log: logger}
	err := stdio.Listen(ctx, in, &fixingWriter{w: answers})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ClientClosed reports whether err, from a write to a client, says that
// the client closed its end (a pipe or connection with no reader left).
func ClientClosed(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// closeWatch notes when the client has closed its end of w.
type closeWatch struct {
	w      io.Writer
	closed atomic.Bool
}

func (c *closeWatch) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && ClientClosed(err) {
		c.closed.Store(true)
	}
	return n, err
}

// stdioLog takes mcp-go's stdio error log: its complaints that a write
// failed once the client has closed its end are the client's normal
// shutdown (debug); everything else is an error.
type stdioLog struct {
	log *slog.Logger
	out *closeWatch
}

func (l *stdioLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	if l.out.closed.Load() && strings.HasPrefix(msg, "Error writing") {
		l.log.Debug("the client closed its end of stdout", "err", msg)
	} else {
		l.log.Error(msg)
	}
	return len(p), nil
}

// unanswered is the requests read from a stdio client that have had no
// answer yet, by id.
type unanswered struct {
	mu  sync.Mutex
	ids map[string]bool
}

// sent counts a request the client sent; a notification that cancels
// one uncounts it (a cancelled request may get no answer). A request
// whose envelope mcp-go cannot read (a "jsonrpc" that is not the string
// "2.0", an id that is neither a string nor a number) is answered with a
// null id, if at all: it is not counted, or the end of input would wait
// for an answer that names it.
func (u *unanswered) sent(line []byte) {
	m := peek(line)
	if m.kind == request && (!readableEnvelope(m) || m.result != nil || m.err != nil || m.method == "subscriptions/listen") {
		// a request that also carries a result gets no answer; a listen
		// stream is answered only when the session ends
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case m.kind == request:
		u.ids[m.id] = true
	case m.kind == notification && m.method == "notifications/cancelled":
		if id, ok := cancelledID(m.params); ok {
			delete(u.ids, id)
		}
	}
}

// readableEnvelope reports a message whose "jsonrpc" is "2.0" and whose
// id is a string or a number mcp-go can read.
func readableEnvelope(m message) bool {
	if m.version != "2.0" {
		return false
	}
	id := bytes.TrimSpace(m.rawID)
	var v any // as mcp-go reads it: 1e400 is no id it can answer
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') && json.Unmarshal(id, &v) == nil
}

// answered uncounts the request a response line answers.
func (u *unanswered) answered(line []byte) {
	if m := peek(line); m.kind == response {
		u.mu.Lock()
		delete(u.ids, m.id)
		u.mu.Unlock()
	}
}

func (u *unanswered) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.ids)
}

// heldEOF is a stdio client's input that holds its end back until every
// request read from it is answered (for up to grace, or until ctx ends).
// mcp-go's stdio server cancels every call in progress when its input
// ends, so a client that sends a remember and closes its end at once (a
// script's pipe, a host exiting) would lose the turns it sent. Each whole
// line is counted before the server reads it, so no answer can come
// before its request is counted; a last line without its newline is not
// read as a request by the server either, and is not counted.
type heldEOF struct {
	r     io.Reader
	calls *unanswered
	ctx   context.Context
	grace time.Duration
	log   *slog.Logger
	line  []byte // the line read so far, up to its newline
	eof   bool   // the input ended with the bytes last returned
}

func (h *heldEOF) Read(p []byte) (int, error) {
	if h.eof {
		h.wait()
		return 0, io.EOF
	}
	n, err := h.r.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			h.line = append(h.line, rest...)
			break
		}
		if len(h.line) == 0 {
			h.calls.sent(rest[:i+1])
		} else {
			h.line = append(h.line, rest[:i+1]...)
			h.calls.sent(h.line)
			h.line = h.line[:0]
			if cap(h.line) > 1<<16 {
				h.line = nil // a large call's buffer is not kept for the session
			}
		}
		rest = rest[i+1:]
	}
	if err == io.EOF && n > 0 {
		// the server must read these lines before anything waits for
		// their answers
		h.eof = true
		return n, nil
	}
	if err == io.EOF {
		h.wait()
	}
	return n, err
}

// wait returns once every counted request is answered, grace has passed
// (logged) or ctx has ended.
func (h *heldEOF) wait() {
	deadline := time.Now().Add(h.grace)
	for n := h.calls.count(); n > 0; n = h.calls.count() {
		if time.Now().After(deadline) {
			h.log.Warn("stdin closed with calls still running; ending them", "calls", n, "grace", h.grace)
			return
		}
		select {
		case <-h.ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

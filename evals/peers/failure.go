package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
)

// The kinds of failure a peer can show, as Kind names them.
const (
	// Crash: the server process exited or closed its pipes.
	Crash = "crash"
	// Timeout: a call was not answered in time.
	Timeout = "timeout"
	// Malformed: the answer was not what the tool promises (not JSON, a
	// shape the adapter cannot read, a result the adapter never stored).
	Malformed = "malformed"
	// Failed: the server answered with an error (a tool error or a
	// JSON-RPC error) and kept running.
	Failed = "error"
)

// Kinds lists the failure kinds in report order.
func Kinds() []string { return []string{Crash, Timeout, Malformed, Failed} }

// MalformedError is an answer an adapter could not read.
type MalformedError struct{ Msg string }

func (e *MalformedError) Error() string { return e.Msg }

func malformed(format string, args ...any) error {
	return &MalformedError{Msg: fmt.Sprintf(format, args...)}
}

// Kind classifies an error of Open, Store or Search. A crash and a timeout
// leave the server unusable (a hung server may answer late, out of turn):
// the caller restarts it. A malformed answer or a failed call leaves it
// running.
func Kind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.As(err, new(*MalformedError)):
		return Malformed
	case errors.As(err, new(*ToolError)):
		return Failed
	case errors.Is(err, transport.ErrTransportClosed), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe), errors.Is(err, os.ErrClosed):
		return Crash
	}
	return Failed
}

// Package history holds what the readers of other programs' conversation
// histories share (its subpackages: claudecode and codex for the hosts'
// session logs, chatgpt and claudeai for the apps' data exports): the turn
// they read, the counts of what they leave out, and for the exports, the
// conversation, its errors and the streaming of conversations.json.
package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Turn is one conversation turn, verbatim.
type Turn struct {
	ID   string // the host's or the app's id of the message
	Role string // "user" or "assistant"
	Text string
	Time time.Time // zero when the message has no time
	// Session is the host's session id, and CWD the project directory the
	// turn was said in (session logs only).
	Session, CWD string
}

// Skipped counts what a reader left out, by reason.
type Skipped map[string]int

// Add adds o's counts to s.
func (s Skipped) Add(o Skipped) {
	for k, v := range o {
		s[k] += v
	}
}

// EachLine calls fn with each complete line of data (JSON Lines) and its
// 1-based number, and returns how many bytes it read: a last line without
// its newline (a file being written) is left for the next read, unless
// final.
func EachLine(data []byte, final bool, fn func(line []byte, n int)) (consumed int) {
	for n := 1; len(data) > consumed; n++ {
		rest := data[consumed:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 && !final {
			break
		}
		if end < 0 {
			end = len(rest)
		}
		fn(rest[:end], n)
		consumed += min(end+1, len(rest))
	}
	return consumed
}

// Conversation is one conversation of a data export.
type Conversation struct {
	// Index is its 1-based place in the file, and Offset the byte it
	// starts at: where an error points.
	Index  int
	Offset int64
	ID     string
	Title  string
	Create time.Time // the conversation's creation time
	Turns  []Turn
	// Skipped counts the messages and parts left out, by reason.
	Skipped Skipped
	// LeftOut is a conversation left out whole (one without its
	// messages), its Skipped saying why: not a session to store.
	LeftOut bool
}

// Error is a conversation the export cannot be read past: it names the
// conversation and the field.
type Error struct {
	Index  int
	IDName string // what the export calls the conversation's id: "id", "uuid"
	ID     string
	Field  string
	Reason string
}

func (e *Error) Error() string {
	id := ""
	if e.ID != "" {
		id = " (" + e.IDName + " " + e.ID + ")"
	}
	return fmt.Sprintf("conversation %d%s: %s %s", e.Index, id, e.Field, e.Reason)
}

// WrongType is the Error of a conversation that json.Unmarshal refused:
// it names the field of the wrong type.
func WrongType(index int, idName, id string, err error) *Error {
	field := "the conversation"
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		field = te.Field
	}
	return &Error{Index: index, IDName: idName, ID: id, Field: field, Reason: "has the wrong type (" + err.Error() + ")"}
}

// WrongField is the reason a line of a transcript or rollout that is a
// JSON object was not read: a field of another type than the parser
// knows (a later version of the tool could change one), named where the
// decoder names it; a time the decoder could not read is the parser's
// one time field, timeField ("timestamp"), of an unexpected form. Such a
// line is left out for that reason, not counted as a line that is not
// JSON.
func WrongField(err error, timeField string) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return "field " + te.Field + " of an unexpected type"
	}
	if _, ok := errors.AsType[*time.ParseError](err); ok && timeField != "" {
		return "field " + timeField + " of an unexpected form"
	}
	if strings.HasPrefix(err.Error(), "Time.UnmarshalJSON") && timeField != "" {
		return "field " + timeField + " of an unexpected type" // not a string
	}
	return "a field of an unexpected type or form"
}

// DateOutOfRange is the reason of a time no memory can hold (dates from
// 1678 to 2261): the turn is left out.
const DateOutOfRange = "date out of range"

// MinTime and MaxTime bound the times a memory holds (years 1678-2261).
var (
	MinTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FieldError is bad input: it names the field, and the limit or rule it broke.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Limits on input, so one call cannot exhaust the server.
// The tools' schemas (package tools/spec) declare the same limits; a test
// keeps the two in step. Lengths are in characters, as JSON Schema counts
// them, except the call's total, which is in bytes.
const (
	MaxMessages     = 2000     // messages in one remember call
	MaxContentChars = 64 << 10 // characters in one message
	MaxCallBytes    = 8 << 20  // bytes of content in one remember call
	MaxQueryChars   = 4096     // characters in a recall query
	MaxK            = 100      // memories one recall returns
	MaxTokens       = 100000   // a recall's max_tokens
	MaxPool         = 1000     // candidates per side
	MaxIDs          = 1000     // ids in one forget call
	MaxWeight       = 100      // a fusion weight
	MaxRankConstant = 1000     // RRF's k
	MaxTurn         = 1 << 30  // a turn's position in its session
	maxNamespace    = 128      // characters (ASCII) in a namespace
	maxSessionID    = 256      // characters (ASCII) in a session id
	maxSpeaker      = 128      // characters in a speaker name
	maxKey          = 256      // characters in a message's client key
)

// Roles a message may have.
var Roles = []string{"user", "assistant", "system", "tool"}

// validName accepts identifiers that are safe as keys in every store:
// letters, digits and . _ - : @ / + only.
func validName(field, s string, limit int) error {
	if s == "" {
		return &FieldError{field, "must not be empty"}
	}
	if len(s) > limit {
		return &FieldError{field, fmt.Sprintf("is %d characters; the limit is %d", len(s), limit)}
	}
	for _, r := range s {
		if !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-:@/+", r))) {
			return &FieldError{field, fmt.Sprintf("%q has the character %q; use ASCII letters, digits and . _ - : @ / +", s, r)}
		}
	}
	return nil
}

// ValidNamespace reports whether ns can name a namespace, as every call
// checks it (a server checks its default namespace before it starts).
func ValidNamespace(ns string) error { return validName("namespace", ns, maxNamespace) }

// newName is validName for a name that a call creates (remember, import):
// it also refuses "." and "..", which a resource URI would hold as a
// whole path step (agentmem://{namespace}/sessions/{session_id}) and a
// client that normalises URIs would remove or resolve to the parent.
// Names stored before this rule stay readable and deletable.
func newName(field, s string, limit int) error {
	if err := validName(field, s, limit); err != nil {
		return err
	}
	if s == "." || s == ".." {
		return &FieldError{field, fmt.Sprintf("is %q, which a URI reads as a step of its path; use a name with other characters", s)}
	}
	return nil
}

// Package memory is the domain of agentmem: memories (raw conversation turns
// with their session dates), the contracts the storage engines and the
// embedding models implement (Store, Embedder), and the Service the tools
// call: ingest (Remember), retrieval (Recall), Forget and the clock (Today).
// It knows nothing of MCP (package tools adapts it to the protocol) and
// imports no search engine: the query tree, index mapping, entity extraction
// and fusion that both stores share are the search kit, package hybrid; the
// stores are in memory/store/..., the embedders in memory/embedder/....
package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Memory is one stored conversation turn, verbatim.
type Memory struct {
	ID          string    `json:"id"`
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Turn        int       `json:"turn"`
	Role        string    `json:"role"`
	Speaker     string    `json:"speaker,omitempty"`
	Text        string    `json:"text"`
	// Timestamp is the turn's own time when the client sent one.
	Timestamp *time.Time `json:"timestamp,omitempty"`
	// Key is the client's own id of the turn, when it sent one.
	Key string `json:"key,omitempty"`
	// Hash identifies the turn's content within its session, so that a
	// session sent twice is stored once.
	Hash string `json:"hash"`
	// Vectors holds one normalised vector per window of Text (see
	// DocumentEmbedder); empty when no embedder is configured.
	Vectors  [][]float32 `json:"vectors,omitempty"`
	Embedder string      `json:"embedder,omitempty"`
	Created  time.Time   `json:"created"`
}

// MemoryID is the public id of turn n of a session: readable, stable, and
// unique within a namespace, so re-ingesting a session rewrites the same ids.
func MemoryID(sessionID string, turn int) string {
	return fmt.Sprintf("%s:%d", sessionID, turn)
}

// ParseMemoryID splits a memory id into its session id and turn, as
// MemoryID joins them; ok is false for an id MemoryID cannot have made.
func ParseMemoryID(id string) (sessionID string, turn int, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i <= 0 {
		return "", 0, false
	}
	turn, err := strconv.Atoi(id[i+1:])
	if err != nil || turn < 0 {
		return "", 0, false
	}
	return id[:i], turn, true
}

// turnHash is what makes ingest idempotent: two messages are the same turn
// when role, speaker, text and timestamp agree.
func turnHash(role, speaker, text string, ts *time.Time) string {
	h := sha256.New()
	stamp := ""
	if ts != nil {
		stamp = ts.UTC().Format(time.RFC3339Nano)
	}
	for _, s := range []string{role, speaker, text, stamp} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Header is the line that introduces a memory in a prompt:
// "[2023-05-07 Sun · session s-may · user]". The session date comes first
// because a model resolves "yesterday" in the text against it; a session
// whose id is a UUID is named by its start (ShortSession).
func (m Memory) Header() string { return m.header(ShortSession(m.SessionID), nil) }

// header is Header with the session named as label, its speaker named as
// in (see whoIn).
func (m Memory) header(label string, in speakers) string {
	return fmt.Sprintf("[%s · session %s · %s]", m.SessionDate.Format(dayFormat), label, m.whoIn(in))
}

// who names the speaker: "Caroline (user)", or the role alone.
func (m Memory) who() string { return m.whoIn(nil) }

// named reports whether m has a speaker's name beside its role.
func (m Memory) named() bool { return m.Speaker != "" && !strings.EqualFold(m.Speaker, m.Role) }

// speakers is what a text has said of its named speakers so far: the role
// it last gave each name (see whoIn). nil: nothing is remembered.
type speakers map[string]string

// whoIn names the speaker in a text that has said in of its speakers:
// "Caroline (user)" where the text has not yet given Caroline that role,
// then "Caroline" alone (noted in in), or the role alone for a turn
// without a name. A model reads a recall in order, so the role said once
// holds for the lines after it, in a few tokens less each (EVALS.md,
// "A speaker's role said once").
func (m Memory) whoIn(in speakers) string {
	if !m.named() {
		return m.Role
	}
	name, alone := m.nameAlone()
	if in != nil && alone {
		if in[name] == m.Role {
			return name
		}
		in[name] = m.Role
	}
	return name + " (" + m.Role + ")"
}

// nameAlone is m's speaker's name as a text shows it, and whether the
// name can stand for "name (role)" once the text has said the role: a
// name that reads as a role ("User"), holds a parenthesis or a colon, or
// a character that prints as nothing (a zero-width space), or spaces
// other than single ones between words, could be read as another
// speaker's line, and always comes with its role.
func (m Memory) nameAlone() (string, bool) {
	name := OneLine(m.Speaker)
	if !m.named() || slices.ContainsFunc(Roles, func(r string) bool { return strings.EqualFold(r, name) }) {
		return name, false
	}
	prev := ' ' // a space first, last or after another one is odd
	for _, r := range name {
		if r == '(' || r == ')' || r == ':' || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) && (r != ' ' || prev == ' ') {
			return name, false
		}
		prev = r
	}
	return name, prev != ' '
}

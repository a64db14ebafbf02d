package evals

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"agentmem/tools/spec"
)

// Granularity is what one stored memory holds.
type Granularity string

const (
	// ByTurn stores each turn as its own memory: what agentmem is built for.
	ByTurn Granularity = "turn"
	// ByRound stores a turn and the reply to it as one memory.
	ByRound Granularity = "round"
	// BySession stores a whole session as one memory (split only where it
	// exceeds the tool's per-message limit).
	BySession Granularity = "session"
)

// maxMessage keeps every message under the remember tool's limit on a
// message's length (read from its schema), with room. It counts bytes,
// which are never fewer than characters.
var maxMessage = *spec.Schema[spec.Message]().Properties["content"].MaxLength - 1024

// Call is one remember call: one session at one granularity.
type Call struct {
	// SessionID is the id the session is stored under: the benchmark's
	// (Session), or with Options.UUIDSessions a UUID made from it.
	SessionID string
	// Session is the benchmark's id of the session, which scoring reads.
	Session  string
	Date     time.Time
	Messages []spec.Message
	// Refs[i] are the turns message i holds; remember says which memory
	// holds message i.
	Refs [][]string
}

// Calls turns a unit's sessions into remember calls at granularity g.
// Empty turns are left out (the tool rejects them), and text longer than a
// message may hold is split into several messages that map to the same turn.
func Calls(u Unit, g Granularity) []Call {
	calls := make([]Call, 0, len(u.Sessions))
	for _, s := range u.Sessions {
		c := Call{SessionID: s.ID, Session: s.ID, Date: s.Date}
		for _, group := range groups(s.Turns, g) {
			msg, refs := message(group)
			if strings.TrimSpace(msg.Content) == "" {
				continue
			}
			for _, part := range split(msg.Content, maxMessage) {
				m := msg
				m.Content = part
				c.Messages = append(c.Messages, m)
				c.Refs = append(c.Refs, refs)
			}
		}
		if len(c.Messages) > 0 {
			calls = append(calls, c)
		}
	}
	return calls
}

// groups cuts a session's turns into the pieces one memory holds.
func groups(turns []Turn, g Granularity) [][]Turn {
	switch g {
	case BySession:
		return [][]Turn{turns}
	case ByRound:
		// A round is a turn and, when the other side answers it, the answer.
		var out [][]Turn
		for i := 0; i < len(turns); i++ {
			if i+1 < len(turns) && turns[i+1].Role != turns[i].Role {
				out = append(out, turns[i:i+2])
				i++
				continue
			}
			out = append(out, turns[i:i+1])
		}
		return out
	}
	return slices.Collect(slices.Chunk(turns, 1))
}

// message is one memory's message: a single turn verbatim, or several as
// "name: text" lines (the role and speaker fields can name only one).
func message(group []Turn) (spec.Message, []string) {
	refs := make([]string, 0, len(group))
	nonEmpty := group[:0:0]
	for _, t := range group {
		if strings.TrimSpace(t.Text) != "" {
			nonEmpty = append(nonEmpty, t)
			refs = append(refs, t.Ref)
		}
	}
	switch len(nonEmpty) {
	case 0:
		return spec.Message{}, nil
	case 1:
		t := nonEmpty[0]
		return spec.Message{Role: t.Role, Speaker: t.Speaker, Content: t.Text}, refs
	}
	lines := make([]string, len(nonEmpty))
	for i, t := range nonEmpty {
		lines[i] = cmp.Or(t.Speaker, t.Role) + ": " + t.Text
	}
	return spec.Message{Role: nonEmpty[0].Role, Content: strings.Join(lines, "\n")}, refs
}

// split cuts s into pieces of at most n bytes on rune boundaries,
// preferring to cut at a line break.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.LastIndexByte(s[:n], '\n') + 1
		if cut < n/2 {
			cut = n
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// IDMap maps the ids of stored memories, as remember returned them, back to
// the benchmark's sessions and turns.
type IDMap map[string]Held

// Held is what one stored memory holds of the benchmark.
type Held struct {
	Session string
	Refs    []string
}

// add records that memory ids[i] holds the turns of call's message i.
// Several messages may share one memory (a resend), which then holds all
// their turns.
func (m IDMap) add(call Call, ids []string) {
	for i, refs := range call.Refs {
		h := m[ids[i]]
		h.Session = call.Session
		for _, r := range refs {
			if !slices.Contains(h.Refs, r) {
				h.Refs = append(h.Refs, r)
			}
		}
		m[ids[i]] = h
	}
}

// Turns is the number of turns the calls hold.
func Turns(calls []Call) int {
	seen := map[string]bool{}
	for _, c := range calls {
		for _, refs := range c.Refs {
			for _, r := range refs {
				seen[r] = true
			}
		}
	}
	return len(seen)
}

func (g Granularity) valid() error {
	switch g {
	case ByTurn, ByRound, BySession:
		return nil
	}
	return fmt.Errorf("granularity %q: use turn, round or session", g)
}

// uuidSessions stores each session of calls (of unit) under a UUID made
// from the unit's and the session's ids (the version 4 layout, its bits a
// digest's), as agent hosts name their sessions: what a recall shows of
// them then costs what it costs a host's model. The benchmark's id stays
// the one scoring reads (Call.Session).
func uuidSessions(unit string, calls []Call) {
	for i := range calls {
		h := sha256.Sum256([]byte(unit + "\x00" + calls[i].Session))
		h[6] = h[6]&0x0f | 0x40 // version 4
		h[8] = h[8]&0x3f | 0x80 // RFC 9562 variant
		x := hex.EncodeToString(h[:16])
		calls[i].SessionID = x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
	}
}

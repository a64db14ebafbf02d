package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The marks of forgotten turns in an export (version 3 on): their lines,
// and what an import does with them.

// ExportMark is a line of an export of version 3 or later: the mark of a
// forgotten turn, {"forgotten":{...}}. It has that one field, so no
// memory line is ever read as one, nor one as a memory line.
type ExportMark struct {
	Forgotten *MarkLine `json:"forgotten"`
}

// MarkLine is what an export holds of a forgotten turn: where it was, its
// client's message id and the hash of its content (when the mark has
// them: a damaged mark keeps its position alone); no text.
type MarkLine struct {
	Namespace string `json:"namespace"`
	SessionID string `json:"session_id"`
	Turn      *int   `json:"turn"`
	ID        string `json:"id"`
	Key       string `json:"key,omitempty"`
	Hash      string `json:"hash,omitempty"`
}

// markLine is the mark m's line in an export.
func markLine(m Memory) *MarkLine {
	return &MarkLine{Namespace: m.Namespace, SessionID: m.SessionID, Turn: new(m.Turn), ID: m.ID, Key: m.Key, Hash: m.Hash}
}

// hashLen is the length of a content hash (turnHash): 16 bytes in hex.
const hashLen = 32

// readMarkLine reads line no, raw, a mark of a forgotten turn, of a file
// whose header is head: the mark it describes, as ForgottenTurns returns
// marks. Its fields are checked as a memory line's are; an error names
// them as forgotten.turn, forgotten.key, ….
func readMarkLine(no int, raw []byte, head ExportHeader) (Memory, error) {
	if head.Version < 3 {
		return Memory{}, &LineError{no, "forgotten", fmt.Sprintf("marks a forgotten turn, which a line does from format version 3 on; the header says version %d", head.Version)}
	}
	var line struct {
		Forgotten json.RawMessage `json:"forgotten"`
	}
	if err := decodeStrict(no, raw, &line); err != nil {
		return Memory{}, err
	}
	if !bytes.HasPrefix(bytes.TrimSpace(line.Forgotten), []byte("{")) {
		return Memory{}, &LineError{no, "forgotten", "must be a JSON object"}
	}
	var l MarkLine
	if err := decodeStrict(no, line.Forgotten, &l); err != nil {
		if le := (*LineError)(nil); errors.As(err, &le) && le.Field != "" {
			le.Field = "forgotten." + le.Field
		}
		return Memory{}, err
	}
	if field, msg := vetMark(l); field != "" {
		return Memory{}, &LineError{no, "forgotten." + field, msg}
	}
	return Memory{ID: l.ID, Namespace: l.Namespace, SessionID: l.SessionID, Turn: *l.Turn, Key: l.Key, Hash: l.Hash}, nil
}

// vetMark checks a mark line's fields against the limits a memory line's
// are held to; the hash is empty or a content hash.
func vetMark(l MarkLine) (field, msg string) {
	for _, f := range []struct {
		name, v string
		limit   int
	}{{"namespace", l.Namespace, maxNamespace}, {"session_id", l.SessionID, maxSessionID}} {
		if err := newName(f.name, f.v, f.limit); err != nil {
			return f.name, err.(*FieldError).Msg
		}
	}
	switch {
	case l.Turn == nil:
		return "turn", "is missing"
	case *l.Turn < 0 || *l.Turn > MaxTurn:
		return "turn", fmt.Sprintf("must be between 0 and %d, got %d", MaxTurn, *l.Turn)
	case l.ID != MemoryID(l.SessionID, *l.Turn):
		return "id", fmt.Sprintf("must be session_id:turn (%q), got %q", MemoryID(l.SessionID, *l.Turn), l.ID)
	case utf8.RuneCountInString(l.Key) > maxKey:
		return "key", fmt.Sprintf("is %d characters; the limit is %d", utf8.RuneCountInString(l.Key), maxKey)
	case !isHash(l.Hash):
		return "hash", fmt.Sprintf("must be %d lowercase hexadecimal digits (a content hash), or absent", hashLen)
	}
	if err := plainField("key", l.Key); err != nil {
		return "key", err.(*FieldError).Msg
	}
	return "", ""
}

// isHash says whether h is empty or a content hash as turnHash makes it.
func isHash(h string) bool {
	if h == "" {
		return true
	}
	if len(h) != hashLen {
		return false
	}
	for _, c := range []byte(h) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// plannedMarks is the marks of ss that the store takes. Those it holds
// already (or, for a mark of its position alone, marks with more) are
// counted in res.MarksSkipped, and those of a turn it holds (have: at
// that turn with that content, or anywhere in the session with that
// message id; the memory wins) in res.MarksLive; a store whose marks do
// not move (ForgottenMarks) takes none, counted in res.MarksNotKept. A
// turn the store marks with another key or hash, or holds with other
// content, is a *LineError: a position it marks alone (a damaged mark)
// takes the file's.
func (s *Service) plannedMarks(ctx context.Context, ss sessionLines, have []Memory, res *ImportResult) ([]Memory, error) {
	if len(ss.marks) == 0 {
		return nil, nil
	}
	fm, ok := s.store.(ForgottenMarks)
	if !ok {
		res.MarksNotKept += len(ss.marks)
		return nil, nil
	}
	held, err := fm.ForgottenTurns(ctx, ss.ns, ss.id)
	if err != nil {
		return nil, fmt.Errorf("reading the marks of forgotten turns of session %s of namespace %s: %w", ss.id, ss.ns, err)
	}
	marked := make(map[int]Memory, len(held))
	for _, m := range held {
		marked[m.Turn] = m
	}
	live := make(map[int]Memory, len(have))
	keys := make(map[string]bool, len(have))
	for _, m := range have {
		live[m.Turn] = m
		if m.Key != "" {
			keys[m.Key] = true
		}
	}
	var out []Memory
	for _, l := range ss.marks {
		old, ok := marked[l.m.Turn]
		mem, stored := live[l.m.Turn]
		bare := l.m.Key == "" && l.m.Hash == "" // a damaged mark's position alone
		switch {
		case stored && !bare && mem.Hash != l.m.Hash && (l.m.Key == "" || mem.Key != l.m.Key):
			return nil, otherTurn(l)
		case stored || keys[l.m.Key]:
			res.MarksLive++
		case ok && (old.Key == l.m.Key && old.Hash == l.m.Hash || bare):
			res.MarksSkipped++
		case ok && (old.Key != "" || old.Hash != ""):
			return nil, otherMark(l, old)
		default:
			out = append(out, l.m)
		}
	}
	return out, nil
}

// otherTurn is the error for the mark of line l at a turn the store holds
// with other content: not the turn forgotten.
func otherTurn(l lined) error {
	return &LineError{l.line, "forgotten.hash", fmt.Sprintf("turn %d of session %s of namespace %s is stored here with other content than the turn this marks forgotten (forget that session with reimport first to replace it)", l.m.Turn, l.m.SessionID, l.m.Namespace)}
}

// otherMark is the error for the mark of line l at a turn the store marks
// otherwise (old).
func otherMark(l lined, old Memory) error {
	field := "forgotten.hash"
	if old.Key != l.m.Key {
		field = "forgotten.key"
	}
	return &LineError{l.line, field, fmt.Sprintf("turn %d of session %s of namespace %s is already marked forgotten with another message id or content (forget that session with reimport first to replace its marks)", l.m.Turn, l.m.SessionID, l.m.Namespace)}
}

// importMarks stores the marks of ss that the store takes (plannedMarks),
// before the session's memories, so that a session stored in part never
// lacks them.
func (s *Service) importMarks(ctx context.Context, ss sessionLines, have []Memory, res *ImportResult) error {
	marks, err := s.plannedMarks(ctx, ss, have, res)
	if err != nil || len(marks) == 0 {
		return err
	}
	if err := s.store.(ForgottenMarks).MarkForgotten(ctx, ss.ns, ss.id, marks); err != nil {
		return fmt.Errorf("storing the marks of forgotten turns of session %s of namespace %s (line %d): %w", ss.id, ss.ns, ss.marks[0].line, err)
	}
	res.Marks += len(marks)
	return nil
}

// counted is n and the noun of one, or of many.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

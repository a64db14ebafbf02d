package evals

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// lmeDate is the layout of question_date and haystack_dates:
// "2023/05/30 (Tue) 23:40".
const lmeDate = "2006/01/02 (Mon) 15:04"

// lmeCategories maps question_type to the short names of the tables.
var lmeCategories = map[string]string{
	"single-session-user":       "SSU",
	"single-session-assistant":  "SSA",
	"single-session-preference": "SSP",
	"multi-session":             "MS",
	"temporal-reasoning":        "TR",
	"knowledge-update":          "KU",
}

type lmeRecord struct {
	QuestionID   string          `json:"question_id"`
	QuestionType string          `json:"question_type"`
	Question     string          `json:"question"`
	Answer       json.RawMessage `json:"answer"`
	QuestionDate string          `json:"question_date"`
	Dates        []string        `json:"haystack_dates"`
	SessionIDs   []string        `json:"haystack_session_ids"`
	Sessions     [][]lmeTurn     `json:"haystack_sessions"`
	AnswerIDs    []string        `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// LoadLongMemEval reads a file in the format of longmemeval_s_cleaned.json
// or longmemeval_oracle.json, plain or gzipped, one record at a time (the S
// file is hundreds of megabytes). Each question is a unit of its own.
func LoadLongMemEval(r io.Reader) (*Dataset, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("longmemeval: %w", err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	dec := json.NewDecoder(br)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("longmemeval: want a JSON array of records (%v)", err)
	}
	d := &Dataset{Name: "longmemeval"}
	codes := sessionCodes{}
	for dec.More() {
		var rec lmeRecord
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("longmemeval record %d: %w", len(d.Units), err)
		}
		u, err := lmeUnit(rec, codes)
		if err != nil {
			return nil, fmt.Errorf("longmemeval %s: %w", rec.QuestionID, err)
		}
		d.Units = append(d.Units, u)
	}
	return d, nil
}

func lmeUnit(rec lmeRecord, codes sessionCodes) (Unit, error) {
	cat, ok := lmeCategories[rec.QuestionType]
	if !ok {
		return Unit{}, fmt.Errorf("unknown question_type %q", rec.QuestionType)
	}
	if len(rec.Dates) != len(rec.Sessions) || len(rec.SessionIDs) != len(rec.Sessions) {
		return Unit{}, fmt.Errorf("%d sessions, %d dates and %d session ids", len(rec.Sessions), len(rec.Dates), len(rec.SessionIDs))
	}
	now, err := time.Parse(lmeDate, strings.TrimSpace(rec.QuestionDate))
	if err != nil {
		return Unit{}, fmt.Errorf("question_date: %w", err)
	}
	evidence := set(rec.AnswerIDs)
	q := Question{
		ID:       rec.QuestionID,
		Category: cat,
		Text:     rec.Question,
		Answer:   answerText(rec.Answer),
		Date:     now,
		Abstain:  strings.HasSuffix(rec.QuestionID, "_abs"),
	}
	q.NoRetrieval = q.Abstain
	u := Unit{ID: rec.QuestionID, Now: now}
	ids := sessionIDs{}
	for i, turns := range rec.Sessions {
		date, err := time.Parse(lmeDate, strings.TrimSpace(rec.Dates[i]))
		if err != nil {
			return Unit{}, fmt.Errorf("haystack_dates[%d]: %w", i, err)
		}
		raw := rec.SessionIDs[i]
		s := Session{ID: ids.add(codes.of(raw)), Date: date, Evidence: evidence[raw] || strings.HasPrefix(raw, "answer_")}
		for j, t := range turns {
			ref := fmt.Sprintf("%s:%d", s.ID, j)
			s.Turns = append(s.Turns, Turn{Ref: ref, Role: t.Role, Text: t.Content, HasAnswer: t.HasAnswer})
			if t.HasAnswer {
				q.EvidenceTurns = append(q.EvidenceTurns, ref)
			}
		}
		if evidence[raw] {
			q.EvidenceSessions = append(q.EvidenceSessions, s.ID)
		}
		u.Sessions = append(u.Sessions, s)
	}
	u.Questions = []Question{q}
	return u, nil
}

// sessionCodes give each LongMemEval session the id agentmem stores it
// under: "s" and its number in the order the file first names it, the same
// wherever the session appears (the M-proxy borrows sessions across
// haystacks by it). The benchmark's ids name the evidence ("answer_…"),
// and a recall shows its session ids to the answer model; short codes
// also cost few tokens.
type sessionCodes map[string]string

func (c sessionCodes) of(raw string) string {
	if id, ok := c[raw]; ok {
		return id
	}
	id := fmt.Sprintf("s%d", len(c)+1)
	c[raw] = id
	return id
}

// sessionIDs makes benchmark session ids safe as agentmem session ids
// (ASCII letters, digits and ._-:@/+) and unique within a unit.
type sessionIDs map[string]bool

func (seen sessionIDs) add(raw string) string {
	id := strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@/+", r)) {
			return r
		}
		return '_'
	}, raw)
	id = cmp.Or(id, "session")
	base := id
	for n := 2; seen[id]; n++ {
		id = fmt.Sprintf("%s+%d", base, n)
	}
	seen[id] = true
	return id
}

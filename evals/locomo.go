package evals

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// locomoCategories maps LoCoMo's category numbers to names. The numbers do
// not follow the order the paper lists the types in; this mapping is the
// one the official evaluation code and the data agree on.
var locomoCategories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// locomoDate is the layout of session_<N>_date_time: "1:56 pm on 8 May, 2023".
const locomoDate = "3:04 pm on 2 January, 2006"

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoQA struct {
	Question    string          `json:"question"`
	Answer      json.RawMessage `json:"answer"`
	Adversarial json.RawMessage `json:"adversarial_answer"`
	Evidence    []string        `json:"evidence"`
	Category    int             `json:"category"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// LoadLoCoMo reads a file in the format of locomo10.json. Sessions are read
// from the session_<N> keys (conv-26 has dates for sessions without turns);
// speaker_a becomes role user and speaker_b role assistant, both with their
// names as speaker; a shared photo's caption is appended to its turn, since
// an agent would have seen the photo. Evidence ids are read leniently and
// ids that name no turn are dropped (and counted in the notes).
func LoadLoCoMo(r io.Reader) (*Dataset, error) {
	var samples []locomoSample
	if err := json.NewDecoder(r).Decode(&samples); err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	d := &Dataset{Name: "locomo", Notes: []string{
		"LoCoMo questions carry no date: each conversation's questions are asked the day after its last session, and the today tool says so.",
	}}
	dropped, empty := 0, 0
	for _, s := range samples {
		u, nd, ne, err := locomoUnit(s)
		if err != nil {
			return nil, fmt.Errorf("locomo %s: %w", s.SampleID, err)
		}
		dropped += nd
		empty += ne
		d.Units = append(d.Units, u)
	}
	if dropped > 0 || empty > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d evidence ids name no turn and were dropped; %d questions have no usable evidence and are left out of retrieval metrics.", dropped, empty))
	}
	return d, nil
}

// locomoUnit reads one conversation of LoCoMo: its sessions with turns,
// and its questions, asked the day after its last session. It also
// returns how many evidence ids named no turn (dropped) and how many
// questions were left without evidence.
func locomoUnit(s locomoSample) (Unit, int, int, error) {
	u := Unit{ID: s.SampleID}
	var speakerA string
	json.Unmarshal(s.Conversation["speaker_a"], &speakerA)
	var nums []int
	for k := range s.Conversation {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	sessionOf := map[string]string{} // every turn's ref -> its session
	for _, n := range nums {
		sess, ok, err := locomoSession(s, n, speakerA, sessionOf)
		if err != nil {
			return u, 0, 0, err
		}
		if ok {
			u.Sessions = append(u.Sessions, sess)
		}
	}
	if len(u.Sessions) == 0 {
		return u, 0, 0, fmt.Errorf("no sessions")
	}
	y, m, day := slices.MaxFunc(u.Sessions, bySessionDate).Date.Date()
	u.Now = time.Date(y, m, day+1, 12, 0, 0, 0, time.UTC)

	dropped, empty := 0, 0
	for i, qa := range s.QA {
		q, nd, err := locomoQuestion(s.SampleID, i, qa, u.Now, sessionOf)
		if err != nil {
			return u, 0, 0, err
		}
		dropped += nd
		if len(q.EvidenceTurns) == 0 {
			empty++
		}
		u.Questions = append(u.Questions, q)
	}
	return u, dropped, empty, nil
}

// locomoSession reads session n of s, dated by its session_<n>_date_time;
// speakerA's turns are the user's. It notes each turn's session in
// sessionOf. ok is false for a session without turns, whose date is not
// read.
func locomoSession(s locomoSample, n int, speakerA string, sessionOf map[string]string) (sess Session, ok bool, err error) {
	var turns []locomoTurn
	if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", n)], &turns); err != nil {
		return sess, false, fmt.Errorf("session_%d: %w", n, err)
	}
	if len(turns) == 0 {
		return sess, false, nil
	}
	var when string
	json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d_date_time", n)], &when)
	date, err := time.Parse(locomoDate, strings.TrimSpace(when))
	if err != nil {
		return sess, false, fmt.Errorf("session_%d_date_time: %w", n, err)
	}
	sess = Session{ID: fmt.Sprintf("session_%d", n), Date: date}
	for i, t := range turns {
		role := "assistant"
		if t.Speaker == speakerA {
			role = "user"
		}
		text := t.Text
		if t.Caption != "" {
			text += " [shared a photo: " + t.Caption + "]"
		}
		ref := normaliseDiaID(t.DiaID)
		if ref == "" {
			ref = fmt.Sprintf("D%d:%d", n, i+1)
		}
		sessionOf[ref] = sess.ID
		sess.Turns = append(sess.Turns, Turn{Ref: ref, Role: role, Speaker: t.Speaker, Text: text})
	}
	return sess, true, nil
}

// locomoQuestion reads question i of sample, asked at now, with its
// evidence: the turns its ids name (sessionOf), and their sessions. It
// also returns how many of its ids named no turn and were dropped.
func locomoQuestion(sample string, i int, qa locomoQA, now time.Time, sessionOf map[string]string) (Question, int, error) {
	name, ok := locomoCategories[qa.Category]
	if !ok {
		return Question{}, 0, fmt.Errorf("qa %d: unknown category %d", i, qa.Category)
	}
	q := Question{
		ID:          fmt.Sprintf("%s/q%d", sample, i),
		Category:    name,
		Text:        qa.Question,
		Answer:      answerText(qa.Answer),
		Adversarial: answerText(qa.Adversarial),
		Date:        now,
		Abstain:     qa.Category == 5,
	}
	if qa.Category == 3 {
		// The official scorer keeps the part before the first ';'.
		q.Answer, _, _ = strings.Cut(q.Answer, ";")
		q.Answer = strings.TrimSpace(q.Answer)
	}
	dropped := 0
	for _, ref := range parseEvidence(qa.Evidence) {
		sid, ok := sessionOf[ref]
		if !ok {
			dropped++
			continue
		}
		if !slices.Contains(q.EvidenceTurns, ref) {
			q.EvidenceTurns = append(q.EvidenceTurns, ref)
		}
		if !slices.Contains(q.EvidenceSessions, sid) {
			q.EvidenceSessions = append(q.EvidenceSessions, sid)
		}
	}
	return q, dropped, nil
}

var diaID = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// parseEvidence reads LoCoMo evidence lists, which hold malformed entries:
// several ids in one string ("D8:6; D9:17", "D9:1 D4:4"), a stray colon
// ("D:11:26") and bare "D".
func parseEvidence(list []string) []string {
	var out []string
	for _, e := range list {
		for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' || r == '\t' }) {
			if ref := normaliseDiaID(f); ref != "" {
				out = append(out, ref)
			}
		}
	}
	return out
}

// normaliseDiaID returns "D<session>:<turn>" without leading zeros, or ""
// when s is no dialogue id.
func normaliseDiaID(s string) string {
	m := diaID.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("D%d:%d", a, b)
}

// answerText reads an answer that may be a string or a number.
func answerText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

package evals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Result is one question asked under one configuration by one agent: a
// line of results.jsonl.
type Result struct {
	Agent    string `json:"agent"` // scripted or llm
	Config   string `json:"config"`
	Unit     string `json:"unit"`
	Question string `json:"question"`
	Category string `json:"category"`
	Abstain  bool   `json:"abstain,omitempty"`
	// Recalled are the ids of the memories the agent was given, in the
	// order it was given them.
	Recalled []string `json:"recalled"`
	// K is the k the recall reported using: the configuration's, or with
	// k=auto the one the server took from the history's size (a recency
	// row's, which recalls a larger pool and keeps its newest k: that k).
	K         int       `json:"k,omitempty"`
	Evidence  []string  `json:"evidence,omitempty"`
	Retrieval Retrieval `json:"retrieval"`
	// Tokens is the o200k size of the recalled context the answer model
	// was (or would have been) shown.
	Tokens int `json:"tokens"`
	// AnswerShown says whether the gold answer's words all appear in that
	// context (see AnswerShown); absent without a gold answer.
	AnswerShown *bool   `json:"answer_shown,omitempty"`
	RecallMS    float64 `json:"recall_ms"`
	// Recalls counts recall calls: one for the scripted agent.
	Recalls    int    `json:"recalls"`
	Answer     string `json:"answer,omitempty"`
	Gold       string `json:"gold,omitempty"`
	Correct    *bool  `json:"correct,omitempty"`
	Sufficient *bool  `json:"sufficient,omitempty"`
	// FailureKind is set when a peer failed to answer (package peers:
	// crash, timeout, malformed, error), with Failure saying how; the
	// question then counts as a miss. Restarted says the peer was
	// restarted after it.
	FailureKind string `json:"failure_kind,omitempty"`
	// RerankError is set when the server's reranker did not order this
	// recall (the fused order stood), saying why.
	RerankError string `json:"rerank_error,omitempty"`
	Failure     string `json:"failure,omitempty"`
	Restarted   bool   `json:"restarted,omitempty"`
	// HostSame says, for an agent behind a host, whether the host showed
	// its model exactly the text the in-process recall returned.
	HostSame *bool `json:"host_same,omitempty"`
	// Fingerprint identifies everything the result depends on; a cached
	// result is reused only when it matches.
	Fingerprint string `json:"fingerprint"`
}

func (r Result) key() string { return r.Agent + "\x00" + r.Config + "\x00" + r.Question }

// IngestStat is how long one unit took to store at one granularity.
type IngestStat struct {
	Unit        string      `json:"unit"`
	Granularity Granularity `json:"granularity"`
	Turns       int         `json:"turns"`
	Start       time.Time   `json:"start"`
	End         time.Time   `json:"end"`
	Fingerprint string      `json:"fingerprint"`
}

// Results keeps results on disk as they are made, so that an interrupted run
// resumes where it stopped: results.jsonl and ingest.jsonl in one directory.
type Results struct {
	dir     string
	mu      sync.Mutex
	results map[string]Result
	ingest  []IngestStat
	rf, inf *os.File
}

// OpenStore reads the results already in dir and opens its files for
// appending.
func OpenResults(dir string) (*Results, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Results{dir: dir, results: map[string]Result{}}
	err := readLines(filepath.Join(dir, "results.jsonl"), func(line []byte) {
		var r Result
		if json.Unmarshal(line, &r) == nil && r.Question != "" {
			s.results[r.key()] = r
		}
	})
	if err != nil {
		return nil, err
	}
	err = readLines(filepath.Join(dir, "ingest.jsonl"), func(line []byte) {
		var st IngestStat
		if json.Unmarshal(line, &st) == nil && st.Unit != "" {
			s.ingest = append(s.ingest, st)
		}
	})
	if err != nil {
		return nil, err
	}
	if s.rf, err = appendFile(filepath.Join(dir, "results.jsonl")); err != nil {
		return nil, err
	}
	if s.inf, err = appendFile(filepath.Join(dir, "ingest.jsonl")); err != nil {
		s.rf.Close()
		return nil, err
	}
	return s, nil
}

// readLines calls f for each line of path; a missing file has none. A
// line cut short by a crash fails to decode and is skipped by f.
func readLines(path string, f func([]byte)) error {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		f(sc.Bytes())
	}
	return sc.Err()
}

func appendFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// A line cut short by a crash must not swallow the next one.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		if raw, err := os.ReadFile(path); err == nil && raw[len(raw)-1] != '\n' {
			f.Write([]byte{'\n'})
		}
	}
	return f, nil
}

// Cached returns the stored result of r's key when its fingerprint matches.
func (s *Results) Cached(agent, config, question, fingerprint string) (Result, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[Result{Agent: agent, Config: config, Question: question}.key()]
	return r, ok && r.Fingerprint == fingerprint
}

// Add records r.
func (s *Results) Add(r Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[r.key()] = r
	return appendJSON(s.rf, r)
}

// AddIngest records st.
func (s *Results) AddIngest(st IngestStat) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ingest = append(s.ingest, st)
	return appendJSON(s.inf, st)
}

// appendJSON writes v to f as one line.
func appendJSON(f *os.File, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	return err
}

// Ingest returns the ingest records made with fingerprint.
func (s *Results) Ingest(fingerprint string) []IngestStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	return where(s.ingest, func(st IngestStat) bool { return st.Fingerprint == fingerprint })
}

// Close rewrites results.jsonl with keep's results only, in a stable
// order (agent, configuration, question), and closes the files.
func (s *Results) Close(keep []Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := errors.Join(s.rf.Close(), s.inf.Close())
	if keep == nil {
		return err
	}
	sorted := slices.Clone(keep)
	slices.SortStableFunc(sorted, func(a, b Result) int {
		return strings.Compare(a.key(), b.key())
	})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range sorted {
		if e := enc.Encode(r); e != nil {
			return errors.Join(err, e)
		}
	}
	tmp := filepath.Join(s.dir, "results.jsonl.tmp")
	if e := os.WriteFile(tmp, b.Bytes(), 0o666); e != nil {
		return errors.Join(err, e)
	}
	if e := os.Rename(tmp, filepath.Join(s.dir, "results.jsonl")); e != nil {
		return errors.Join(err, fmt.Errorf("writing results.jsonl: %w", e))
	}
	return err
}

package evals

import "time"

// Dataset is a benchmark loaded into one shape: units of history (a LoCoMo
// conversation, a LongMemEval question's haystack), each with the questions
// asked about it.
type Dataset struct {
	// Name is "locomo" or "longmemeval".
	Name  string
	Units []Unit
	// Notes are caveats to print in the report, such as how question dates
	// were chosen.
	Notes []string
}

// Unit is one history that is ingested into its own namespace, and the
// questions asked about it.
type Unit struct {
	ID       string
	Sessions []Session
	// Now is the clock the server runs with while the unit's questions are
	// asked: LongMemEval's question_date; for LoCoMo, which has none, the day
	// after the last session.
	Now       time.Time
	Questions []Question
}

// Session is one conversation session, in the order the benchmark lists it.
type Session struct {
	ID    string
	Date  time.Time
	Turns []Turn
	// Evidence marks the sessions a benchmark names as holding an answer
	// (LongMemEval answer_session_ids); M-proxy never borrows them.
	Evidence bool
}

// Turn is one message of a session.
type Turn struct {
	// Ref names the turn for scoring: LoCoMo's dia_id ("D1:3"), or
	// "<session id>:<index>" for LongMemEval.
	Ref     string
	Role    string // user or assistant
	Speaker string // a person's name, when the benchmark has one
	Text    string
	// HasAnswer is LongMemEval's has_answer flag.
	HasAnswer bool
}

// Question is one benchmark question with its gold answer and evidence.
type Question struct {
	ID string
	// Category is the short type name used in every table: single-hop,
	// multi-hop, temporal, open-domain, adversarial (LoCoMo); SSU, SSA,
	// SSP, MS, TR, KU (LongMemEval).
	Category string
	Text     string
	Answer   string
	// Adversarial is LoCoMo's plausible wrong answer for category 5.
	Adversarial string
	// Date is when the question is asked.
	Date time.Time
	// Abstain marks questions whose right reply is that the history does
	// not say (LongMemEval _abs, LoCoMo adversarial).
	Abstain bool
	// NoRetrieval leaves the question out of retrieval metrics:
	// LongMemEval's abstention questions, whose evidence sessions are
	// deliberately unanswerable.
	NoRetrieval bool
	// EvidenceTurns are the Refs of the turns that hold the answer.
	EvidenceTurns []string
	// EvidenceSessions are the ids of the sessions that hold the answer
	// (LongMemEval only).
	EvidenceSessions []string
}

// Turns counts the turns of every unit.
func (d *Dataset) Turns() int {
	n := 0
	for _, u := range d.Units {
		for _, s := range u.Sessions {
			n += len(s.Turns)
		}
	}
	return n
}

// Questions counts the questions of every unit.
func (d *Dataset) Questions() int {
	n := 0
	for _, u := range d.Units {
		n += len(u.Questions)
	}
	return n
}

// Categories lists a benchmark's categories in report order.
func Categories(benchmark string) []string {
	if benchmark == "locomo" {
		return []string{"single-hop", "multi-hop", "temporal", "open-domain", "adversarial"}
	}
	return []string{"SSU", "SSA", "SSP", "MS", "TR", "KU"}
}

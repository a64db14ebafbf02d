// Package spec declares the agentmem tools as the protocol carries them:
// one typed struct per tool's arguments and one per its structured result.
// Each arguments struct is the single source of its tool's input schema
// (Schema) and of the checks the server applies (Validate): names and
// optionality come from the json tags, descriptions from the jsonschema
// tags, and limits from the schema tags. The server (package tools) and the
// typed client (package client) share these types; the package imports
// nothing of agentmem, so a client of the server never links the memory.
//
// Lengths are counted in characters (Unicode code points), as JSON Schema's
// minLength and maxLength count them.
package spec

import "strings"

// Message is one conversation turn as a client sends it.
type Message struct {
	Role      string `json:"role" jsonschema:"Who spoke: user, assistant, system or tool." schema:"enum=user|assistant|system|tool"`
	Content   string `json:"content" jsonschema:"The turn's text, verbatim." schema:"minLength=1,maxLength=65536"`
	Speaker   string `json:"speaker,omitempty" jsonschema:"Who spoke, when role is not enough (a person's name)." schema:"maxLength=128"`
	Timestamp string `json:"timestamp,omitempty" jsonschema:"When this turn was said, if known: a date or date-time in one of the forms session_date accepts. A turn said on a later day than its session's date is dated by it." schema:"maxLength=64"`
	ID        string `json:"id,omitempty" jsonschema:"Your own stable id of this turn (e.g. the client's message id), if it has one: a message whose id the session already holds is a resend, whatever its text, and a repeated text with a new id is a new turn." schema:"maxLength=256"`
}

// RememberArgs are the remember tool's arguments.
type RememberArgs struct {
	Messages    []Message `json:"messages" jsonschema:"The turns, in order: at most 2,000 per call, 65,536 characters each, 8 MiB of content in all (send a longer session in several calls with the same session_id)." schema:"minItems=1,maxItems=2000"`
	SessionID   string    `json:"session_id,omitempty" jsonschema:"Stable id of the conversation session; reuse it to append turns (the start of a UUID id as a recall shows it appends to that session). Generated when absent." schema:"maxLength=256,pattern=name"`
	SessionDate string    `json:"session_date,omitempty" jsonschema:"When the session took place: an ISO 8601 date or date-time (2023-05-08, 2023-05-08T13:56:00Z), '1:56 pm on 8 May, 2023', '8 May 2023', 'May 8, 2023' or '2023/05/30 (Tue) 23:40'. Default: the session's existing date, else now." schema:"maxLength=64"`
	Namespace   string    `json:"namespace,omitempty" jsonschema:"Memory space (one per user or agent). Default: the server's namespace." schema:"maxLength=128,pattern=name"`
	Turn        *int      `json:"turn,omitempty" jsonschema:"Position in the session of the first message (0 for the session's first turn; memory ids end with it). With it, a message at a position the session holds is a resend (it must be the same message) and the rest are appended, so a repeated turn is never mistaken for a resend. Without it (and without message ids), only the session's last turns can be taken for a resend." schema:"minimum=0,maximum=1073741824"`
	Vectors     string    `json:"vectors,omitempty" jsonschema:"When the semantic vectors are made: wait (default: the call waits a few seconds for them, then leaves the rest to the background) or later (the call returns once the text is stored and searchable; the vectors are made in the background, in batches: for storing a history in bulk; recall's pending counts the memories still waiting)." schema:"enum=wait|later"`
}

// RememberResult says what a remember call stored.
type RememberResult struct {
	Namespace   string `json:"namespace"`
	SessionID   string `json:"session_id"`
	SessionDate string `json:"session_date" jsonschema:"RFC 3339."`
	// Stored counts the turns stored by this call; Skipped the turns the
	// session already held (a session sent twice is stored once);
	// Forgotten the turns it held until they were forgotten (by their ids
	// or with their session), which a resend does not store again.
	Stored    int `json:"stored"`
	Skipped   int `json:"skipped"`
	Forgotten int `json:"forgotten,omitempty" jsonschema:"Turns of the call the session held until they were forgotten (forget by ids or by session): not stored again."`
	// IDs holds the memory id of every message of the call, in order,
	// whether this call stored it or the session already held it.
	IDs []string `json:"ids" jsonschema:"The memory id of each message, in the order sent (also for turns already stored)."`
}

// RecallArgs are the recall tool's arguments.
type RecallArgs struct {
	Query          string   `json:"query" jsonschema:"The question or topic, in natural language." schema:"minLength=1,maxLength=4096"`
	K              int      `json:"k,omitempty" jsonschema:"About how many memories to return. With excerpts (the default), a recall fills the space its best memories would take shown whole with as many as fit; by default that space is read from how many candidates are likely answers, between 0.3k and 3k memories (see budget). Default: from the size of the history: 10 up to 1,000 memories (about 50 sessions), about one more for each quarter more, at most 20." schema:"minimum=1,maximum=100"`
	Namespace      string   `json:"namespace,omitempty" jsonschema:"Memory space to search. Default: the server's namespace." schema:"maxLength=128,pattern=name"`
	SessionID      string   `json:"session_id,omitempty" jsonschema:"Only memories of this session: its id, or the start of a UUID id as a recall shows it (8 characters or more)." schema:"maxLength=256,pattern=name"`
	ExcludeSession string   `json:"exclude_session,omitempty" jsonschema:"Leave out the memories of this session (its id, or the start of a UUID id as a recall shows it): the conversation you are in, whose turns you already have." schema:"maxLength=256,pattern=name"`
	After          string   `json:"after,omitempty" jsonschema:"Only sessions on or after this date (a date or date-time, as session_date)." schema:"maxLength=64"`
	Before         string   `json:"before,omitempty" jsonschema:"Only sessions on or before this date (a bare date includes that whole day). Not set by default: memories are never hidden for being recent." schema:"maxLength=64"`
	Order          string   `json:"order,omitempty" jsonschema:"Order of the returned memories: relevance (default, best first), chronological (oldest first) or recency (newest first). The choice of memories is always by relevance." schema:"enum=relevance|chronological|recency"`
	Fusion         string   `json:"fusion,omitempty" jsonschema:"Advanced: how text and vector rankings combine: rrf (default), rsf, text, vector, or rerank (BM25 re-ranks the vector pool)." schema:"enum=rrf|rsf|text|vector|rerank"`
	Pool           int      `json:"pool,omitempty" jsonschema:"Advanced: candidates per ranking before fusion. Default max(5k, 50)." schema:"minimum=1,maximum=1000"`
	Weights        *Weights `json:"weights,omitempty" jsonschema:"Advanced: fusion weights."`
	Context        int      `json:"context,omitempty" jsonschema:"How many neighbouring turns of its session come with each memory found, on each side (0 to 3), in its session's passage, in turn order." schema:"minimum=0,maximum=3"`
	Excerpt        *int     `json:"excerpt,omitempty" jsonschema:"Show a memory longer than about this many tokens as its part that best matches the query (marked with …), and fill the space that saves with more memories, up to what the best memories would take shown whole (see budget), each with its own header (never more tokens). 0: exactly k memories, whole." schema:"minimum=0,maximum=100000,default=40"`
	MaxTokens      int      `json:"max_tokens,omitempty" jsonschema:"An approximate budget for the returned text, counted as it is rendered (about four characters a token): a memory (with its context) that would take the text past it is left out, and the next ones are still tried; the best one is always kept, as its part around the query's words when it alone is longer. Default: no budget beyond the one budget sets." schema:"minimum=1,maximum=100000"`
	Reranker       *bool    `json:"reranker,omitempty" jsonschema:"Advanced: whether the server's reranker (a model that reads the query and each memory together) orders the best candidates. Default: yes when the server has one (--reranker-url); true when it has none is an error."`
	Format         string   `json:"format,omitempty" jsonschema:"text (default): the memories as text to read, after a first line 'Today is ...'. json: also the structured result (ids, scores, ranks; each memory as the text shows it), for programs; hosts that show a model the structured result (Claude Code does) then show it that instead of the text." schema:"enum=text|json"`
	Budget         string   `json:"budget,omitempty" jsonschema:"Advanced: the space a recall with excerpts fills: what its best n memories take shown whole. chance (default): n counts the best 4k candidates that the learned order finds at least 6.6% as likely to hold the answer as the best one, between 0.3k and 3k: fewer memories where one answers the question, more where the answer is spread over many, and at least k excerpts' space where the question asks for several things, e.g. 'Which cities has Jon visited?' (n is k where the learned order does not rank the candidates alone: weights.learned below 1, a reranker, one side without candidates). k: n is k." schema:"enum=chance|k"`
	Explain        bool     `json:"explain,omitempty" jsonschema:"Advanced, with format json: also return every candidate of the fused pool (both sides' pools) with what the learned order read of it, as structured candidates; the recall is otherwise the same."`
}

// Weights tune fusion; each one left out keeps its default.
type Weights struct {
	Text         float64  `json:"text,omitempty" jsonschema:"Weight of the text ranking (default 1)." schema:"exclusiveMinimum=0,maximum=100"`
	Vector       float64  `json:"vector,omitempty" jsonschema:"Weight of the vector ranking (default 1)." schema:"exclusiveMinimum=0,maximum=100"`
	Entity       float64  `json:"entity,omitempty" jsonschema:"Boost of the entity match inside the text ranking (default 1.5)." schema:"exclusiveMinimum=0,maximum=100"`
	Adjacent     *float64 `json:"adjacent,omitempty" jsonschema:"A memory scores at least this fraction of the score of its neighbouring turn (just before or after it in its session) when that turn is one of the 5 best candidates, so an answer ranks with the question it answers (default 0.5); 0 turns it off." schema:"minimum=0,maximum=1"`
	Time         *float64 `json:"time,omitempty" jsonschema:"Boost of a memory dated in, or mentioning a date in, a period the query names ('last week', 'in May 2023'), in units of the best candidate's score (default 0.5); 0 turns it off. Never a filter." schema:"minimum=0,maximum=100"`
	Kinds        *float64 `json:"kinds,omitempty" jsonschema:"Weight of the query's words matched against what kind of thing each memory's nouns name (WordNet: a turn about Oregon names a state, so 'which states' finds it), inside the text ranking (default 0.3); 0 turns it off." schema:"minimum=0,maximum=100"`
	Learned      *float64 `json:"learned,omitempty" jsonschema:"How far the candidates are ordered by the learned model's chance that each is evidence, read from what the search knows of it and of the other candidates (default 1: by the model alone; between 0 and 1 a blend with the fused order); 0 keeps the fused order. Only the default fusion (rrf) is reordered." schema:"minimum=0,maximum=1"`
	RankConstant int      `json:"rank_constant,omitempty" jsonschema:"Reciprocal-rank fusion's k (default 1: each side's best few decide)." schema:"minimum=1,maximum=1000"`
}

// Recalled is one memory in recall's structured result. Text is what the
// text result shows of it, raw: a long memory's excerpt (Excerpt true),
// not its whole text, which its session holds (SessionURI), so that a
// host that shows its model the structured result shows it the memories
// the budget chose, as excerpts.
type Recalled struct {
	ID          string  `json:"id"`
	Text        string  `json:"text" jsonschema:"The memory's text as stored, or for a long one (excerpt true) the part the text result shows: its words around the query's, on one line, marked with … where it is cut. The text result also annotates relative dates; this is the raw text. The whole turn is in its session's resource (agentmem://{namespace}/sessions/{session_id})."`
	Excerpt     bool    `json:"excerpt,omitempty" jsonschema:"true when text is a part of the memory (see recall's excerpt argument); absent when it is the whole."`
	Role        string  `json:"role"`
	Speaker     string  `json:"speaker,omitempty" jsonschema:"Who spoke, when the memory names a person; absent when it does not."`
	SessionID   string  `json:"session_id"`
	SessionDate string  `json:"session_date" jsonschema:"RFC 3339."`
	Score       float64 `json:"score" jsonschema:"How relevant the memory is, higher is better, comparable only within one recall: the fused score (with rrf, each side's weight over rank_constant plus the memory's rank there, summed, then the time and neighbouring-turn boosts), or the reranker's when fused_rank is set. The memories come in passages, ordered by their best memory's score, turns in turn order within one, so the list is not sorted by score."`
	// Hit is true for a memory the search found, false for a neighbouring
	// turn returned as its context; Passage numbers the passage (from 0)
	// the memory is returned in.
	Hit        bool `json:"hit" jsonschema:"true for a memory the search found, false for a neighbouring turn returned as context."`
	Passage    int  `json:"passage" jsonschema:"The passage (from 0) the memory belongs to: the memories of one session, in turn order, shown under one header."`
	TextRank   int  `json:"text_rank,omitempty" jsonschema:"Rank of this memory in the text ranking (BM25 and entities), from 1; absent when that side did not return it or the store fused on its server."`
	VectorRank int  `json:"vector_rank,omitempty" jsonschema:"Rank of this memory in the vector ranking, from 1; absent when that side did not return it or the store fused on its server."`
	FusedRank  int  `json:"fused_rank,omitempty" jsonschema:"Rank of this memory in the fused ranking, from 1, when a reranker ordered the memories (score is then the reranker's); absent otherwise."`
	// Dates are the periods the text result writes after text's relative
	// dates: what the raw text leaves to the model to work out.
	Dates []Period `json:"dates,omitempty" jsonschema:"The dates that text's relative expressions ('yesterday', 'last week', 'on 1/20', 'in May') name, resolved against its session_date, as the text result writes them after each in brackets; absent when it has none."`
}

// RecallResult is recall's structured result, best first (or in the
// requested order).
type RecallResult struct {
	// Today is the text result's first line, for a host that shows its
	// model only the structured result (Claude Code does).
	Today string `json:"today" jsonschema:"Today's date and time, as the text result's first line says it: resolve relative dates in the memories against their session dates, and the question's against this."`
	// Namespace is the namespace searched (the server's default when the
	// call named none): with a memory's session_id, its session's URI.
	Namespace string     `json:"namespace" jsonschema:"The namespace searched: with a memory's session_id it names the memory's session (agentmem://{namespace}/sessions/{session_id})."`
	Memories  []Recalled `json:"memories"`
	// K is the recall's k: the one asked for, or the one the history's
	// size gave.
	K int `json:"k" jsonschema:"The k this recall used: the one asked for or, when the call named none, the one the size of the namespace's history gave."`
	// Periods are the time expressions the query named, resolved against
	// the server's today, and TimeBoost the weight they had (0: none).
	Periods   []Period `json:"periods,omitempty" jsonschema:"The time expressions of the query, resolved against today: memories dated in one (or mentioning a date in one) were boosted by time_boost, never filtered."`
	TimeBoost float64  `json:"time_boost,omitempty"`
	// Digest says the query named periods and asked nothing else of them.
	Digest bool `json:"digest,omitempty" jsonschema:"True when the query named only periods ('What did we do last week?'): the memories are a digest of the sessions dated in them, each session's turns of most content, oldest first, not a search's best matches."`
	// Pending counts the memories of the namespace whose vectors are still
	// being made (a long remember is acknowledged before they are).
	Pending int `json:"pending,omitempty" jsonschema:"How many memories of the namespace are still waiting for their vectors (a long remember is acknowledged before they are made): until then they are found by their text only. Absent when none."`
	// PendingError is why making those vectors last failed, while it does.
	PendingError string `json:"pending_error,omitempty" jsonschema:"Why the last attempt to make the waiting memories' vectors failed (a full disk, an embedder that does not answer), while it does: they are tried again later. Absent otherwise."`
	// Reranker names the reranker that ordered the memories; RerankError
	// why the configured one did not (the fused order stands).
	Reranker    string `json:"reranker,omitempty" jsonschema:"The reranker that ordered the memories; absent when none did."`
	RerankError string `json:"rerank_error,omitempty" jsonschema:"Why the server's reranker did not order the memories (they are in the fused order); absent when it did or there is none."`
	// Note says why nothing was found when the namespace or session the
	// call named holds no memories, and where memories are.
	Note string `json:"note,omitempty" jsonschema:"Present when nothing was found because the namespace or the session the call named holds no memories: which namespaces do, or where the namespace's sessions are listed (ask again there); and for a digest, how many of the period's sessions it shows."`
	// Candidates, with explain, are every candidate of the fused pool.
	Candidates []Candidate `json:"candidates,omitempty" jsonschema:"With explain: every candidate of the fused pool, best first by the ranking before any reranker, with what the learned order read of it."`
	// FeatureNames, with explain, name the candidates' features in the
	// order the learned order's model reads them.
	FeatureNames []string `json:"feature_names,omitempty" jsonschema:"With explain: the names of the candidates' features, in the order the learned order's model reads them."`
}

// Candidate is one candidate of a recall's fused pool, as explain shows it.
type Candidate struct {
	ID         string             `json:"id"`
	Score      float64            `json:"score" jsonschema:"The candidate's score in the ranking (the learned order's chance that it is evidence, where it applies)."`
	TextRank   int                `json:"text_rank,omitempty"`
	VectorRank int                `json:"vector_rank,omitempty"`
	Features   map[string]float64 `json:"features" jsonschema:"What the learned order read of the candidate, by name (docs/tools.md, 'The learned order')."`
}

// Period is a time expression of a query and the period it names.
type Period struct {
	Expression string `json:"expression"`
	From       string `json:"from" jsonschema:"RFC 3339, inclusive."`
	To         string `json:"to" jsonschema:"RFC 3339, exclusive."`
}

// TodayArgs are the today tool's arguments: none.
type TodayArgs struct{}

// Today is the date a model should reason from.
type Today struct {
	Date     string `json:"date" jsonschema:"YYYY-MM-DD."`
	Weekday  string `json:"weekday"`
	Datetime string `json:"datetime" jsonschema:"RFC 3339."`
	Timezone string `json:"timezone"`
}

// ForgetArgs are the forget tool's arguments: exactly one of IDs,
// SessionID and All.
type ForgetArgs struct {
	IDs       []string `json:"ids,omitempty" jsonschema:"Memory ids to delete: a session id, a colon and the turn (0 for the first), as recall returns them with format json and as the session resource numbers the turns; the session part may be the start of a UUID as the recall text shows it." schema:"maxItems=1000,items.minLength=1,items.maxLength=400"`
	SessionID string   `json:"session_id,omitempty" jsonschema:"Delete every memory of this session: its id, or the start of a UUID id as a recall shows it (8 characters or more; refused when it starts several)." schema:"maxLength=256,pattern=name"`
	All       bool     `json:"all,omitempty" jsonschema:"Delete every memory of the namespace; needs confirm=true."`
	Confirm   bool     `json:"confirm,omitempty" jsonschema:"Must be true with all=true."`
	Reimport  bool     `json:"reimport,omitempty" jsonschema:"With session_id: let a later capture or import of the conversation store its turns again (to refresh an imported conversation). Without it, turns forgotten by ids or with their session stay forgotten when the conversation is captured again or imported from a history (an import of an export taken before the forget restores them). all starts the namespace over either way."`
	Namespace string   `json:"namespace,omitempty" jsonschema:"Memory space. Default: the server's namespace." schema:"maxLength=128,pattern=name"`
}

// ForgetResult says what was deleted.
type ForgetResult struct {
	Namespace string   `json:"namespace"`
	SessionID string   `json:"session_id,omitempty" jsonschema:"The session deleted, by its whole id, when session_id named one that held memories (also by its start)."`
	Deleted   int      `json:"deleted"`
	Unknown   []string `json:"unknown,omitempty" jsonschema:"The ids given that named no memory of the namespace, in their order."`
	Before    []string `json:"before,omitempty" jsonschema:"Those of unknown whose turn was forgotten before (it stays forgotten), in their order."`
	Note      string   `json:"note,omitempty" jsonschema:"What the forget could not do after it deleted, if anything."`
}

// Namespaced reports whether the tool named takes a namespace argument
// (remember, recall, forget): a relayed server gives a call of one that
// names none its own default namespace (server.RelayOptions.Namespace).
func Namespaced(tool string) bool {
	switch tool {
	case "remember", "recall", "forget":
		return true
	}
	return false
}

// ToolError is a tool's own error result: the call reached the tool, which
// refused it (bad arguments) or failed. Text is what the tool said.
type ToolError struct {
	Tool string
	Text string
}

func (e *ToolError) Error() string { return e.Tool + ": " + e.Text }

// Refused says whether the tool refused bad input (which it acts on not
// at all: sent again, it is refused again), rather than failed.
func (e *ToolError) Refused() bool { return strings.HasPrefix(e.Text, "invalid argument ") }

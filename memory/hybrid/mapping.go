package hybrid

import (
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"agentmem/memory"
	"agentmem/memory/hybrid/entities"
)

// Field names of an indexed memory. Every store indexes these names, so the
// query tree built by SearchRequest runs unchanged on any of them.
const (
	FieldNamespace   = "namespace"
	FieldSessionID   = "session_id"
	FieldSessionDate = "session_date"
	FieldRole        = "role"
	FieldSpeaker     = "speaker"
	FieldText        = "text"
	FieldEntities    = "entities"
	FieldVector      = "vector"
	// FieldContext and FieldContextEntities hold the text and the entities
	// of a memory's neighbouring turns in its session (see Doc).
	FieldContext         = "context"
	FieldContextEntities = "context_entities"
	// FieldPageText and FieldPageEntities are a session page's text and
	// entities (see PageDoc); their names differ from a memory's, so the
	// memories' query never matches a page.
	FieldPageText     = "page_text"
	FieldPageEntities = "page_entities"
	// FieldType names a document's type: memory documents leave it empty
	// (the default mapping), pages set TypePage.
	FieldType = "type"
	TypePage  = "page"
)

// ContextWords is how many words of each neighbouring turn a memory is
// indexed with: the end of the turn before it and the start of the turn
// after it, the words nearest to it. A long neighbour would otherwise
// lend every one of its words to a short turn.
const ContextWords = 40

// PageTurns is how many turns of a session one page holds: turns
// [p*PageTurns, (p+1)*PageTurns) are page p. A session's relevance is its
// best page's, so appending to a long session re-indexes one page, not the
// whole session.
const PageTurns = 32

// DocVersion counts the changes to how a memory's documents are derived
// (Doc, Page and the entities in them) that IndexMapping does not show: a
// store finding an index built with another version rebuilds it from the
// records. 2: neighbours' context and session pages; 3: the entities take
// their dates from package dates (lower-case months, "mid-August 2023",
// no impossible dates); 4: a bare weekday in a sentence about the future
// is the next one, not the last; 5: "two weeks from now" and the like are
// dates; 6: a month or day without a year in a sentence about the future
// is the next one.
const DocVersion = 6

// IndexDoc is the searchable projection of a Memory.
type IndexDoc struct {
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Role        string    `json:"role"`
	Speaker     string    `json:"speaker"`
	Text        string    `json:"text"`
	Entities    []string  `json:"entities"`
	// Context is the neighbouring turns' text nearest to this one, and
	// ContextEntities their entities (see ContextWords).
	Context         string   `json:"context,omitempty"`
	ContextEntities []string `json:"context_entities,omitempty"`
}

// Neighbours are the turns just before and after a memory in its session;
// nil at the session's ends.
type Neighbours struct {
	Prev, Next *memory.Memory
}

// Doc returns the searchable projection of m, with its neighbours' text as
// context. Its entities are those of the text plus the speaker's name, so
// "What did Caroline say…" matches every turn of Caroline's.
func Doc(m memory.Memory, n Neighbours) IndexDoc {
	return (*Deriver)(nil).Doc(m, n)
}

// A Deriver derives the documents of many turns at once (a batch, a
// replay, a rebuild), extracting each turn's entities once: a turn's
// entities go into its own document, its neighbours' context and its page,
// so without it they are extracted three or four times. Its documents are
// those of Doc and Page. The zero value is ready to use; a nil Deriver
// caches nothing.
type Deriver struct {
	ents map[turnText][]string
}

// turnText is what a turn's entities are made of.
type turnText struct{ text, speaker string }

// Doc is Doc(m, n).
func (dv *Deriver) Doc(m memory.Memory, n Neighbours) IndexDoc {
	d := IndexDoc{
		Namespace:   m.Namespace,
		SessionID:   m.SessionID,
		SessionDate: m.SessionDate,
		Role:        m.Role,
		Speaker:     m.Speaker,
		Text:        m.Text,
		Entities:    dv.entities(m),
	}
	// Every turn gets its neighbours' nearest words, whatever its length:
	// measured on LongMemEval (BM25, weights.neighbours 0.5), leaving turns
	// of over 60 words without context cost 2.1 points of session recall
	// and 2.9 of turn recall, and 2.2 on LoCoMo (EVALS.md, "Recall defaults").
	var ctx []string
	if n.Prev != nil {
		ctx = append(ctx, lastWords(n.Prev.Text, ContextWords))
		d.ContextEntities = appendNew(d.ContextEntities, dv.entities(*n.Prev)...)
	}
	if n.Next != nil {
		ctx = append(ctx, firstWords(n.Next.Text, ContextWords))
		d.ContextEntities = appendNew(d.ContextEntities, dv.entities(*n.Next)...)
	}
	d.Context = strings.Join(ctx, "\n")
	return d
}

// entities is turnEntities(m), extracted once per text and speaker. The
// slice is shared: it is capped so that appending to it copies.
func (dv *Deriver) entities(m memory.Memory) []string {
	if dv == nil {
		return turnEntities(m)
	}
	k := turnText{m.Text, m.Speaker}
	if e, ok := dv.ents[k]; ok {
		return e
	}
	if dv.ents == nil {
		dv.ents = map[turnText][]string{}
	}
	e := slices.Clip(turnEntities(m))
	dv.ents[k] = e
	return e
}

func turnEntities(m memory.Memory) []string {
	ents := entities.Extract(m.Text)
	if sp := strings.ToLower(strings.TrimSpace(m.Speaker)); sp != "" && !slices.Contains(ents, sp) {
		ents = append(ents, sp)
	}
	return ents
}

func appendNew(to []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(to, x) {
			to = append(to, x)
		}
	}
	return to
}

// firstWords is the first n words of s, lastWords the last n.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[:n], " ")
}

func lastWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[len(f)-n:], " ")
}

// PageDoc is one page of a session as indexed: the text and entities of
// its turns, for the session's relevance to a query (see PageRequest).
type PageDoc struct {
	Type        string    `json:"type"`
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Text        string    `json:"page_text"`
	Entities    []string  `json:"page_entities"`
}

// BleveType tells bleve which mapping indexes a page (bleve reads a
// struct's type field by its Go name, not its JSON name).
func (d PageDoc) BleveType() string { return TypePage }

// PageOf is the page that holds turn n of a session.
func PageOf(turn int) int { return turn / PageTurns }

// Page is the page document of ms, the turns of one page of a session in
// turn order.
func Page(ms []memory.Memory) PageDoc {
	return (*Deriver)(nil).Page(ms)
}

// Page is Page(ms).
func (dv *Deriver) Page(ms []memory.Memory) PageDoc {
	d := PageDoc{Type: TypePage}
	texts := make([]string, len(ms))
	for i, m := range ms {
		if i == 0 {
			d.Namespace, d.SessionID, d.SessionDate = m.Namespace, m.SessionID, m.SessionDate
		}
		texts[i] = m.Text
		d.Entities = appendNew(d.Entities, dv.entities(m)...)
	}
	d.Text = strings.Join(texts, "\n")
	return d
}

// IndexMapping is the bleve mapping of IndexDoc (the default mapping) and
// of PageDoc (type TypePage): English analysis (stemming, stop words) for
// texts, a plain tokenising analyzer for entities so that a phrase of a
// query entity matches inside a longer stored one, keywords for the
// filters, and BM25 scoring. Stores that keep vectors add FieldVector to
// the memories' mapping.
func IndexMapping() *mapping.IndexMappingImpl {
	doc := bleve.NewDocumentStaticMapping()
	textField(doc, FieldText, en.AnalyzerName)
	textField(doc, FieldEntities, standard.Name)
	textField(doc, FieldContext, en.AnalyzerName)
	textField(doc, FieldContextEntities, standard.Name)
	filterFields(doc, FieldRole, FieldSpeaker)

	page := bleve.NewDocumentStaticMapping()
	textField(page, FieldPageText, en.AnalyzerName)
	textField(page, FieldPageEntities, standard.Name)
	filterFields(page)
	// a page hit names its session (Couchbase returns stored fields, not
	// the key a store could parse)
	page.Properties[FieldSessionID].Fields[0].Store = true

	m := bleve.NewIndexMapping()
	m.TypeField = FieldType
	m.DefaultMapping = doc
	m.AddDocumentMapping(TypePage, page)
	m.DefaultAnalyzer = en.AnalyzerName
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	m.ScoringModel = index.BM25Scoring
	return m
}

// LeanMapping is IndexMapping without what this package's queries never
// read, which costs index time and space: doc values (for sorting and
// facets; every search here ranks by score) and the term vectors of the
// English-analysed texts (token positions, for phrases and highlighting;
// the texts are only BM25-matched, and phrases run on the entity fields
// alone, which keep theirs). Its analyzers are faster twins of en and
// standard that make the same tokens (analysis.go). Searches rank the
// same on either mapping (TestLeanMappingSameRanking). The embedded store
// indexes with it; the Couchbase store keeps IndexMapping, so its deployed
// index definitions stay as they are. A query that phrase-matches a text
// field needs the texts' term vectors back.
func LeanMapping() *mapping.IndexMappingImpl {
	m := IndexMapping()
	lean(m.DefaultMapping)
	for _, dm := range m.TypeMapping {
		lean(dm)
	}
	return m
}

func lean(dm *mapping.DocumentMapping) {
	for _, f := range dm.Fields {
		f.DocValues = false
		switch f.Analyzer {
		case en.AnalyzerName:
			f.IncludeTermVectors = false
			f.Analyzer = AnalyzerEnglish
		case standard.Name:
			f.Analyzer = AnalyzerStandard
		}
	}
	for _, p := range dm.Properties {
		lean(p)
	}
}

func textField(doc *mapping.DocumentMapping, name, analyzer string) {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = analyzer
	f.Store = false
	f.IncludeInAll = false
	doc.AddFieldMappingsAt(name, f)
}

// filterFields maps the fields every filter reads (namespace, session,
// date) and extra keyword fields.
func filterFields(doc *mapping.DocumentMapping, keywords ...string) {
	for _, f := range append([]string{FieldNamespace, FieldSessionID}, keywords...) {
		kw := bleve.NewKeywordFieldMapping()
		kw.Analyzer = keyword.Name
		kw.Store = false
		kw.IncludeInAll = false
		kw.IncludeTermVectors = false
		doc.AddFieldMappingsAt(f, kw)
	}
	date := bleve.NewDateTimeFieldMapping()
	date.Store = false
	date.IncludeInAll = false
	doc.AddFieldMappingsAt(FieldSessionDate, date)
}

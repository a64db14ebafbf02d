package hybrid

import (
	"log/slog"
	"runtime/debug"
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
	"agentmem/memory/hybrid/forms"
	"agentmem/memory/hybrid/kinds"
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
	// FieldKinds holds what kind of thing the text's nouns name
	// (package kinds: "Oregon" → "state"), matched by the query's words
	// at weights.kinds.
	FieldKinds = "kinds"
	// propForms is the document property holding the bases of the
	// text's words that stemming leaves apart from them (package forms:
	// irregular past forms, British spellings), indexed in FieldText
	// beside the text itself: no field of its own.
	propForms = "forms"
	// FieldType names a document's type: the embedded store's documents
	// leave it empty (the default mapping); Couchbase's memory documents
	// set it, and its index maps them by it.
	FieldType = "type"
)

// DocVersion counts the changes to how a memory's documents are derived
// (Doc and the entities in it) that IndexMapping does not show: a
// store finding an index built with another version rebuilds it from the
// records. 2: neighbours' context and session pages; 3: the entities take
// their dates from package dates (lower-case months, "mid-August 2023",
// no impossible dates); 4: a bare weekday in a sentence about the future
// is the next one, not the last; 5: "two weeks from now" and the like are
// dates; 6: a month or day without a year in a sentence about the future
// is the next one; 7: the kinds of the text's nouns (FieldKinds); 8: the
// bases of the text's irregular past forms and British spellings
// (IndexDoc.Forms); 9: and of its adjectives' comparatives and
// superlatives ("older" → "old"); 10: and of its irregular plurals
// ("children" → "child"); 11: a plural's possessive ("the children's")
// too, and the degrees and plurals that are mostly another word left out
// (closer, earlier, longer, men...); 12: the entities take the days
// written with slashes whose month is not in doubt ("on 2/15", "19/02/2023":
// dates.slashDay). Each version
// from 7 on is pinned to the tables it derives documents with
// (TestDocVersionPinsTheTables).
const DocVersion = 12

// IndexDoc is the searchable projection of a Memory.
type IndexDoc struct {
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Role        string    `json:"role"`
	Speaker     string    `json:"speaker"`
	Text        string    `json:"text"`
	Entities    []string  `json:"entities"`
	Kinds       string    `json:"kinds,omitempty"`
	// Forms are the bases of the words of Text that stemming leaves apart
	// from them (package forms: "bought" → "buy", "colour" → "color"),
	// indexed as more words of FieldText.
	Forms string `json:"forms,omitempty"`
}

// Doc returns the searchable projection of m. Its entities are those of
// the text plus the speaker's name, so "What did Caroline say…" matches
// every turn of Caroline's.
//
// A panic in reading the text for its entities, kinds or forms (a bug of
// ours on some text) leaves those fields empty and is logged with the
// memory's id: the memory is indexed by its text, speaker and date,
// rather than failing its write, or, in a store that indexes later,
// every index and recall after it.
func Doc(m memory.Memory) IndexDoc {
	var ents []string
	if sp := strings.ToLower(strings.TrimSpace(m.Speaker)); sp != "" {
		ents = []string{sp}
	}
	d := IndexDoc{
		Namespace:   m.Namespace,
		SessionID:   m.SessionID,
		SessionDate: m.SessionDate,
		Role:        m.Role,
		Speaker:     m.Speaker,
		Text:        m.Text,
		Entities:    ents,
	}
	derived(&d, m)
	return d
}

// derived sets d's fields read from m's text (deriveFields), or logs why
// it could not.
func derived(d *IndexDoc, m memory.Memory) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("reading a memory's text for its entities, kinds and forms failed; it is indexed without them",
				"memory", m.ID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	ents, k, f := deriveFields(m.Text)
	for _, e := range d.Entities {
		if !slices.Contains(ents, e) {
			ents = append(ents, e)
		}
	}
	d.Entities, d.Kinds, d.Forms = ents, k, f
}

// deriveFields reads a text's entities, kinds and forms (a variable, so
// that a test can make it fail).
var deriveFields = func(text string) (ents []string, kindsOf, bases string) {
	return entities.Extract(text), kinds.Of(text), forms.Bases(text)
}

// IndexMapping is the bleve mapping of IndexDoc (the default mapping):
// English analysis (stemming, stop words) for texts (the forms' bases
// are words of the text field), a plain tokenising
// analyzer for entities so that a phrase of a query entity matches inside
// a longer stored one, keywords for the
// filters, and BM25 scoring. Stores that keep vectors add FieldVector to
// the memories' mapping.
func IndexMapping() *mapping.IndexMappingImpl {
	doc := bleve.NewDocumentStaticMapping()
	textField(doc, FieldText, en.AnalyzerName)
	textField(doc, propForms, en.AnalyzerName).Name = FieldText
	textField(doc, FieldEntities, standard.Name)
	textField(doc, FieldKinds, en.AnalyzerName)
	filterFields(doc, FieldRole, FieldSpeaker)

	m := bleve.NewIndexMapping()
	m.TypeField = FieldType
	m.DefaultMapping = doc
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

func textField(doc *mapping.DocumentMapping, name, analyzer string) *mapping.FieldMapping {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = analyzer
	f.Store = false
	f.IncludeInAll = false
	doc.AddFieldMappingsAt(name, f)
	return f
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

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
)

// IndexDoc is the searchable projection of a Memory.
type IndexDoc struct {
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Role        string    `json:"role"`
	Speaker     string    `json:"speaker"`
	Text        string    `json:"text"`
	Entities    []string  `json:"entities"`
}

// Doc returns the searchable projection of m. Its entities are those of the
// text plus the speaker's name, so "What did Caroline say…" matches every
// turn of Caroline's.
func Doc(m memory.Memory) IndexDoc {
	ents := entities.Extract(m.Text)
	if sp := strings.ToLower(strings.TrimSpace(m.Speaker)); sp != "" && !slices.Contains(ents, sp) {
		ents = append(ents, sp)
	}
	return IndexDoc{
		Namespace:   m.Namespace,
		SessionID:   m.SessionID,
		SessionDate: m.SessionDate,
		Role:        m.Role,
		Speaker:     m.Speaker,
		Text:        m.Text,
		Entities:    ents,
	}
}

// IndexMapping is the bleve mapping of IndexDoc: English analysis (stemming,
// stop words) for the text, a plain tokenising analyzer for entities so that
// a phrase of a query entity matches inside a longer stored one, keywords for
// the filters, and BM25 scoring. Stores that keep vectors add FieldVector.
func IndexMapping() *mapping.IndexMappingImpl {
	doc := bleve.NewDocumentStaticMapping()

	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeInAll = false
	doc.AddFieldMappingsAt(FieldText, text)

	ents := bleve.NewTextFieldMapping()
	ents.Analyzer = standard.Name
	ents.Store = false
	ents.IncludeInAll = false
	doc.AddFieldMappingsAt(FieldEntities, ents)

	for _, f := range []string{FieldNamespace, FieldSessionID, FieldRole, FieldSpeaker} {
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

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = en.AnalyzerName
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false
	m.ScoringModel = index.BM25Scoring
	return m
}

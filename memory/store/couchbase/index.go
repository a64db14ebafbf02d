package couchbase

import (
	"encoding/json"
	"fmt"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/couchbase/gocb/v2"

	"agentmem/memory/hybrid"
)

// The vector field's settings. bleve names them in bleve_index_api, but only
// in its "vectors" build, which needs FAISS; the values are part of the
// Couchbase index definition format.
const (
	maxDims         = 4096          // Couchbase Search 7.6.2+
	dotProduct      = "dot_product" // index.InnerProduct
	optimizedRecall = "recall"      // index.IndexOptimizedForRecall
)

// searchIndex is the definition of the scoped Search index that setup
// creates: hybrid.IndexMapping(), the mapping the embedded store's bleve
// index uses, applied to the memory documents of one collection, plus the
// vector field when dims > 0. Couchbase Search is bleve, so its "mapping"
// parameter is that mapping's own JSON.
func searchIndex(cfg Config, dims int, bm25 bool) (gocb.SearchIndex, error) {
	if dims < 0 || dims > maxDims {
		return gocb.SearchIndex{}, fmt.Errorf("the embedder's vectors have %d dimensions; Couchbase Search indexes 1 to %d", dims, maxDims)
	}
	m := indexMapping(cfg, dims)
	if !bm25 {
		// Before 8.0 Couchbase rejects the key and scores with tf-idf.
		m.ScoringModel = ""
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return gocb.SearchIndex{}, fmt.Errorf("encoding the index mapping: %w", err)
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return gocb.SearchIndex{}, fmt.Errorf("decoding the index mapping: %w", err)
	}
	return gocb.SearchIndex{
		Name:       cfg.Index,
		Type:       "fulltext-index",
		SourceType: "gocbcore",
		SourceName: cfg.Bucket,
		Params: map[string]any{
			"doc_config": map[string]any{
				"mode":               "scope.collection.type_field",
				"type_field":         "type",
				"docid_prefix_delim": "",
				"docid_regexp":       "",
			},
			"mapping": generic,
			// Vector fields need segment version 16.
			"store": map[string]any{"indexType": "scorch", "segmentVersion": 16},
		},
		SourceParams: map[string]any{},
		PlanParams: map[string]any{
			"indexPartitions": cfg.IndexPartitions,
			"numReplicas":     cfg.IndexReplicas,
		},
	}, nil
}

// indexMapping is hybrid.IndexMapping() with its document mappings moved to
// the type "scope.collection.memory" (the memory documents of the
// collection; session manifests and the meta document are not indexed)
// and, when dims > 0, the vector field: dot product, which is cosine similarity
// on the normalised vectors every memory.Embedder returns.
func indexMapping(cfg Config, dims int) *mapping.IndexMappingImpl {
	m := hybrid.IndexMapping()
	doc := m.DefaultMapping
	if dims > 0 {
		doc.AddFieldMappingsAt(hybrid.FieldVector, &mapping.FieldMapping{
			Name:                    hybrid.FieldVector,
			Type:                    "vector",
			Dims:                    dims,
			Similarity:              dotProduct,
			VectorIndexOptimizedFor: optimizedRecall,
			Index:                   true,
		})
	}
	m.TypeMapping = map[string]*mapping.DocumentMapping{mappingType(cfg): doc}
	m.DefaultMapping = mapping.NewDocumentDisabledMapping()
	return m
}

func mappingType(cfg Config) string {
	return cfg.Scope + "." + cfg.Collection + "." + typeMemory
}

// indexDims reads the vector dimensions out of an index definition as the
// server returns it: 0 when it indexes no vectors.
func indexDims(def *gocb.SearchIndex, cfg Config) (int, error) {
	raw, err := json.Marshal(def.Params["mapping"])
	if err != nil {
		return 0, err
	}
	var m mapping.IndexMappingImpl
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, fmt.Errorf("reading the mapping of index %s: %w", def.Name, err)
	}
	doc := m.TypeMapping[mappingType(cfg)]
	if doc == nil {
		return 0, fmt.Errorf("index %s does not map %s", def.Name, mappingType(cfg))
	}
	if p := doc.Properties[hybrid.FieldVector]; p != nil {
		for _, f := range p.Fields {
			if f.Type == "vector" {
				return f.Dims, nil
			}
		}
	}
	return 0, nil
}

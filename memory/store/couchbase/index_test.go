package couchbase

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/couchbase/gocb/v2"

	"agentmem/memory/hybrid"
)

func testConfig() Config {
	return Config{Username: "agentmem", Password: "secret"}.withDefaults()
}

func TestIndexGolden(t *testing.T) {
	tests := []struct {
		name string
		dims int
		bm25 bool
	}{
		{"index-384.json", 384, true},
		{"index-lexical.json", 0, true},
		{"index-384-tfidf.json", 384, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := searchIndex(testConfig(), tc.dims, tc.bm25)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, &def)
		})
	}
}

// TestIndexMappingDerived checks that the Couchbase mapping is the embedded
// store's: bleve reads it back, and its document mapping is
// hybrid.IndexMapping()'s plus the vector field.
func TestIndexMappingDerived(t *testing.T) {
	cfg := testConfig()
	for _, dims := range []int{0, 384} {
		def, err := searchIndex(cfg, dims, true)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(def.Params["mapping"])
		var m mapping.IndexMappingImpl
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("bleve cannot read the mapping: %v", err)
		}
		if m.DefaultMapping.Enabled {
			t.Error("the default mapping is enabled: session manifests and the meta document would be indexed")
		}
		doc := m.TypeMapping["agentmem.memories.memory"]
		if doc == nil {
			t.Fatalf("no type mapping for scope.collection.memory in %v", m.TypeMapping)
		}
		vec := doc.Properties[hybrid.FieldVector]
		delete(doc.Properties, hybrid.FieldVector)
		got, _ := json.Marshal(doc)
		want, _ := json.Marshal(hybrid.IndexMapping().DefaultMapping)
		if string(got) != string(want) {
			t.Errorf("document mapping\n%s\nwant hybrid.IndexMapping()'s\n%s", got, want)
		}
		if m.ScoringModel != hybrid.IndexMapping().ScoringModel || m.DefaultAnalyzer != hybrid.IndexMapping().DefaultAnalyzer {
			t.Errorf("scoring %q analyzer %q, want the embedded store's", m.ScoringModel, m.DefaultAnalyzer)
		}
		if dims == 0 {
			if vec != nil {
				t.Error("a lexical index maps a vector field")
			}
			m.TypeMapping["agentmem.memories.memory"] = doc
			if err := m.Validate(); err != nil {
				t.Errorf("bleve rejects the mapping: %v", err)
			}
			continue
		}
		if vec == nil || len(vec.Fields) != 1 {
			t.Fatalf("vector property %+v, want one field", vec)
		}
		f := vec.Fields[0]
		if f.Type != "vector" || f.Dims != dims || f.Similarity != "dot_product" || !f.Index {
			t.Errorf("vector field %+v", f)
		}
		got384, err := indexDims(&def, cfg)
		if err != nil || got384 != dims {
			t.Errorf("indexDims = %d, %v; want %d", got384, err, dims)
		}
	}
}

func TestIndexDims(t *testing.T) {
	for _, dims := range []int{-1, maxDims + 1} {
		if _, err := searchIndex(testConfig(), dims, true); err == nil || !strings.Contains(err.Error(), "dimensions") {
			t.Errorf("dims %d: err %v, want a dimensions error", dims, err)
		}
	}
}

// TestSameIndex checks the comparison setup uses to leave an index alone:
// the definition as the server returns it (decoded from JSON, numbers as
// floats) is the same; another dimension, plan or scoring is not.
func TestSameIndex(t *testing.T) {
	cfg := testConfig()
	want, _ := searchIndex(cfg, 384, true)
	fromServer := func(def gocb.SearchIndex) *gocb.SearchIndex {
		def.UUID = "3b2c"
		raw, err := json.Marshal(&def)
		if err != nil {
			t.Fatal(err)
		}
		var got gocb.SearchIndex
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		return &got
	}
	if !sameIndex(fromServer(want), &want) {
		t.Error("an unchanged definition compares different")
	}
	other := func(dims int, bm25 bool, edit func(*Config)) gocb.SearchIndex {
		c := cfg
		if edit != nil {
			edit(&c)
		}
		def, _ := searchIndex(c, dims, bm25)
		return def
	}
	for name, def := range map[string]gocb.SearchIndex{
		"dims":       other(768, true, nil),
		"no vectors": other(0, true, nil),
		"tf-idf":     other(384, false, nil),
		"partitions": other(384, true, func(c *Config) { c.IndexPartitions = 4 }),
		"replicas":   other(384, true, func(c *Config) { c.IndexReplicas = 1 }),
		"collection": other(384, true, func(c *Config) { c.Collection = "other" }),
	} {
		if sameIndex(fromServer(def), &want) {
			t.Errorf("%s: a changed definition compares the same", name)
		}
	}
}

// An index made by an earlier agentmem, whose mapping lacks a field this
// one derives (the forms' bases), is outdated, and the store warns; one
// as setup makes it now, with BM25 or without, and with other partitions
// (a tuning setup keeps), is not.
func TestIndexOutdated(t *testing.T) {
	cfg := testConfig()
	for _, bm25 := range []bool{true, false} {
		def, err := searchIndex(cfg, 384, bm25)
		if err != nil {
			t.Fatal(err)
		}
		def.PlanParams["indexPartitions"] = 7
		if outdated(&def, cfg, 384) {
			t.Errorf("bm25 %v: the index setup makes is outdated", bm25)
		}
	}
	def, err := searchIndex(cfg, 384, true)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(def.Params["mapping"])
	var m mapping.IndexMappingImpl
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m.TypeMapping["agentmem.memories.memory"].Properties, "forms")
	def.Params["mapping"] = &m
	if !outdated(&def, cfg, 384) {
		t.Error("an index without the forms property is not outdated")
	}
}

package couchbase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/couchbase/gocb/v2"
)

// Setup creates what Open needs, idempotently, and prints what it did to w:
// the scope, the collection, and the scoped Search index for an embedder of
// dims dimensions (0 for none: a text-only index). It waits until the index
// answers queries. The bucket must exist; the user needs the Bucket Admin
// (or, on Capella, a Manage-Collections and Search-Admin) role for it.
func Setup(ctx context.Context, cfg Config, dims int, w io.Writer) error {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	want, err := searchIndex(cfg, dims, true)
	if err != nil {
		return err
	}
	setLogger(cfg.Logger)
	opts, err := cfg.clusterOptions()
	if err != nil {
		return err
	}
	// Setup runs no transaction, and the collection that holds their
	// records may not exist yet: no background cleanup.
	opts.TransactionsConfig = gocb.TransactionsConfig{CleanupConfig: gocb.TransactionsCleanupConfig{
		DisableClientAttemptCleanup: true, DisableLostAttemptCleanup: true,
	}}
	cluster, err := connect(ctx, cfg, opts, gocb.ServiceTypeKeyValue, gocb.ServiceTypeSearch, gocb.ServiceTypeManagement)
	if err != nil {
		return err
	}
	defer cluster.Close(nil)
	bucket := cluster.Bucket(cfg.Bucket)

	if err := ensureKeyspace(ctx, cfg, bucket.CollectionsV2(), w); err != nil {
		return err
	}

	mgr := bucket.Scope(cfg.Scope).SearchIndexes()
	if err := upsertIndex(ctx, cfg, mgr, want, dims, w); err != nil {
		return err
	}
	return waitIndex(ctx, cfg, bucket.Scope(cfg.Scope), w)
}

// ensureKeyspace creates the scope and the collection unless they exist. A
// user who may not create them (a Capella database credential) can still
// run setup once they were made in the UI.
func ensureKeyspace(ctx context.Context, cfg Config, mgr *gocb.CollectionManagerV2, w io.Writer) error {
	scope, coll := false, false
	if all, err := mgr.GetAllScopes(&gocb.GetAllScopesOptions{Context: ctx}); err == nil {
		for _, sc := range all {
			if sc.Name != cfg.Scope {
				continue
			}
			scope = true
			for _, c := range sc.Collections {
				coll = coll || c.Name == cfg.Collection
			}
		}
	}
	create := func(exists bool, what string, mk func() error, dup error) error {
		if exists {
			fmt.Fprintf(w, "%s: exists\n", what)
			return nil
		}
		err := mk()
		switch {
		case err == nil:
			fmt.Fprintf(w, "%s: created\n", what)
		case errors.Is(err, dup):
			fmt.Fprintf(w, "%s: exists\n", what)
		default:
			e := &Error{Op: "creating " + what, Hint: hint(err, cfg), Err: err}
			if e.Hint == "" || errors.Is(err, gocb.ErrAuthenticationFailure) {
				e.Hint = "if this user may not create it (as a Capella database credential may not), create it in the Couchbase or Capella UI and run setup again"
			}
			return e
		}
		return nil
	}
	err := create(scope, "scope "+cfg.Bucket+"."+cfg.Scope, func() error {
		return mgr.CreateScope(cfg.Scope, &gocb.CreateScopeOptions{Context: ctx})
	}, gocb.ErrScopeExists)
	if err != nil {
		return err
	}
	return create(coll, "collection "+cfg.keyspace(), func() error {
		return mgr.CreateCollection(cfg.Scope, cfg.Collection, nil, &gocb.CreateCollectionOptions{Context: ctx})
	}, gocb.ErrCollectionExists)
}

func upsertIndex(ctx context.Context, cfg Config, mgr *gocb.ScopeSearchIndexManager, want gocb.SearchIndex, dims int, w io.Writer) error {
	cur, err := mgr.GetIndex(cfg.Index, &gocb.GetSearchIndexOptions{Context: ctx})
	action := "created"
	switch {
	case errors.Is(err, gocb.ErrIndexNotFound):
	case err != nil:
		return wrap(err, cfg, "reading Search index %s", cfg.Index)
	default:
		tfidf, _ := searchIndex(cfg, dims, false)
		if sameIndex(cur, &want) || sameIndex(cur, &tfidf) {
			fmt.Fprintf(w, "Search index %s: exists, up to date (%s)\n", cfg.Index, describeIndex(cfg, dims))
			return nil
		}
		if had, err := indexDims(cur, cfg); err == nil && had != dims {
			fmt.Fprintf(w, "Search index %s: vectors change from %d to %d dimensions; memories embedded by the old embedder are not vector-searchable until `agentmem reindex`\n", cfg.Index, had, dims)
		}
		want.UUID = cur.UUID
		action = "updated (the server rebuilds it)"
	}
	err = upsertRetrying(ctx, mgr, want)
	if err != nil && strings.Contains(err.Error(), "scoring_model") {
		fmt.Fprintf(w, "Search index %s: this server has no BM25 scoring (Couchbase Server 8.0+); it scores text with tf-idf, so its rankings differ from the embedded store's\n", cfg.Index)
		want, _ = searchIndex(cfg, dims, false)
		if cur != nil {
			want.UUID = cur.UUID
		}
		err = upsertRetrying(ctx, mgr, want)
	}
	if err != nil {
		return wrap(err, cfg, "creating Search index %s in %s.%s", cfg.Index, cfg.Bucket, cfg.Scope)
	}
	fmt.Fprintf(w, "Search index %s: %s (%s)\n", cfg.Index, action, describeIndex(cfg, dims))
	return nil
}

// upsertRetrying retries while a collection just created is not yet known
// to the Search service (it learns of it from the bucket's manifest).
func upsertRetrying(ctx context.Context, mgr *gocb.ScopeSearchIndexManager, def gocb.SearchIndex) error {
	for attempt := 0; ; attempt++ {
		err := mgr.UpsertIndex(def, &gocb.UpsertSearchIndexOptions{Context: ctx})
		if err == nil || attempt == 10 || !strings.Contains(strings.ToLower(err.Error()), "not found") {
			return err
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
}

func describeIndex(cfg Config, dims int) string {
	vec := "no vectors"
	if dims > 0 {
		vec = fmt.Sprintf("vectors of %d dimensions, dot product", dims)
	}
	return fmt.Sprintf("text, entities and filters of %s; %s; %d partitions, %d replicas", mappingType(cfg), vec, cfg.IndexPartitions, cfg.IndexReplicas)
}

// sameIndex reports whether cur, as the server returns it, has want's
// mapping, document selection and plan. Mappings are compared after a round
// trip through bleve, which fills in the defaults the server adds.
func sameIndex(cur, want *gocb.SearchIndex) bool {
	asJSON := func(v any) string {
		raw, _ := json.Marshal(v)
		return string(raw)
	}
	num := func(p map[string]any, k string) string { return fmt.Sprint(p[k]) }
	return sameMapping(cur, want) &&
		asJSON(cur.Params["doc_config"]) == asJSON(want.Params["doc_config"]) &&
		num(cur.PlanParams, "indexPartitions") == num(want.PlanParams, "indexPartitions") &&
		num(cur.PlanParams, "numReplicas") == num(want.PlanParams, "numReplicas")
}

// sameMapping reports whether two index definitions map documents alike.
func sameMapping(cur, want *gocb.SearchIndex) bool {
	norm := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		var m mapping.IndexMappingImpl
		if err := json.Unmarshal(raw, &m); err != nil {
			return ""
		}
		out, _ := json.Marshal(&m)
		return string(out)
	}
	return norm(cur.Params["mapping"]) != "" && norm(cur.Params["mapping"]) == norm(want.Params["mapping"])
}

// outdated reports whether the deployed definition cur maps documents
// otherwise than this version's setup would (with BM25 or without), as an
// index made by an earlier agentmem does: new searchable fields (the
// forms' bases) are then left out of it.
func outdated(cur *gocb.SearchIndex, cfg Config, dims int) bool {
	bm25, err1 := searchIndex(cfg, dims, true)
	tfidf, err2 := searchIndex(cfg, dims, false)
	return err1 == nil && err2 == nil && !sameMapping(cur, &bm25) && !sameMapping(cur, &tfidf)
}

// waitIndex waits until the index answers a query, which it does once
// every partition is built and placed.
func waitIndex(ctx context.Context, cfg Config, scope *gocb.Scope, w io.Writer) error {
	const patience = 5 * time.Minute
	deadline := time.Now().Add(patience)
	said := false
	for {
		res, err := scope.Search(cfg.Index, gocb.SearchRequest{SearchQuery: matchNone}, &gocb.SearchOptions{Context: ctx, Limit: 1})
		if err == nil {
			err = res.Close()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return wrap(err, cfg, "Search index %s was not ready after %s", cfg.Index, patience)
		}
		if !said {
			fmt.Fprintf(w, "Search index %s: waiting until it is ready...\n", cfg.Index)
			said = true
		}
		if err := sleep(ctx, 2*time.Second); err != nil {
			return err
		}
	}
	n, err := scope.SearchIndexes().GetIndexedDocumentsCount(cfg.Index, &gocb.GetIndexedDocumentsCountOptions{Context: ctx})
	if err != nil {
		fmt.Fprintf(w, "Search index %s: ready\n", cfg.Index)
		return nil
	}
	fmt.Fprintf(w, "Search index %s: ready (%d memories indexed so far)\n", cfg.Index, n)
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

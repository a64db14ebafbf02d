package main

import (
	"fmt"
	"os"

	"agentmem/cmd/internal/backend"
	"agentmem/memory/store/couchbase"
)

type couchbaseCmd struct {
	Setup couchbaseSetupCmd `cmd:"" help:"Create the scope, collection and Search index that --store couchbase needs (idempotent)."`
}

type couchbaseSetupCmd struct{}

func (couchbaseSetupCmd) Run(e *env) error {
	dims, err := backend.EmbedderDims(e.ctx, e.cfg)
	if err != nil {
		return err
	}
	cfg := e.cfg.Couchbase.Config()
	cfg.Logger = e.log.With("component", "gocb")
	if err := couchbase.Setup(e.ctx, cfg, dims, os.Stdout); err != nil {
		return err
	}
	fmt.Printf("Ready: run agentmem with --store couchbase (embedder %s, %d dimensions).\n", e.cfg.Embedder, dims)
	return nil
}

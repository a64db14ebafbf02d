package main

import (
	"os"

	"agentmem/memory/engine"
	"agentmem/server"
)

type serveCmd struct {
	HTTP      string `name:"http" env:"AGENTMEM_HTTP" placeholder:"ADDR" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) at /mcp instead of stdio."`
	HTTPToken string `name:"http-token" env:"AGENTMEM_HTTP_TOKEN" help:"Require 'Authorization: Bearer TOKEN' on HTTP requests."`
}

func (c serveCmd) Run(e *env) error {
	eng, err := engine.Open(e.ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer eng.Close()
	s := server.New(eng.Service, server.Options{Version: version, Logger: e.log})
	if c.HTTP != "" {
		return server.ServeHTTP(e.ctx, c.HTTP, server.HTTPHandler(s, c.HTTPToken, e.log), e.log, nil)
	}
	e.log.Info("serving MCP over stdio")
	return server.ServeStdio(e.ctx, s, os.Stdin, os.Stdout, e.log)
}

package main

import (
	"errors"
	"os"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"

	"agentmem/server"
)

type serveCmd struct {
	HTTP      string `name:"http" env:"AGENTMEM_HTTP" placeholder:"ADDR" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) at /mcp instead of stdio, and the memory browser at /."`
	HTTPToken string `name:"http-token" env:"AGENTMEM_HTTP_TOKEN" help:"Require 'Authorization: Bearer TOKEN' on HTTP requests."`
}

func (c serveCmd) Run(e *env) error {
	dir, err := e.cfg.Dir()
	if err != nil {
		return err
	}
	sock := server.SocketPath(dir)
	eng, err := openBackend(e.ctx, e.cfg, e.log)
	if errors.Is(err, memory.ErrInUse) && c.HTTP == "" {
		// Another agent's server holds this data dir: share its memory.
		e.log.Info("data dir held by another agentmem process; relaying to it (its settings apply)", "socket", sock)
		return server.Relay(e.ctx, sock, os.Stdin, os.Stdout)
	}
	if err != nil {
		return err
	}
	defer eng.Close()
	opts := server.Options{Version: version, Logger: e.log}
	s := server.New(eng.Service, opts)
	go func() {
		newServer := func() *mcpserver.MCPServer { return server.New(eng.Service, opts) }
		if err := server.ServeSocket(e.ctx, sock, newServer, e.log); err != nil {
			e.log.Warn("not sharing this memory with other local agentmem processes", "socket", sock, "err", err)
		}
	}()
	if c.HTTP != "" {
		h := server.WithBrowser(server.HTTPHandler(s, c.HTTPToken, e.log), eng.Service, c.HTTPToken, e.log)
		return server.ServeHTTP(e.ctx, c.HTTP, h, e.log, nil)
	}
	e.log.Info("serving MCP over stdio")
	return server.ServeStdio(e.ctx, s, os.Stdin, os.Stdout, e.log)
}

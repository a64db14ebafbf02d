package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
	"agentmem/memory/engine"
	"agentmem/server"
)

type serveCmd struct {
	HTTP            string   `name:"http" env:"AGENTMEM_HTTP" placeholder:"ADDR" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) at /mcp instead of stdio."`
	HTTPToken       string   `name:"http-token" env:"AGENTMEM_HTTP_TOKEN" placeholder:"TOKEN" help:"Require 'Authorization: Bearer TOKEN' on HTTP requests. Set it in the environment variable: a command-line flag is visible to every user of the machine."`
	HTTPAllowOrigin []string `name:"http-allow-origin" env:"AGENTMEM_HTTP_ALLOW_ORIGIN" sep:"," placeholder:"ORIGIN" help:"Browser origins (scheme://host[:port], comma-separated, or *) allowed to call the HTTP server besides pages on localhost."`
}

func (c serveCmd) Run(e *env) error {
	// a second signal ends the process at once, in-flight calls or not
	context.AfterFunc(e.ctx, func() { signal.Reset(os.Interrupt, syscall.SIGTERM) })
	if tokenOnCommandLine() {
		e.log.Warn("--http-token on the command line is visible to every user of this machine (ps, /proc); set AGENTMEM_HTTP_TOKEN instead")
	}
	dir, err := e.cfg.Dir()
	if err != nil {
		return err
	}
	sock := server.SocketPath(dir)
	eng, err := engine.Open(e.ctx, e.cfg, e.log)
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
		hh, err := server.NewHTTP(s, server.HTTPOptions{Token: c.HTTPToken, AllowOrigins: c.HTTPAllowOrigin, Logger: e.log})
		if err != nil {
			return err
		}
		return server.ServeHTTP(e.ctx, c.HTTP, hh, e.log, nil)
	}
	e.log.Info("serving MCP over stdio")
	return server.ServeStdio(e.ctx, s, os.Stdin, os.Stdout, e.log)
}

func tokenOnCommandLine() bool {
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		if a == "--http-token" || strings.HasPrefix(a, "--http-token=") {
			return true
		}
	}
	return false
}

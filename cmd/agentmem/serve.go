package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/term"

	"agentmem/cmd/internal/backend"
	"agentmem/memory"
	"agentmem/server"
	"agentmem/tools"
)

type serveCmd struct {
	HTTP            string     `name:"http" env:"AGENTMEM_HTTP" placeholder:"ADDR" help:"Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) at /mcp instead of stdio, and the memory browser at /."`
	HTTPToken       string     `name:"http-token" env:"AGENTMEM_HTTP_TOKEN" placeholder:"TOKEN" help:"Require 'Authorization: Bearer TOKEN' on HTTP requests. Set it in the environment variable: a command-line flag is visible to every user of the machine."`
	HTTPTokens      string     `name:"http-tokens" env:"AGENTMEM_HTTP_TOKENS" placeholder:"FILE" help:"Per-user tokens (agentmem token add): each opens only its namespaces. Read again when it changes."`
	OAuth           oauthFlags `embed:"" prefix:"oauth-"`
	HTTPAllowOrigin []string   `name:"http-allow-origin" env:"AGENTMEM_HTTP_ALLOW_ORIGIN" sep:"," placeholder:"ORIGIN" help:"Browser origins (scheme://host[:port], comma-separated, or *) allowed to call the HTTP server besides pages on localhost."`
}

func (c serveCmd) Run(e *env) error {
	// a second signal ends the process at once, in-flight calls or not
	context.AfterFunc(e.ctx, func() { signal.Reset(os.Interrupt, syscall.SIGTERM) })
	// an agent that closes our stdout or stderr (its end of the pipes) makes
	// writes fail instead of killing the process midway through handing
	// the memory over
	signal.Ignore(syscall.SIGPIPE)
	if tokenOnCommandLine() {
		e.log.Warn("--http-token on the command line is visible to every user of this machine (ps, /proc); set AGENTMEM_HTTP_TOKEN instead")
	}
	dir, err := e.cfg.Dir()
	if err != nil {
		return err
	}
	sock := server.SocketPath(dir)
	conn, h, err := server.Attach(e.ctx, sock, holdLoading(e, dir, sock), server.AttachWait, e.log)
	if err != nil {
		if e.ctx.Err() != nil {
			return nil
		}
		return err
	}
	if conn != nil {
		if c.HTTP != "" {
			conn.Close()
			return fmt.Errorf("another agentmem process serves the data dir %s (socket %s): stop it, or serve HTTP from another --data-dir", dir, sock)
		}
		// Another agent's server holds this data dir: share its memory.
		e.log.Info("data dir held by another agentmem process; relaying to it (its settings apply, but for the namespace of calls that name none: this process's)", "socket", sock, "namespace", e.cfg.Namespace)
		return server.Relay(e.ctx, sock, conn, os.Stdin, os.Stdout, server.RelayOptions{
			Takeover:  hold(e, dir, sock, asServer),
			Namespace: e.cfg.Namespace,
			Logger:    e.log,
		})
	}
	hd := h.(*holder)
	defer hd.Close()
	s := hd.mcp
	if c.HTTP != "" {
		// a daemon: it starts serving once the memory is open, or fails
		if err := hd.wait(); err != nil {
			return err
		}
		hopts, err := c.httpOptions(e)
		if err != nil {
			return err
		}
		hh, err := server.NewHTTP(s, hopts)
		if err != nil {
			return err
		}
		server.MountBrowser(hh, hd.eng.Service, e.log)
		return server.ServeHTTP(e.ctx, c.HTTP, hh, e.log, nil)
	}
	// said to a person at a terminal; a host (stdin a pipe) shows every
	// line of its server's stderr as an error (Claude Code's --debug)
	start := e.log.Debug
	if term.IsTerminal(int(os.Stdin.Fd())) {
		start = e.log.Info
	}
	start("serving MCP over stdio")
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

// holder is this process holding the memory of a data dir: the lock, the
// memory (loading in the background, so that the server answers
// initialize at once), its MCP server, and (for a server) the socket where
// the other local processes reach it.
type holder struct {
	mem        *tools.Loading
	mcp        *mcpserver.MCPServer // served on the socket and to this process's own client
	lock       *server.Lock
	loaded     chan struct{} // closed once loading has ended; then eng, err and the socket are set
	cancelLoad context.CancelFunc
	eng        *backend.Backend // nil if loading failed
	err        error            // why loading failed
	stopSocket context.CancelFunc
	socketDone chan struct{}
}

// wait waits for the memory and says why it could not be loaded.
func (h *holder) wait() error {
	<-h.loaded
	return h.err
}

// Close stops loading, stops serving the socket (letting the calls in
// flight there finish), closes the store, and only then releases the lock,
// so that the next holder never opens a store still in use.
func (h *holder) Close() error {
	h.cancelLoad()
	<-h.loaded
	if h.stopSocket != nil {
		h.stopSocket()
		<-h.socketDone
	}
	var err error
	if h.eng != nil {
		err = h.eng.Close()
	}
	h.lock.Unlock()
	return err
}

// holdMode is what a process holding the memory does with it besides its
// own calls.
type holdMode int

const (
	// asCommand: a shell command or a hook, for its own calls only; others
	// wait for it (a command of a moment).
	asCommand holdMode = iota
	// asSharing: a long command (a history import) that also serves the
	// other local processes on the socket once the memory is open, so that
	// an agent host started meanwhile is not kept waiting (Codex gives up
	// on a server that has not answered its handshake in 30 s); a server
	// relayed to it takes the memory over when it ends.
	asSharing
	// asServer: a server, which also probes its reranker and upgrades
	// vectors of an earlier recipe in the background.
	asServer
)

// hold returns the takeover of the memory in dir: take the lock (ErrHeld
// if another process has it), open the memory, and, but as a command,
// serve it on sock. It returns once the memory is open.
func hold(e *env, dir, sock string, mode holdMode) func(context.Context) (io.Closer, error) {
	return func(ctx context.Context) (io.Closer, error) {
		h, err := startHolding(ctx, e, dir, sock, mode)
		if err != nil {
			return nil, err
		}
		if err := h.wait(); err != nil {
			h.Close()
			if errors.Is(err, memory.ErrInUse) {
				// a process that does not take the lock (an older agentmem)
				return nil, fmt.Errorf("%w: %w", server.ErrHeld, err)
			}
			return nil, err
		}
		return h, nil
	}
}

// holdLoading is hold returning as soon as the lock is taken, the memory
// loading in the background: its server answers initialize at once, and
// its calls wait for the memory. If loading fails, the lock is released
// (another process may then try), and every call gets the error.
func holdLoading(e *env, dir, sock string) func(context.Context) (io.Closer, error) {
	return func(ctx context.Context) (io.Closer, error) {
		return startHolding(ctx, e, dir, sock, asServer)
	}
}

// startHolding takes the lock and starts loading the memory.
func startHolding(ctx context.Context, e *env, dir, sock string, mode holdMode) (*holder, error) {
	if _, _, err := e.cfg.Clock(); err != nil { // a bad --timezone or --now is no fault of the store
		return nil, err
	}
	if err := e.cfg.Check(); err != nil { // nor a bad --text-cache, --namespace or --reranker-*
		return nil, err
	}
	lock, err := server.TryLock(dir)
	if err != nil {
		return nil, err
	}
	what := "its memory (the store in " + dir
	if e.cfg.Embedder != "none" {
		what += " and the " + e.cfg.Embedder + " embedding model"
	}
	what += ")"
	h := &holder{lock: lock, mem: tools.NewLoading(what, 0), loaded: make(chan struct{})}
	h.mcp = server.NewLoading(h.mem, server.Options{Version: version, Logger: e.log})
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancelLoad = cancel
	go func() {
		defer close(h.loaded)
		start := time.Now()
		eng, err := backend.Open(lctx, e.cfg, e.log)
		if err != nil {
			h.err = fmt.Errorf("agentmem could not open its memory (data dir %s): %w", dir, err)
			h.lock.Unlock()
			h.mem.Done(nil, h.err)
			if lctx.Err() == nil && mode == asServer { // a command says why itself
				e.log.Error("loading the memory failed; every call will say why", "err", err)
			}
			return
		}
		h.eng = eng
		h.mem.Done(eng.Service, nil)
		e.log.Debug("memory loaded", "took", time.Since(start).Round(time.Millisecond))
		if mode == asServer {
			go eng.ProbeReranker(lctx, e.log)
			eng.Service.UpgradeVectors()
		}
		if mode != asCommand {
			h.serveSocket(lctx, e, sock)
		}
	}()
	return h, nil
}

// serveSocket serves the memory to the other local processes on sock.
func (h *holder) serveSocket(ctx context.Context, e *env, sock string) {
	ln, err := server.ListenSocket(sock)
	if err != nil {
		e.log.Warn("not sharing this memory with other local agentmem processes", "socket", sock, "err", err)
		return
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.stopSocket, h.socketDone = stop, make(chan struct{})
	go func() {
		defer close(h.socketDone)
		if err := server.ServeSocket(sctx, ln, h.mcp, e.log); err != nil {
			e.log.Warn("serving other local agentmem processes stopped", "socket", sock, "err", err)
		}
	}()
}

// oauthFlags turn on OAuth 2.1 resource-server mode.
type oauthFlags struct {
	Issuer   string `name:"issuer" env:"AGENTMEM_OAUTH_ISSUER" placeholder:"URL" help:"OAuth mode: accept JWT access tokens of this authorization server (checked against its JWKS: issuer, audience, expiry)."`
	Resource string `name:"resource" env:"AGENTMEM_OAUTH_RESOURCE" placeholder:"URL" help:"OAuth mode: this server's URL as clients reach it (e.g. https://mem.example.com/mcp): the audience, and the RFC 9728 metadata's resource."`
	Audience string `name:"audience" env:"AGENTMEM_OAUTH_AUDIENCE" placeholder:"AUD" help:"OAuth mode: the tokens' audience, if not --oauth-resource."`
	JWKSURL  string `name:"jwks-url" env:"AGENTMEM_OAUTH_JWKS_URL" placeholder:"URL" help:"OAuth mode: the issuer's JWKS, if not found in its metadata."`
	Claim    string `name:"namespaces-claim" env:"AGENTMEM_OAUTH_NAMESPACES_CLAIM" default:"agentmem_namespaces" help:"OAuth mode: the claim listing a token's namespaces (name, name:read, or prefix*; the first is its default)."`
}

// httpOptions: one of a token for all, a token file, or OAuth.
func (c serveCmd) httpOptions(e *env) (server.HTTPOptions, error) {
	o := server.HTTPOptions{Token: c.HTTPToken, AllowOrigins: c.HTTPAllowOrigin, Logger: e.log}
	modes := 0
	for _, on := range []bool{c.HTTPToken != "", c.HTTPTokens != "", c.OAuth.Issuer != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return o, errors.New("give one of --http-token, --http-tokens and --oauth-issuer")
	}
	switch {
	case c.HTTPTokens != "":
		t, err := server.OpenTokens(c.HTTPTokens, e.log)
		if err != nil {
			return o, err
		}
		o.Users = t
	case c.OAuth.Issuer != "":
		a, err := server.NewOAuth(e.ctx, server.OAuthOptions{Issuer: c.OAuth.Issuer, Resource: c.OAuth.Resource, Audience: c.OAuth.Audience, JWKSURL: c.OAuth.JWKSURL, Claim: c.OAuth.Claim})
		if err != nil {
			return o, err
		}
		o.Users, o.ResourceMetadata, o.ResourceMetadataURL = a, a.Metadata(), a.MetadataURL()
	}
	return o, nil
}

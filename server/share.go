package server

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/server/socket"
)

// The embedded store is held by one process. So that several agents on one
// machine (say Claude Code and Claude Desktop) can all start
// `agentmem serve` on the same data directory, the process that holds the
// store (the holder) also serves MCP sessions on a unix socket, and every
// later process relays its stdio to that socket (see Relay). When the holder
// exits, one relay takes its place and the others reconnect to it.
//
// Who holds the data directory is decided by a lock file in it
// (agentmem.lock), taken without waiting: a process that finds the socket
// answering relays at once; one that finds the lock free becomes the
// holder; one that finds the lock taken and the socket silent waits for the
// holder to come up (it is opening the store).

// ErrHeld is returned by TryLock, and by a takeover, when another process
// holds the data directory.
var ErrHeld = errors.New("the data directory is held by another agentmem process")

const (
	lockName = "agentmem.lock"

	// AttachWait bounds how long Attach waits for a holder that has taken
	// the lock but does not answer on the socket yet (it is loading the
	// embedder and opening the store, or is a command that does not serve).
	AttachWait = 30 * time.Second
)

// SocketPath is where the holder of the memory in dataDir serves other
// local processes (see socket.Path).
func SocketPath(dataDir string) string { return socket.Path(dataDir) }

// privateDir makes sure dir exists, is a real directory (not a symlink)
// owned by this user, and is accessible to this user only (0700), so that
// a socket in it can be reached by no one else whatever its own mode and
// whatever the umask.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory (a symlink?): remove it", dir)
	}
	if err := ownedByMe(fi); err != nil {
		return fmt.Errorf("socket directory %s: %w; remove it, or choose another --data-dir", dir, err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory: %w", err)
		}
	}
	return nil
}

// Lock is the holder's lock on a data directory.
type Lock struct {
	f *flock.Flock
}

// TryLock takes the holder lock of dataDir without waiting: ErrHeld (with
// the holder's process id when known) if another process has it. The lock
// is released by Unlock, or by the end of the process, however it ends.
func TryLock(dataDir string) (*Lock, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data-dir: %w", err)
	}
	path := filepath.Join(dataDir, lockName)
	f := flock.New(path, flock.SetPermissions(0o600))
	ok, err := f.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !ok {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return nil, fmt.Errorf("%w (process %d, lock %s)", ErrHeld, pid, path)
			}
		}
		return nil, fmt.Errorf("%w (lock %s)", ErrHeld, path)
	}
	// for the messages of the processes that find it taken; advisory only
	os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil {
		return nil
	}
	return l.f.Unlock()
}

// Attach connects to the holder of the memory served at sock or, when none
// answers, calls take to become the holder. It returns either a connection
// to the holder or what take returned. take returns an error wrapping
// ErrHeld when another process holds the memory; Attach then tries the
// socket again, for up to wait.
func Attach(ctx context.Context, sock string, take func(context.Context) (io.Closer, error), wait time.Duration, logger *slog.Logger) (net.Conn, io.Closer, error) {
	logger = cmp.Or(logger, slog.New(slog.DiscardHandler))
	start := time.Now()
	logged := false
	for {
		if conn, err := dial(ctx, sock); err == nil {
			return conn, nil, nil
		}
		h, err := take(ctx)
		if err == nil {
			return nil, h, nil
		}
		if !errors.Is(err, ErrHeld) {
			return nil, nil, err
		}
		waited := time.Since(start)
		if waited > wait {
			return nil, nil, fmt.Errorf("%w, and nothing answered on %s for %s (a reindex, or a server that could not open its socket?)", err, sock, wait.Round(time.Second))
		}
		if !logged && waited > time.Second {
			logger.Info("waiting for the agentmem process that holds the data directory", "err", err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func dial(ctx context.Context, sock string) (net.Conn, error) {
	d := net.Dialer{Timeout: time.Second}
	return d.DialContext(ctx, "unix", sock)
}

// ListenSocket listens on the unix socket at path, in its private
// directory (created 0700 and checked before the socket exists, so that the
// socket is never reachable by another user). Only the holder calls it: a
// socket file left by a killed holder is replaced.
func ListenSocket(path string) (net.Listener, error) {
	if len(path) > socket.MaxPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, more than a unix socket allows (%d)", path, len(path), socket.MaxPath)
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	os.Remove(path) // a socket left by a killed process; we hold the lock
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	// the directory already keeps others out; this keeps the socket's own
	// mode honest too
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// ServeSocket serves one MCP session per connection on ln, all on s (so
// that a change one client makes is told to all, each with its own log
// level and its own notifications: conn.go), until ctx ends. When ctx ends it stops accepting and
// hands over: each session finishes the calls it has started (for up to
// ShutdownGrace), answers the requests that arrive meanwhile with an error
// that tells a relay to send them to the next holder, then closes. It
// returns when every session has ended; ln is closed (and the socket file
// removed) by then.
func ServeSocket(ctx context.Context, ln net.Listener, s *mcpserver.MCPServer, logger *slog.Logger) error {
	return serveSocket(ctx, ln, func() *mcpserver.MCPServer { return s }, logger, ShutdownGrace)
}

// ServeSocketEach is ServeSocket with a server of its own from newServer
// for each connection (the eval harness sets each one's clock); each
// connection is still a session of its own.
func ServeSocketEach(ctx context.Context, ln net.Listener, newServer func() *mcpserver.MCPServer, logger *slog.Logger) error {
	return serveSocket(ctx, ln, newServer, logger, ShutdownGrace)
}

func serveSocket(ctx context.Context, ln net.Listener, newServer func() *mcpserver.MCPServer, logger *slog.Logger, grace time.Duration) error {
	logger = cmp.Or(logger, slog.New(slog.DiscardHandler))
	var (
		mu      sync.Mutex
		closing bool
		live    = map[*sockSession]bool{}
	)
	// every session drains before the socket closes: once a connection is
	// refused, no session starts a new call
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		closing = true
		for ss := range live {
			ss.drain()
		}
		mu.Unlock()
		ln.Close()
	})
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			ln.Close()
			return err
		}
		ss := &sockSession{inflight: map[string]bool{}}
		mu.Lock()
		ss.draining = closing
		live[ss] = true
		mu.Unlock()
		wg.Go(func() {
			defer func() { mu.Lock(); delete(live, ss); mu.Unlock() }()
			logger.Debug("relayed MCP session opened")
			if err := ss.serve(ctx, conn, newServer(), logger, grace); err != nil {
				logger.Warn("relayed MCP session ended", "err", err)
			}
		})
	}
}

// sockSession is one session on the socket. Until it drains, lines go
// from the connection to the MCP server as they come, and the requests
// among them are counted until their responses go out. Once it drains, new
// requests are answered with codeHandover, and when the counted ones are
// answered (or the grace has passed) the MCP server's input ends and the
// connection is closed.
type sockSession struct {
	mu       sync.Mutex
	draining bool
	inflight map[string]bool
}

func (ss *sockSession) drain() {
	ss.mu.Lock()
	ss.draining = true
	ss.mu.Unlock()
}

// serve is one session of conn with the MCP server s, until the client is
// done, or ctx ends and ss hands over (handOver).
func (ss *sockSession) serve(ctx context.Context, conn net.Conn, s *mcpserver.MCPServer, logger *slog.Logger, grace time.Duration) error {
	defer conn.Close()
	pr, pw := io.Pipe()
	out := &lineWriter{w: conn}
	out.onLine = func(line []byte) {
		if m := peek(line); m.kind == response {
			ss.mu.Lock()
			delete(ss.inflight, m.id)
			ss.mu.Unlock()
		}
	}
	served := make(chan error, 1)
	go func() {
		// not ctx: the server must finish the calls in flight when ctx ends
		served <- serveConn(context.WithoutCancel(ctx), s, pr, out, logger)
	}()
	go ss.relay(conn, pw, out)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	return ss.handOver(served, pw, logger, grace)
}

// relay passes the lines of conn to the MCP server's input pw as they
// come, counting the requests among them (until onLine sees their
// responses go out); once ss drains, it answers new requests on out with
// codeHandover instead. It closes pw when the client is done.
func (ss *sockSession) relay(conn net.Conn, pw *io.PipeWriter, out *lineWriter) {
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// the client is done (or gone): let the server answer what
			// it has and end the session
			pw.Close()
			return
		}
		m := peek(line)
		ss.mu.Lock()
		if ss.draining {
			ss.mu.Unlock()
			if m.kind == request {
				out.Write(errorLine(m.rawID, codeHandover, "agentmem: this server is handing the memory over to another process; the request was not started: send it again", nil))
			}
			continue
		}
		// counted before the server can see it, so that a drain waits
		// for its answer; not written under mu, because the server may
		// answer (and take mu in onLine) before it reads the next line
		switch m.kind {
		case request:
			ss.inflight[m.id] = true
		case notification:
			if m.method == "notifications/cancelled" {
				if id, ok := cancelledID(m.params); ok {
					delete(ss.inflight, id) // a cancelled request may get no answer
				}
			}
		}
		ss.mu.Unlock()
		if _, err := pw.Write(line); err != nil {
			return
		}
	}
}

// handOver drains ss, its context ended: it waits for the calls in
// flight to be answered (or grace to pass), then ends the MCP server's
// input pw and returns how the server (served) ended, or an error when it
// does not within grace.
func (ss *sockSession) handOver(served <-chan error, pw *io.PipeWriter, logger *slog.Logger, grace time.Duration) error {
	ss.drain()
	deadline := time.Now().Add(grace)
	for {
		ss.mu.Lock()
		n := len(ss.inflight)
		ss.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			logger.Warn("handing over with calls still running", "calls", n, "grace", grace)
			break
		}
		select {
		case err := <-served:
			return err
		case <-time.After(5 * time.Millisecond):
		}
	}
	pw.Close()
	select {
	case err := <-served:
		return err
	case <-time.After(grace):
		return errors.New("the MCP session did not end after its input closed")
	}
}

// lineWriter passes whole lines to w, one Write each, under a lock, and
// shows each line to onLine first. Writes from the MCP server and from
// serveConn share it, so lines never interleave.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	onLine func([]byte)
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	start := 0
	defer func() { l.buf = l.buf[:copy(l.buf, l.buf[start:])] }()
	for {
		i := bytes.IndexByte(l.buf[start:], '\n')
		if i < 0 {
			return len(p), nil
		}
		line := l.buf[start : start+i+1]
		start += i + 1
		if l.onLine != nil {
			l.onLine(line)
		}
		if _, err := l.w.Write(line); err != nil {
			return len(p), err
		}
	}
}

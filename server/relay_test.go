//go:build unix

package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"agentmem/tools/client"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/server"
)

// The socket is created in a directory only its user can enter, whatever
// the umask, and never made private after the fact.
func TestSocketPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	sock := server.SocketPath(dir)
	if want := filepath.Join(dir, "run", "agentmem.sock"); sock != want {
		t.Fatalf("SocketPath = %s, want %s", sock, want)
	}
	check := func(sock string) {
		t.Helper()
		ln, err := server.ListenSocket(sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		fi, err := os.Stat(filepath.Dir(sock))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("socket directory mode %v, want 0700", fi.Mode().Perm())
		}
		si, err := os.Stat(sock)
		if err != nil {
			t.Fatal(err)
		}
		if si.Mode().Perm()&0o077 != 0 {
			t.Errorf("socket mode %v: others have access", si.Mode().Perm())
		}
	}
	check(sock)
	// a directory left open by an older version is closed before use
	os.Chmod(filepath.Dir(sock), 0o755)
	check(sock)

	// a symlink in its place is refused
	evil := t.TempDir()
	link := filepath.Join(t.TempDir(), "d")
	os.MkdirAll(link, 0o700)
	os.Symlink(evil, filepath.Join(link, "run"))
	if _, err := server.ListenSocket(server.SocketPath(link)); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("socket directory replaced by a symlink: %v", err)
	}

	// a data dir too deep for a unix socket path: a private directory
	// named after it in $XDG_RUNTIME_DIR
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	deep := filepath.Join(t.TempDir(), strings.Repeat("very-long-directory-name/", 6))
	long := server.SocketPath(deep)
	if !strings.HasPrefix(long, runtime+string(filepath.Separator)+"agentmem-") || len(long) > 100 {
		t.Fatalf("SocketPath of a deep data dir = %s", long)
	}
	if again := server.SocketPath(deep); again != long {
		t.Errorf("SocketPath is not stable: %s, then %s", long, again)
	}
	if other := server.SocketPath(deep + "x"); other == long {
		t.Errorf("two data dirs share the socket %s", long)
	}
	check(long)
}

func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	l, err := server.TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = server.TryLock(dir)
	if !errors.Is(err, server.ErrHeld) || !strings.Contains(err.Error(), "process ") {
		t.Fatalf("second lock: %v", err)
	}
	l.Unlock()
	l, err = server.TryLock(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l.Unlock()
}

// holders is a test world of holder processes, in-process: each serves
// the socket with its own servers and can be killed (every connection
// closed at once, as the kernel does for a killed process) or stopped
// (ctx ending: the graceful handover).
type holders struct {
	t         *testing.T
	dir       string // the data dir: its lock decides who holds it
	sock      string
	mu        sync.Mutex
	n         int           // holders started
	inits     []string      // client names of the initialize requests each holder's servers got
	levels    []string      // the logging/setLevel requests each holder's servers got, as holder:level
	started   chan string   // "tool@holder" when a blocking tool starts
	release   chan struct{} // closed: blocking tools return
	takeovers atomic.Int64
}

type testHolder struct {
	name  string
	lock  *server.Lock
	ln    *killable
	stop  context.CancelFunc
	done  chan struct{}
	hs    *holders
	index int
}

type killable struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (k *killable) Accept() (net.Conn, error) {
	c, err := k.Listener.Accept()
	if err == nil {
		k.mu.Lock()
		k.conns = append(k.conns, c)
		k.mu.Unlock()
	}
	return c, err
}

func (k *killable) kill() {
	k.Listener.Close()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, c := range k.conns {
		c.Close()
	}
}

// start makes a new holder, or returns ErrHeld.
func (hs *holders) start(grace time.Duration) (*testHolder, error) {
	lock, err := server.TryLock(hs.dir)
	if err != nil {
		return nil, err
	}
	hs.mu.Lock()
	hs.n++
	name := string(rune('A' + hs.n - 1))
	hs.mu.Unlock()
	ln, err := server.ListenSocket(hs.sock)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	h := &testHolder{name: name, lock: lock, ln: &killable{Listener: ln}, done: make(chan struct{}), hs: hs}
	ctx, stop := context.WithCancel(context.Background())
	h.stop = stop
	go func() {
		defer close(h.done)
		server.ServeSocketGrace(ctx, h.ln, h.newServer, nil, grace)
	}()
	return h, nil
}

func (h *testHolder) Close() error { h.stop(); <-h.done; return h.lock.Unlock() }

// kill is kill -9: every connection cut at once, the lock released.
func (h *testHolder) kill() {
	h.ln.kill()
	h.lock.Unlock()
}

func (h *testHolder) newServer() *mcpserver.MCPServer {
	hs := h.hs
	hooks := &mcpserver.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, id any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		hs.mu.Lock()
		hs.inits = append(hs.inits, h.name+":"+req.Params.ClientInfo.Name)
		hs.mu.Unlock()
	})
	hooks.AddAfterSetLevel(func(ctx context.Context, id any, req *mcp.SetLevelRequest, res *mcp.EmptyResult) {
		hs.mu.Lock()
		hs.levels = append(hs.levels, h.name+":"+string(req.Params.Level))
		hs.mu.Unlock()
	})
	s := mcpserver.NewMCPServer("t", "1", mcpserver.WithToolCapabilities(false), mcpserver.WithLogging(), mcpserver.WithHooks(hooks))
	annotated := func(name string, idempotent bool) mcp.Tool {
		return mcp.NewTool(name, mcp.WithToolAnnotation(mcp.ToolAnnotation{
			ReadOnlyHint: mcp.ToBoolPtr(false), IdempotentHint: mcp.ToBoolPtr(idempotent),
			DestructiveHint: mcp.ToBoolPtr(false), OpenWorldHint: mcp.ToBoolPtr(false),
		}))
	}
	block := func(tool string) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if h.name == "A" { // only the first holder blocks
				hs.started <- tool + "@" + h.name
				<-hs.release
			}
			return mcp.NewToolResultText(tool + " done by " + h.name), nil
		}
	}
	s.AddTool(annotated("whoami", true), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("served by " + h.name), nil
	})
	s.AddTool(annotated("recall", true), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("namespace " + req.GetString("namespace", "(none)")), nil
	})
	s.AddTool(annotated("slow", true), block("slow"))
	s.AddTool(annotated("write", false), block("write"))
	return s
}

// relayClient starts a relay to the holder on hs.sock, taking over with a
// new test holder, and an MCP client on the relay's stdio.
func (hs *holders) relayClient(ctx context.Context, name string) (*client.Client, chan error) {
	hs.t.Helper()
	conn, err := net.Dial("unix", hs.sock)
	if err != nil {
		hs.t.Fatal(err)
	}
	cin, rout := io.Pipe() // relay's stdout -> client
	rin, cout := io.Pipe() // client -> relay's stdin
	relayed := make(chan error, 1)
	go func() {
		relayed <- server.Relay(ctx, hs.sock, conn, rin, rout, server.RelayOptions{
			Wait: 5 * time.Second,
			Takeover: func(context.Context) (io.Closer, error) {
				h, err := hs.start(time.Second)
				if err != nil {
					return nil, err
				}
				hs.takeovers.Add(1)
				return h, nil
			},
		})
		rout.Close()
	}()
	c, err := client.IO(ctx, cin, cout, client.WithName(name), client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err != nil {
		hs.t.Fatal(err)
	}
	return c, relayed
}

func call(c *client.Client, tool string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return callText(ctx, c, tool, nil)
}

// recv waits for a value, failing the test instead of hanging it.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("no %s after 20 s", what)
		panic("unreachable")
	}
}

func newHolders(t *testing.T) *holders {
	dir := t.TempDir()
	return &holders{t: t, dir: dir, sock: server.SocketPath(dir), started: make(chan string, 10), release: make(chan struct{})}
}

func (hs *holders) first(grace time.Duration) *testHolder {
	hs.t.Helper()
	h, err := hs.start(grace)
	if err != nil {
		hs.t.Fatal(err)
	}
	return h
}

// The holder dies (every connection cut) with calls in flight: the relay
// takes over, replays the session's initialize, repeats the idempotent
// call, answers the other with an error saying what happened, and the
// session goes on.
func TestRelaySurvivesHolderDeath(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, relayed := hs.relayClient(ctx, "agent-7")
	if got, err := call(c, "whoami"); got != "served by A" {
		t.Fatalf("whoami = %q, %v", got, err)
	}
	if err := c.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	// a level the holder refuses is not the session's: not replayed (it
	// would be refused again, and end the session at the takeover)
	if err := c.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: "bogus"}}); err == nil {
		t.Fatal("the holder took the level bogus")
	}
	type answer struct{ text, err string }
	answers := map[string]chan answer{"slow": make(chan answer, 1), "write": make(chan answer, 1)}
	for tool, ch := range answers {
		go func() {
			text, err := call(c, tool)
			a := answer{text: text}
			if err != nil {
				a.err = err.Error()
			}
			ch <- a
		}()
		if got := recv(t, hs.started, tool+" started"); got != tool+"@A" {
			t.Fatalf("started %s, want %s@A", got, tool)
		}
	}
	a.kill() // kill -9
	if got := recv(t, answers["slow"], "slow answered"); got.text != "slow done by B" {
		t.Errorf("the idempotent call in flight: %+v, want it repeated on B", got)
	}
	if got := recv(t, answers["write"], "write answered"); !strings.Contains(got.err, "exited while this write call was in flight") || !strings.Contains(got.err, "may or may not have taken effect") {
		t.Errorf("the non-idempotent call in flight: %+v, want an error saying what happened", got)
	}
	if got, err := call(c, "whoami"); got != "served by B" {
		t.Errorf("after the takeover, whoami = %q, %v", got, err)
	}
	hs.mu.Lock()
	if want := []string{"A:agent-7", "B:agent-7"}; strings.Join(hs.inits, ",") != strings.Join(want, ",") {
		t.Errorf("initialize requests seen: %v, want %v (the session replayed once on B)", hs.inits, want)
	}
	if want := []string{"A:debug", "B:debug"}; strings.Join(hs.levels, ",") != strings.Join(want, ",") {
		t.Errorf("logging levels set: %v, want %v (the client's level replayed on B)", hs.levels, want)
	}
	hs.mu.Unlock()
	if n := hs.takeovers.Load(); n != 1 {
		t.Errorf("%d takeovers, want 1", n)
	}
	close(hs.release) // A's stuck handlers
	c.Close()
	if err := recv(t, relayed, "end of the relay"); err != nil {
		t.Errorf("relay: %v", err)
	}
}

// Two relays, the holder killed: one takes over, the other reattaches to it.
func TestRelaysShareTheNewHolder(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c1, r1 := hs.relayClient(ctx, "one")
	c2, r2 := hs.relayClient(ctx, "two")
	a.kill()
	var wg sync.WaitGroup
	for _, c := range []*client.Client{c1, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := call(c, "whoami"); got != "served by B" {
				t.Errorf("whoami after the holder died = %q, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if n := hs.takeovers.Load(); n != 1 {
		t.Errorf("%d takeovers, want 1", n)
	}
	close(hs.release)
	c2.Close() // the relay that reattached goes first ...
	if err := recv(t, r2, "end of relay 2"); err != nil {
		t.Error(err)
	}
	c1.Close() // ... then the one holding the memory releases it
	if err := recv(t, r1, "end of relay 1"); err != nil {
		t.Error(err)
	}
}

// A holder that stops (its agent quit, or SIGTERM) finishes the call it
// started, refuses new ones with a handover error, and the relay sends
// those to the next holder, even a call that is not idempotent (it was
// never started): no error reaches the client.
func TestRelayGracefulHandover(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(5 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, relayed := hs.relayClient(ctx, "agent-9")
	slow := make(chan string, 1)
	go func() {
		text, err := call(c, "write")
		if err != nil {
			text = err.Error()
		}
		slow <- text
	}()
	recv(t, hs.started, "write started")
	stopped := make(chan struct{})
	go func() { a.Close(); close(stopped) }()
	// once A refuses connections, its sessions are draining: a new request
	// gets the handover error, which the relay keeps to itself
	for deadline := time.Now().Add(20 * time.Second); ; {
		conn, err := net.Dial("unix", hs.sock)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("holder A still accepts connections 20 s after it was stopped")
		}
		time.Sleep(time.Millisecond)
	}
	again := make(chan string, 1)
	go func() {
		text, err := call(c, "write")
		if err != nil {
			text = err.Error()
		}
		again <- text
	}()
	select {
	case <-stopped:
		t.Fatal("the holder stopped with a call in flight")
	case <-time.After(100 * time.Millisecond):
	}
	close(hs.release)
	if got := recv(t, slow, "answer to the call in flight"); got != "write done by A" {
		t.Errorf("the call in flight during the handover: %q, want it finished by A", got)
	}
	recv(t, stopped, "end of holder A")
	if got := recv(t, again, "answer to the call sent during the handover"); got != "write done by B" {
		t.Errorf("the call sent during the handover: %q, want it sent to B", got)
	}
	c.Close()
	if err := recv(t, relayed, "end of the relay"); err != nil {
		t.Error(err)
	}
}

// What a relay or a shell command pays to reach a running holder: connect
// to the socket, initialize an MCP session, make one call, hang up.
func BenchmarkAttachToHolder(b *testing.B) {
	dir := b.TempDir()
	sock := server.SocketPath(dir)
	ln, err := server.ListenSocket(sock)
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.ServeSocket(ctx, ln, bare(nil), nil)
	}()
	defer func() { stop(); <-done }()
	take := func(context.Context) (io.Closer, error) { return nil, errors.New("the holder should answer") }
	for b.Loop() {
		conn, _, err := server.Attach(ctx, sock, take, time.Second, nil)
		if err != nil {
			b.Fatal(err)
		}
		c, err := client.Conn(ctx, conn, client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := callText(ctx, c, "echo", map[string]any{"text": "hi"}); err != nil {
			b.Fatal(err)
		}
		// hang up as the shell commands do: half-close, and let the
		// holder end the session
		c.Close()
	}
}

// When no process can take over (the store cannot be opened), the calls in
// flight get an error naming why, and the relay ends with it: never a
// silent exit.
func TestRelayTakeoverFails(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	conn, err := net.Dial("unix", hs.sock)
	if err != nil {
		t.Fatal(err)
	}
	cin, rout := io.Pipe()
	rin, cout := io.Pipe()
	relayed := make(chan error, 1)
	go func() {
		relayed <- server.Relay(context.Background(), hs.sock, conn, rin, rout, server.RelayOptions{
			Wait: time.Second,
			Takeover: func(context.Context) (io.Closer, error) {
				return nil, errors.New("opening the store: checksum mismatch")
			},
		})
		rout.Close()
	}()
	c, err := client.IO(context.Background(), cin, cout, client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answer := make(chan error, 1)
	go func() { _, err := call(c, "slow"); answer <- err }()
	recv(t, hs.started, "slow started")
	a.kill()
	if err := recv(t, answer, "answer to the call in flight"); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("the call in flight: %v, want an error naming why no one took over", err)
	}
	if err := recv(t, relayed, "end of the relay"); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("relay: %v, want the takeover's error", err)
	}
	close(hs.release)
}

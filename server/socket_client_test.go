package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// syncBuffer is a log destination that tests read while clients write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A shell command beside a running server talks to it over the unix
// socket and closes: that close is the end of the conversation, never an
// error in the log (it printed "ERROR Error reading from stdout … use of
// closed network connection" after every command).
func TestSocketClientClosesQuietly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &fake.Embedder{Name: "t"}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := memory.New(memory.Options{Store: st, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go server.ServeSocket(ctx, ln, server.New(svc, server.Options{}), slog.New(slog.DiscardHandler))

	var logs syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(old)
	for i := range 10 {
		c, err := client.Unix(ctx, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "hello"}}}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("close %d: %v", i, err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the clients' readers end after Close
	if out := logs.String(); strings.Contains(out, "ERROR") {
		t.Errorf("closing socket clients logged errors:\n%s", out)
	}
}

package main

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/client/clienttest"
	"agentmem/tools/spec"
)

// A history import holds the memory for minutes: it serves the other
// local processes on the socket meanwhile (an agent host started then,
// Codex, gave up after 30 s waiting for its handshake), and stops when it
// ends; a command of a moment serves nobody.
func TestImportSharesTheMemory(t *testing.T) {
	e := hookEnv(t)
	dir, err := e.cfg.Dir()
	if err != nil {
		t.Fatal(err)
	}
	sock := server.SocketPath(dir)

	cl, done, err := attach(e, true, asCommand)
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := net.Dial("unix", sock); err == nil {
		conn.Close()
		t.Error("a command of a moment serves the socket")
	}
	done()
	_ = cl

	cl, done, err = attach(e, true, asSharing)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Remember(e.ctx, spec.RememberArgs{Messages: []spec.Message{{Role: "user", Content: "The import stored this turn."}}}); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the import does not serve the socket: %v", err)
	}
	other, err := client.Conn(context.Background(), conn, client.WithName("other"))
	if err != nil {
		t.Fatalf("handshake over the import's socket: %v", err)
	}
	res, _, err := other.Recall(context.Background(), spec.RecallArgs{Query: "import stored turn"})
	if err != nil || len(res.Memories) != 1 {
		t.Errorf("recall through the import's socket = %d memories, %v; want the turn", len(res.Memories), err)
	}
	other.Close()
	done()
	if conn, err := net.Dial("unix", sock); err == nil {
		conn.Close()
		t.Error("the socket is still served after the import ended")
	}
}

// A command relayed to an import goes on when the import ends: its relay
// takes the memory over (a second import stopped halfway, "this server is
// handing the memory over to another process", when the first ended).
func TestCommandOutlivesTheImport(t *testing.T) {
	e := hookEnv(t)
	_, doneImport, err := attach(e, true, asSharing)
	if err != nil {
		t.Fatal(err)
	}
	other := *e
	cl, done, err := attach(&other, true, asCommand)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	remember := func(text string) error {
		_, _, err := cl.Remember(e.ctx, spec.RememberArgs{Messages: []spec.Message{{Role: "user", Content: text}}})
		return err
	}
	if err := remember("Said while the import ran."); err != nil {
		t.Fatal(err)
	}
	doneImport()
	if err := remember("Said after the import ended."); err != nil {
		t.Fatalf("a call after the import ended: %v", err)
	}
	res, _, err := cl.Recall(e.ctx, spec.RecallArgs{Query: "said import"})
	if err != nil || len(res.Memories) != 2 {
		t.Errorf("recall = %d memories, %v; want both", len(res.Memories), err)
	}
}

// A holder that takes a command's connection and never answers (stopped
// with SIGSTOP, hung) fails the command after the handshake's bound: its
// relay is not waited for (it waited until the process was killed).
func TestCommandGivesUpOnASilentHolder(t *testing.T) {
	e := hookEnv(t)
	dir, err := e.cfg.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := server.SocketPath(dir)
	ln, err := server.ListenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	clienttest.Silent(ln)
	saved := attachTimeout
	attachTimeout = 300 * time.Millisecond
	defer func() { attachTimeout = saved }()
	start := time.Now()
	_, _, err = attach(e, true, asCommand)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), sock) || !strings.Contains(err.Error(), "stopped or hung") {
		t.Fatalf("attach to a silent holder: %v, want an error naming the socket and what to do", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("gave up after %v, want about the handshake's bound", took)
	}
}

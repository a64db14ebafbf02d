//go:build unix

package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"agentmem/server"
	"agentmem/tools/client/clienttest"
)

// rawRelay starts a relay to the holder on sock with the client's lines
// written to its stdin (then closed when close is set), and returns its
// stdout's lines and its end.
func rawRelay(t *testing.T, hs *holders, opts server.RelayOptions, lines []string, closeIn bool) (<-chan string, <-chan error, func()) {
	t.Helper()
	conn, err := net.Dial("unix", hs.sock)
	if err != nil {
		t.Fatal(err)
	}
	rin, cout := io.Pipe()
	rout, cin := io.Pipe()
	opts.Takeover = func(context.Context) (io.Closer, error) {
		h, err := hs.start(time.Second)
		if err != nil {
			return nil, err
		}
		hs.takeovers.Add(1)
		return h, nil
	}
	relayed := make(chan error, 1)
	go func() {
		relayed <- server.Relay(context.Background(), hs.sock, conn, rin, cin, opts)
		cin.Close()
	}()
	out := make(chan string, 100)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(rout)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	go func() {
		for _, l := range lines {
			io.WriteString(cout, l+"\n")
		}
		if closeIn {
			cout.Close()
		}
	}()
	t.Cleanup(func() { cout.Close(); rout.Close() })
	return out, relayed, func() { cout.Close() }
}

const rawInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func rawCall(id int, tool string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// answers reads the relay's output to its end and returns the text of the
// answer to each id (or its error's message).
func answers(t *testing.T, out <-chan string) map[int]string {
	t.Helper()
	got := map[int]string{}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-out:
			if !ok {
				return got
			}
			var m struct {
				ID     *int `json:"id"`
				Result struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) != nil || m.ID == nil {
				continue
			}
			switch {
			case m.Error != nil:
				got[*m.ID] = "error: " + m.Error.Message
			case len(m.Result.Content) > 0:
				got[*m.ID] = m.Result.Content[0].Text
			default:
				got[*m.ID] = "ok"
			}
		case <-timeout:
			t.Fatalf("the relay's output did not end in 20 s; answers so far: %v", got)
		}
	}
}

// A client that has sent its last calls and closed its input, the holder
// killed before it answered them: the calls go to the next holder, as for
// a client still there, and the relay ends once they are answered. (It
// ended at once, the calls unanswered and the exit status 0.)
func TestRelayClientDoneThenHolderKilled(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	out, relayed, _ := rawRelay(t, hs, server.RelayOptions{Wait: 5 * time.Second}, []string{
		rawInit, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		rawCall(1, "slow", `{}`), rawCall(2, "whoami", `{}`),
	}, true)
	if got := recv(t, hs.started, "slow started"); got != "slow@A" {
		t.Fatalf("started %s", got)
	}
	a.kill()
	got := answers(t, out)
	if got[1] != "slow done by B" {
		t.Errorf("the call in flight when the holder died: %q, want it repeated on B", got[1])
	}
	if got[2] == "" || strings.HasPrefix(got[2], "error") {
		t.Errorf("whoami: %q", got[2])
	}
	if err := recv(t, relayed, "end of the relay"); err != nil {
		t.Errorf("relay: %v", err)
	}
	if n := hs.takeovers.Load(); n != 1 {
		t.Errorf("%d takeovers, want 1", n)
	}
	close(hs.release)
}

// A client that is done, every call answered, ends the relay without a
// takeover.
func TestRelayClientDoneNoTakeover(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	defer a.Close()
	out, relayed, _ := rawRelay(t, hs, server.RelayOptions{}, []string{rawInit, rawCall(1, "whoami", `{}`)}, true)
	if got := answers(t, out); got[1] != "served by A" {
		t.Errorf("whoami = %q", got[1])
	}
	if err := recv(t, relayed, "end of the relay"); err != nil {
		t.Errorf("relay: %v", err)
	}
	if n := hs.takeovers.Load(); n != 0 {
		t.Errorf("%d takeovers, want none", n)
	}
}

// A relayed server's calls that name no namespace get its own default,
// not the holder's; a call that names one keeps it; a tool that takes
// none is left as it is.
func TestRelayNamespace(t *testing.T) {
	hs := newHolders(t)
	a := hs.first(time.Second)
	defer a.Close()
	out, relayed, _ := rawRelay(t, hs, server.RelayOptions{Namespace: "projx"}, []string{
		rawInit,
		rawCall(1, "recall", `{"query":"q"}`),
		rawCall(2, "recall", `{"query":"q","namespace":"other"}`),
		rawCall(3, "recall", `{"query":"q","namespace":""}`),
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall"}}`,
		rawCall(5, "whoami", `{}`),
		rawCall(6, "recall", `{"query":"q","namespace":null}`),
	}, true)
	got := answers(t, out)
	// "" and null are passed on as they are: a holder refuses them from its
	// own client (this test's tool takes them as none)
	for id, want := range map[int]string{1: "namespace projx", 2: "namespace other", 3: "namespace ", 4: "namespace projx", 5: "served by A", 6: "namespace (none)"} {
		if got[id] != want {
			t.Errorf("call %d: %q, want %q", id, got[id], want)
		}
	}
	if err := recv(t, relayed, "end of the relay"); err != nil {
		t.Errorf("relay: %v", err)
	}
}

// A holder that takes the connection but never answers (stopped with
// SIGSTOP, hung): the client's initialize gets an error saying so within
// the wait, and the relay ends with it, where it hung for ever.
func TestRelayHolderUnresponsive(t *testing.T) {
	hs := newHolders(t)
	ln, err := server.ListenSocket(hs.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	clienttest.Silent(ln) // takes the connection, never answers
	start := time.Now()
	out, relayed, _ := rawRelay(t, hs, server.RelayOptions{InitWait: 300 * time.Millisecond}, []string{rawInit}, false)
	err = recv(t, relayed, "end of the relay")
	if err == nil || !strings.Contains(err.Error(), "did not answer this session's handshake") {
		t.Errorf("relay: %v, want an error saying the holder did not answer", err)
	}
	if got := answers(t, out); !strings.Contains(got[0], "stopped or hung") {
		t.Errorf("the initialize's answer: %q, want an error saying the holder is stopped or hung", got[0])
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// fakeHolder serves the socket with a holder that answers the handshake,
// and pings only if pings is set, and a call only after callAfter (never
// if 0): a busy holder, or one stopped after the handshake.
func fakeHolder(t *testing.T, sock string, pings bool, callAfter time.Duration) {
	t.Helper()
	ln, err := server.ListenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go func() {
				var mu sync.Mutex
				var calls sync.WaitGroup
				defer func() { calls.Wait(); c.Close() }() // a client done: its calls answered, then the end
				answer := func(id json.RawMessage, result string) {
					mu.Lock()
					defer mu.Unlock()
					fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
				}
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var m struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
						continue
					}
					switch {
					case m.Method == "initialize":
						answer(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}`)
					case m.Method == "ping" && pings:
						answer(m.ID, `{}`)
					case m.Method == "tools/call" && callAfter > 0:
						calls.Go(func() { time.Sleep(callAfter); answer(m.ID, `{"content":[{"type":"text","text":"done"}]}`) })
					}
				}
			}()
		}
	}()
}

// A holder stopped after the handshake (SIGSTOP, Ctrl-Z in its terminal)
// answers no ping: the call waiting on it gets an error saying so, and the
// relay ends, where the call waited for ever.
func TestRelayHolderStoppedAfterHandshake(t *testing.T) {
	hs := newHolders(t)
	fakeHolder(t, hs.sock, false, 0)
	out, relayed, _ := rawRelay(t, hs, server.RelayOptions{PingAfter: 200 * time.Millisecond, InitWait: 300 * time.Millisecond}, []string{rawInit, rawCall(1, "recall", `{"query":"q"}`)}, false)
	if err := recv(t, relayed, "end of the relay"); err == nil || !strings.Contains(err.Error(), "stopped answering") {
		t.Errorf("relay: %v, want an error saying the holder stopped answering", err)
	}
	if got := answers(t, out); !strings.Contains(got[1], "did not answer a ping") {
		t.Errorf("the call waiting: %q, want an error saying the holder does not answer", got[1])
	}
}

// A holder that is only busy answers the pings, and its slow call is
// answered in the end: no error, whether the client waits with its input
// open (pinged) or closed (no ping follows a half-close).
func TestRelayBusyHolderIsWaitedFor(t *testing.T) {
	for _, closeIn := range []bool{false, true} {
		hs := newHolders(t)
		fakeHolder(t, hs.sock, true, 1500*time.Millisecond)
		out, relayed, done := rawRelay(t, hs, server.RelayOptions{PingAfter: 200 * time.Millisecond, InitWait: 300 * time.Millisecond}, []string{rawInit, rawCall(1, "recall", `{"query":"q"}`)}, closeIn)
		if !closeIn {
			go func() {
				time.Sleep(2500 * time.Millisecond) // past the answer, after several pings
				done()
			}()
		}
		if got := answers(t, out); got[1] != "done" {
			t.Errorf("closed input %v: the slow call: %q, want its answer", closeIn, got[1])
		}
		if err := recv(t, relayed, "end of the relay"); err != nil {
			t.Errorf("closed input %v: relay: %v", closeIn, err)
		}
	}
}

package server

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync"
	"time"

	"agentmem/tools/spec"
)

// RelayOptions configure Relay.
type RelayOptions struct {
	// Takeover makes this process the holder when the holder exits: it
	// opens the memory and serves it on the socket, and returns what
	// releases both. It returns an error wrapping ErrHeld when another
	// process holds the memory (the relay then connects to that one).
	// Without it, the relay ends with its holder.
	Takeover func(context.Context) (io.Closer, error)
	// Wait bounds the wait for a new holder (AttachWait if zero).
	Wait time.Duration
	// Namespace, when set, is the namespace of the client's calls of a
	// tool that takes one (spec.Namespaced) and names none: this process's
	// default, not the holder's, so that an agent set up with its own
	// namespace keeps it whichever process holds the memory.
	Namespace string
	// InitWait bounds the wait for the holder's answer to the client's
	// handshake, initialize or server/discover (HandshakeWait if zero): a
	// holder that is stopped or hung gets the client an error instead of a
	// silent hang.
	InitWait time.Duration
	// PingAfter is how long a call may wait for its answer before the
	// relay asks the holder whether it is there at all, with a ping it
	// must answer within InitWait (HolderCheck if zero). A holder that
	// is busy answers a ping at once (mcp-go serves it beside the calls);
	// one stopped (SIGSTOP, Ctrl-Z in its terminal) or hung does not, and
	// the calls waiting on it get an error instead of waiting for ever.
	// Once the client has closed its input the relay has half-closed the
	// connection, and its calls wait without a ping.
	PingAfter time.Duration
	Logger    *slog.Logger
}

// HolderCheck is how long a call waits before its relay pings the holder.
const HolderCheck = 15 * time.Second

// HandshakeWait is how long a relay waits for the holder's answer to its
// client's handshake.
const HandshakeWait = 10 * time.Second

// Relay passes the MCP session of a client on in/out (this process's
// stdio) to the holder's socket, over conn, until the client closes in or
// ctx ends.
//
// When the holder goes away (it exited, was killed, or handed over), the
// relay attaches to the next holder, becoming it through
// opts.Takeover when no other process has, and the client's session goes
// on as if nothing happened:
//   - the client's initialize request and initialized notification are
//     replayed to the new holder (under an id of the relay's own, and the
//     duplicate response is swallowed), and so is its last
//     logging/setLevel, so that its log notifications go on at its level;
//   - a request the old holder had not answered is sent again when it is
//     safe to repeat: any method but tools/call, and tools/call of a tool
//     the holder declares read-only or idempotent (its annotations, learnt
//     from a tools/list response or asked for by the relay), or a request
//     the old holder answered with codeHandover (it never started it);
//   - any other unanswered request gets a JSON-RPC error (codeHolderLost)
//     saying that the holder exited while the call was in flight and that
//     it may or may not have taken effect.
//
// A client that closes its input with calls unanswered has them answered
// all the same, by the next holder if this one goes away meanwhile. A call
// of a tool that takes a namespace and names none gets opts.Namespace. A
// holder that does not answer the client's handshake within opts.InitWait
// gets the client an error, and Relay returns it.
//
// JSON-RPC batches (arrays) are passed on but not tracked.
func Relay(ctx context.Context, sock string, conn net.Conn, in io.Reader, out io.Writer, opts RelayOptions) error {
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	opts.Wait = cmp.Or(opts.Wait, AttachWait)
	opts.InitWait = cmp.Or(opts.InitWait, HandshakeWait)
	opts.PingAfter = cmp.Or(opts.PingAfter, HolderCheck)
	var tag [6]byte
	rand.Read(tag[:])
	r := &relay{
		sock: sock, opts: opts, out: out, log: opts.Logger,
		pending: map[string]*call{}, hints: map[string]bool{},
		tag: fmt.Sprintf("agentmem-relay-%x", tag),
	}
	defer func() {
		if r.holder != nil {
			if err := r.holder.Close(); err != nil {
				r.log.Warn("releasing the memory", "err", err)
			}
		}
	}()
	lines := make(chan []byte)
	go readLines(in, lines)
	br := bufio.NewReader(conn)
	for {
		lost, err := r.run(ctx, conn, br, lines)
		conn.Close()
		if !lost || ctx.Err() != nil {
			return err
		}
		r.log.Info("the agentmem process holding the memory went away; reattaching", "calls_in_flight", len(r.pending))
		conn, br, err = r.reattach(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.failPending(fmt.Sprintf("agentmem: the server process holding the memory exited while this call was in flight, and no other could take over (%v)", err), "holder_exited")
			return fmt.Errorf("the agentmem process holding the memory exited, and this relay could not take over: %w", err)
		}
	}
}

type relay struct {
	sock string
	opts RelayOptions
	log  *slog.Logger
	tag  string // prefix of the relay's own request ids

	outMu sync.Mutex
	out   io.Writer

	mu          sync.Mutex
	pending     map[string]*call // requests sent to the holder and not answered, by id
	seq         uint64
	unsent      [][]byte // notifications a dead holder did not take
	initialize  []byte   // the client's initialize request
	initID      string   // the id of its handshake: initialize, or server/discover
	initialized []byte   // and its initialized notification
	setLevel    []byte   // and its last logging/setLevel the holder took
	hints       map[string]bool
	hintsKnown  bool
	private     uint64
	ping        string    // the id (idKey) of the relay's ping the holder has not answered
	pinged      time.Time // when it was sent

	holder io.Closer // set once this process has taken over
}

type call struct {
	seq        uint64
	sent       time.Time
	line       []byte
	m          message
	tool       string
	notStarted bool // the holder said so (codeHandover)
}

// readLines sends each line of in, trimmed, until in ends.
func readLines(in io.Reader, lines chan<- []byte) {
	defer close(lines)
	readConn(in, func(line []byte) { lines <- append(bytes.TrimSpace(line), '\n') })
}

func (r *relay) write(line []byte) error {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	_, err := r.out.Write(line)
	return err
}

// run relays until the client is done and every call it made is
// answered (lost false), or the holder goes away while the client is
// still there or its calls are not all answered (lost true).
func (r *relay) run(ctx context.Context, conn net.Conn, br *bufio.Reader, lines <-chan []byte) (lost bool, err error) {
	pumped := make(chan error, 1)
	go func() { pumped <- r.pump(br) }()
	var initTimeout <-chan time.Time
	check := time.NewTicker(min(r.opts.PingAfter, r.opts.InitWait) / 2)
	defer check.Stop()
	r.mu.Lock()
	r.ping = "" // a new holder owes no ping
	r.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case err := <-pumped:
			return r.holderGone(err, false)
		case <-initTimeout:
			if err := r.initUnanswered(); err != nil {
				return false, err
			}
		case <-check.C:
			if err := r.checkHolder(conn); err != nil {
				return false, err
			}
		case line, ok := <-lines:
			if !ok {
				// the client is done: let the holder answer, then stop
				if uc, ok := conn.(*net.UnixConn); ok {
					uc.CloseWrite()
				}
				// (no ping can follow a half-close: the calls wait)
				select {
				case err := <-pumped:
					return r.holderGone(err, true)
				case <-ctx.Done():
				}
				return false, nil
			}
			m := peek(line) // read once: a line may be a remember of megabytes
			line, m = r.withNamespace(line, m)
			r.track(line, m)
			if m.kind == request && (m.method == "initialize" || m.method == "server/discover") {
				initTimeout = time.After(r.opts.InitWait) // the handshake: of protocol 2026-07-28 too
			}
			if _, err := conn.Write(line); err != nil {
				if m.kind == notification {
					r.mu.Lock()
					r.unsent = append(r.unsent, line)
					r.mu.Unlock()
				}
				conn.Close()
				<-pumped
				return true, nil
			}
		}
	}
}

// holderGone says how run ends when the holder's connection has ended
// (err is how): the client gone is the end; else the holder is lost,
// unless it answered every call of a client that is done (done: it
// closed its input). A holder killed before it answered a done client's
// last calls is lost like any other: the calls go to the next one.
func (r *relay) holderGone(err error, done bool) (lost bool, _ error) {
	var cw *clientWriteError
	if errors.As(err, &cw) {
		// the client is gone, not the holder
		return false, r.clientGone(cw.err)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		r.log.Debug("holder connection ended", "err", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return !done || len(r.pending) > 0, nil
}

// initUnanswered answers the client's handshake (initialize, or a
// sessionless client's server/discover) with an error when the holder has
// not answered it in time, and ends the relay.
func (r *relay) initUnanswered() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.pending[r.initID]
	if !ok {
		return nil
	}
	delete(r.pending, r.initID)
	why := fmt.Sprintf("the agentmem process holding the memory (socket %s) did not answer this session's handshake within %s: it is stopped or hung; end it (or let it go on: kill -CONT) and try again", r.sock, r.opts.InitWait)
	r.write(errorLine(c.m.rawID, codeHolderLost, "agentmem: "+why, map[string]any{"reason": "holder_unresponsive"}))
	return errors.New(why)
}

// checkHolder pings the holder when a call has waited PingAfter for its
// answer, and when a ping has gone unanswered for InitWait, answers every
// waiting call with an error saying the holder is stopped or hung, and
// ends the relay. A holder that is only busy answers the ping at once.
func (r *relay) checkHolder(conn net.Conn) error {
	ping, err := r.dueCheck(time.Now())
	if ping != nil {
		conn.Write(ping) // a holder that is gone shows in pump
	}
	if err != nil {
		r.failPending("agentmem: "+err.Error(), "holder_unresponsive")
	}
	return err
}

// dueCheck is checkHolder's decision at now: the ping to send, if one is
// due, or the error that ends the relay.
func (r *relay) dueCheck(now time.Time) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ping != "" {
		if now.Sub(r.pinged) < r.opts.InitWait {
			return nil, nil
		}
		return nil, fmt.Errorf("the agentmem process holding the memory (socket %s) stopped answering: it did not answer a ping within %s (it is stopped, e.g. by Ctrl-Z in its terminal, or hung); end it or let it go on (kill -CONT), then call again", r.sock, r.opts.InitWait)
	}
	waited := false
	for _, c := range r.pending {
		waited = waited || now.Sub(c.sent) >= r.opts.PingAfter
	}
	if !waited {
		return nil, nil
	}
	r.private++
	id := fmt.Sprintf("%q", fmt.Sprintf("%s-ping-%d", r.tag, r.private))
	r.ping, r.pinged = idKey(json.RawMessage(id)), now
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`+"\n", id), nil
}

// withNamespace gives a call of a tool that takes a namespace and names
// none the relay's own default (RelayOptions.Namespace). A line
// it cannot read is passed on as it is, for the holder to refuse.
func (r *relay) withNamespace(line []byte, m message) ([]byte, message) {
	if r.opts.Namespace == "" || m.kind != request || m.method != "tools/call" || !spec.Namespaced(toolName(m.params)) {
		return line, m
	}
	var msg, params, args map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil {
		return line, m
	}
	if a, ok := params["arguments"]; ok && json.Unmarshal(a, &args) != nil {
		return line, m // not an object: refused by the holder
	}
	if _, ok := args["namespace"]; ok {
		return line, m // "" and null too: the holder refuses them, as its own client's
	}
	if args == nil {
		args = map[string]json.RawMessage{}
	}
	args["namespace"], _ = json.Marshal(r.opts.Namespace)
	var err error
	if params["arguments"], err = json.Marshal(args); err != nil {
		return line, m
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return line, m
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line, m
	}
	out = append(out, '\n')
	return out, peek(out)
}

// track records what the relay must know of a client message (line, m
// its peek) before it goes to the holder.
func (r *relay) track(line []byte, m message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m.kind {
	case request:
		r.seq++
		c := &call{seq: r.seq, sent: time.Now(), line: line, m: m}
		switch m.method {
		case "initialize":
			r.initialize, r.initID = line, m.id
		case "server/discover":
			r.initID = m.id
		case "tools/call":
			c.tool = toolName(m.params)
		}
		r.pending[m.id] = c
	case notification:
		switch m.method {
		case "notifications/initialized":
			r.initialized = line
		case "notifications/cancelled":
			if id, ok := cancelledID(m.params); ok {
				delete(r.pending, id)
			}
		}
	}
}

// pump copies the holder's messages to the client, settling the pending
// requests they answer, until the connection ends.
func (r *relay) pump(br *bufio.Reader) error {
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return err // a partial line is the last words of a dead holder
		}
		if m := peek(line); m.kind == response {
			r.mu.Lock()
			if r.ping != "" && m.id == r.ping {
				r.ping = "" // the holder is there
				r.mu.Unlock()
				continue
			}
			c, ok := r.pending[m.id]
			if ok && m.err != nil && m.err.Code == codeHandover {
				c.notStarted = true
				r.mu.Unlock()
				continue // sent again to the next holder
			}
			if ok {
				delete(r.pending, m.id)
				switch {
				case c.m.method == "tools/list":
					r.learnHints(m.result)
				case c.m.method == "logging/setLevel" && m.err == nil:
					r.setLevel = c.line // the level the holder took
				}
			}
			r.mu.Unlock()
		}
		if err := r.write(line); err != nil {
			return &clientWriteError{err}
		}
	}
}

// clientWriteError is a failed write to the client: the relay's stdout.
type clientWriteError struct{ err error }

func (e *clientWriteError) Error() string { return "writing to the client: " + e.err.Error() }

// clientGone ends the relay after a write to the client failed. A client
// that closed its end (a host shutting down) is the normal end of a
// session, logged at debug; any other write error is a fault.
func (r *relay) clientGone(err error) error {
	if ClientClosed(err) {
		r.log.Debug("the client closed its end of the session", "err", err)
		return nil
	}
	r.log.Error("relaying to the client failed", "err", err)
	return fmt.Errorf("relaying to the client: %w", err)
}

// learnHints records which tools are safe to call again, from a
// tools/list result. Callers hold r.mu.
func (r *relay) learnHints(result json.RawMessage) {
	var res struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnly   *bool `json:"readOnlyHint"`
				Idempotent *bool `json:"idempotentHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	for _, t := range res.Tools {
		a := t.Annotations
		r.hints[t.Name] = (a.ReadOnly != nil && *a.ReadOnly) || (a.Idempotent != nil && *a.Idempotent)
	}
	r.hintsKnown = true
}

func (r *relay) repeatable(c *call) bool {
	return c.notStarted || c.m.method != "tools/call" || r.hints[c.tool]
}

// reattach connects to the next holder (or becomes it), replays the
// client's session, and sends again what must be sent again. A connection
// that breaks meanwhile (a dying holder's socket can still accept for a
// moment) is tried again, for up to the wait.
func (r *relay) reattach(ctx context.Context) (net.Conn, *bufio.Reader, error) {
	take := r.opts.Takeover
	if take == nil {
		take = func(context.Context) (io.Closer, error) {
			return nil, errors.New("this relay cannot take over")
		}
	}
	deadline := time.Now().Add(r.opts.Wait)
	for {
		conn, h, err := Attach(ctx, r.sock, take, time.Until(deadline), r.log)
		if err != nil {
			return nil, nil, err
		}
		if h != nil {
			r.log.Info("this process now holds the memory and serves the others", "socket", r.sock)
			if r.holder != nil {
				r.holder.Close()
			}
			r.holder = h
			if conn, err = dial(ctx, r.sock); err != nil {
				return nil, nil, fmt.Errorf("connecting to this process's own socket: %w", err)
			}
		}
		br := bufio.NewReader(conn)
		err = r.replay(conn, br)
		if err == nil {
			r.log.Info("the session goes on with the agentmem process that now holds the memory")
			return conn, br, nil
		}
		conn.Close()
		if errors.As(err, new(*refusal)) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, nil, err
		}
		r.log.Debug("the new connection broke while replaying the session; trying again", "err", err)
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// refusal is a JSON-RPC error the new holder answered the relay's own
// request with: trying again would not help.
type refusal struct{ err *rpcError }

func (e *refusal) Error() string { return fmt.Sprintf("%s (code %d)", e.err.Message, e.err.Code) }

func (r *relay) replay(conn net.Conn, br *bufio.Reader) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := slices.SortedFunc(maps.Values(r.pending), func(a, b *call) int { return cmp.Compare(a.seq, b.seq) })
	initPending := slices.ContainsFunc(calls, func(c *call) bool { return c.m.method == "initialize" })
	if r.initialize != nil && !initPending {
		if _, err := r.ask(conn, br, r.initialize); err != nil {
			return fmt.Errorf("replaying the session's initialize: %w", err)
		}
		if r.initialized != nil {
			if _, err := conn.Write(r.initialized); err != nil {
				return err
			}
		}
		levelPending := slices.ContainsFunc(calls, func(c *call) bool { return c.m.method == "logging/setLevel" })
		if r.setLevel != nil && !levelPending {
			// a level the holder refuses (the client sent an invalid one,
			// and was told so) is dropped; the session goes on
			var refused *refusal
			if _, err := r.ask(conn, br, r.setLevel); errors.As(err, &refused) {
				r.setLevel = nil
			} else if err != nil {
				return fmt.Errorf("replaying the session's logging level: %w", err)
			}
		}
	}
	if !r.hintsKnown && slices.ContainsFunc(calls, func(c *call) bool { return c.m.method == "tools/call" && !c.notStarted }) {
		res, err := r.ask(conn, br, []byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`))
		if err != nil {
			return fmt.Errorf("listing the tools: %w", err)
		}
		r.learnHints(res)
	}
	for _, c := range calls {
		if !r.repeatable(c) {
			delete(r.pending, c.m.id)
			r.write(errorLine(c.m.rawID, codeHolderLost, fmt.Sprintf(
				"agentmem: the server process holding the memory exited while this %s call was in flight; another process holds the memory now, but the call was not repeated because %s is not idempotent: it may or may not have taken effect, so check before calling it again", c.tool, c.tool),
				map[string]any{"reason": "holder_exited", "repeated": false}))
			continue
		}
		c.notStarted = false
		if _, err := conn.Write(c.line); err != nil {
			return err
		}
	}
	for _, line := range r.unsent {
		if _, err := conn.Write(line); err != nil {
			return err
		}
	}
	r.unsent = nil
	return nil
}

// ask sends line under an id of the relay's own and returns the result of
// its response. The holder's other messages meanwhile go to the client.
// Callers hold r.mu.
func (r *relay) ask(conn net.Conn, br *bufio.Reader, line []byte) (json.RawMessage, error) {
	r.private++
	id := fmt.Sprintf("%s-%d", r.tag, r.private)
	line, err := withID(line, id)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	want := idKey(json.RawMessage(fmt.Sprintf("%q", id)))
	conn.SetReadDeadline(time.Now().Add(ShutdownGrace))
	defer conn.SetReadDeadline(time.Time{})
	for {
		got, err := br.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		m := peek(got)
		if m.kind == response && m.id == want {
			if m.err != nil && m.err.Code == codeHandover {
				// a holder that began handing over as we connected
				return nil, fmt.Errorf("the holder is handing over: %s", m.err.Message)
			}
			if m.err != nil {
				return nil, &refusal{m.err}
			}
			return m.result, nil
		}
		r.write(got)
	}
}

// failPending answers every pending request with an error msg: there is
// no holder to send them to (reason says why, for programs).
func (r *relay) failPending(msg, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.pending {
		r.write(errorLine(c.m.rawID, codeHolderLost, msg, map[string]any{"reason": reason, "repeated": false}))
		delete(r.pending, id)
	}
}

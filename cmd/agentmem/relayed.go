package main

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"agentmem/server"
	"agentmem/tools/client"
)

// relayed is a client of the process that holds the memory, over conn (its
// socket), through this process's own relay (server.Relay, as a relayed
// serve runs): when that holder ends mid-command (an import that served
// others while it ran, a server its agent closed), the relay attaches to
// the next holder, or takes the memory over (serving the socket, where the
// relay reaches it), and the command's calls go on, those not yet started
// sent again, instead of failing halfway.
func relayed(e *env, dir, sock string, conn net.Conn, mode holdMode) (*client.Client, func(), error) {
	relayIn, toRelay := io.Pipe()
	fromRelay, relayOut := io.Pipe()
	rctx, cancel := context.WithCancel(e.ctx)
	ended := make(chan struct{})
	var relayErr error // read after ended
	go func() {
		defer close(ended)
		// a relay that takes over reaches the memory through the socket it
		// then serves, a command's too
		err := server.Relay(rctx, sock, conn, relayIn, relayOut, server.RelayOptions{Takeover: hold(e, dir, sock, max(mode, asSharing)), Namespace: e.cfg.Namespace, InitWait: attachTimeout, Logger: e.log})
		if err != nil && !errors.Is(err, io.ErrClosedPipe) && rctx.Err() == nil {
			e.log.Debug("relaying to the agentmem process that holds the data dir", "err", err) // the command says why
			relayErr = err
		}
		relayOut.Close() // the client reads to the end
		relayIn.Close()
	}()
	// end lets the relay finish the session with its holder, for as long
	// as a handshake may take; a holder that does not answer (stopped,
	// hung) is left behind
	end := func() {
		toRelay.Close()
		select {
		case <-ended:
		case <-time.After(attachTimeout):
		}
		cancel()
		<-ended
	}
	// the relay answers a silent holder's handshake with an error naming
	// the socket after attachTimeout; the client's own bound is a backstop
	c, err := client.Conn(e.ctx, &pipeConn{r: fromRelay, w: toRelay}, cliName, client.WithInitWithin(attachTimeout+2*time.Second))
	if err != nil {
		cancel() // the holder did not answer: its relay is not waited for
		end()
		if relayErr != nil {
			return nil, nil, relayErr // what the relay knows: the holder's socket, stopped or hung
		}
		return nil, nil, err
	}
	return c, func() { c.Close(); end() }, nil
}

// pipeConn is a net.Conn of two pipes in this process: the client's end of
// its relay. CloseWrite ends what the client sends (the relay then ends
// the session and closes the other pipe), as on a socket.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

// Read reads what the relay sends; after Close, net.ErrClosed, as a
// socket closed on this side says.
func (p *pipeConn) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if errors.Is(err, io.ErrClosedPipe) {
		err = net.ErrClosed
	}
	return n, err
}

func (p *pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeConn) CloseWrite() error           { return p.w.Close() }
func (p *pipeConn) Close() error {
	p.w.Close()
	return p.r.Close()
}
func (p *pipeConn) LocalAddr() net.Addr              { return pipeAddr{} }
func (p *pipeConn) RemoteAddr() net.Addr             { return pipeAddr{} }
func (p *pipeConn) SetDeadline(time.Time) error      { return nil }
func (p *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (p *pipeConn) SetWriteDeadline(time.Time) error { return nil }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "relay" }

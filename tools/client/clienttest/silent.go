// Package clienttest holds what tests of MCP clients share: a server that
// never answers.
package clienttest

import "net"

// Silent takes every connection ln accepts and holds it open, never
// answering, until ln is closed: a server stopped (SIGSTOP) or hung, which
// a client must give up on within its bound.
func Silent(ln net.Listener) {
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
}

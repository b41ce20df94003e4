package proxy

import (
	"bufio"
	"net"

	"github.com/pgequiv/pgequiv/protocol"
)

// relayBufs are the readers and writers of the goroutine relay (and of
// authentication). A connection that moves to the fast relay gives them
// back to its Server's pool, so an idle connection there holds none, and
// the next connection's authentication reuses them instead of allocating
// (and zeroing, page by page) fresh buffers.
type relayBufs struct {
	size     int
	clR, upR *protocol.Reader
	clW, upW *bufio.Writer
}

// wireRelay gives c its readers and writers on client and upstream. The
// readers start with the held bytes (see fastHandback).
func (c *conn) wireRelay(client, up net.Conn, clHeld, upHeld []byte) {
	n := c.bufSize()
	b, _ := c.s.bufs.Get().(*relayBufs)
	if b == nil || b.size != n {
		b = &relayBufs{size: n,
			clR: protocol.NewReader(nil, n, 0), upR: protocol.NewReader(nil, n, 0),
			clW: bufio.NewWriterSize(nil, n), upW: bufio.NewWriterSize(nil, n)}
	}
	b.clW.Reset(sideWriter{client, CodeClientWrite})
	b.upW.Reset(sideWriter{up, CodeBackendWrite})
	// Each reader flushes the writer going the other way before it blocks,
	// so frames are batched while data keeps arriving and never held back
	// while the peer waits.
	b.clR.Reset(flushingReader{withPrefix(clHeld, client), b.upW})
	b.clR.SetMaxMessageSize(c.opts.MaxMessageSize)
	b.upR.Reset(flushingReader{withPrefix(upHeld, up), b.clW})
	b.upR.SetMaxMessageSize(0)
	c.bufs = b
	c.clR, c.upR, c.clW, c.upW = b.clR, b.upR, b.clW, b.upW
}

// unwireRelay gives the readers and writers back to the pool; they must
// hold no data.
func (c *conn) unwireRelay() {
	b := c.bufs
	if b == nil {
		return
	}
	b.clR.Reset(nil)
	b.upR.Reset(nil)
	b.clW.Reset(nil)
	b.upW.Reset(nil)
	c.s.bufs.Put(b)
	c.bufs = nil
	c.clR, c.upR, c.clW, c.upW = nil, nil, nil, nil
}

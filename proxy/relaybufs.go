package proxy

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"sync"

	"github.com/pgequiv/pgequiv/protocol"
)

// relayBufs are the readers and writers of the goroutine relay (and of
// authentication). A connection that moves to the fast relay gives them
// back to its Server's pool, so an idle connection there holds none, and
// the next connection's authentication reuses them instead of allocating
// (and zeroing, page by page) fresh buffers.
//
// Authentication gets small ones (authBufSize): its messages are small,
// and a burst of connecting clients would otherwise leave a pool's worth
// of full-size buffers in the heap, and in the process's RSS, long after
// the burst. The goroutine relay grows them to full size (growRelay).
type relayBufs struct {
	size     int
	clR, upR *protocol.Reader
	clW, upW *bufio.Writer
}

// authBufSize is the size of each buffer authentication uses. Larger
// messages still pass: Reader.Next copies them whole, Forward streams.
const authBufSize = 2 << 10

// authBufSize returns the buffer size for authentication.
func (c *conn) authBufSize() int { return min(authBufSize, c.bufSize()) }

// bufPool returns the pool of relayBufs of n bytes.
func (c *conn) bufPool(n int) *sync.Pool {
	if n == c.bufSize() {
		return &c.s.bufs
	}
	return &c.s.authBufs
}

// wireRelay gives c readers and writers of n bytes on client and upstream.
// The readers start with the held bytes (see fastHandback).
func (c *conn) wireRelay(client, up net.Conn, clHeld, upHeld []byte, n int) {
	b, _ := c.bufPool(n).Get().(*relayBufs)
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
	c.relayBufs = b
}

// growRelay gives the goroutine relay full-size buffers in place of
// authentication's. Bytes the readers hold move to the new ones (copied:
// the old buffers go back to their pool). Authentication flushes every
// write, so the writers are empty; were they not, the small buffers are
// kept, which is slower but correct.
func (c *conn) growRelay() {
	n := c.bufSize()
	if c.relayBufs == nil || c.relayBufs.size == n || c.clW.Buffered() > 0 || c.upW.Buffered() > 0 {
		return
	}
	clHeld, err := c.clR.Peek(c.clR.Buffered())
	if err != nil {
		return // cannot happen: the bytes are buffered
	}
	upHeld, err := c.upR.Peek(c.upR.Buffered())
	if err != nil {
		return
	}
	clHeld, upHeld = bytes.Clone(clHeld), bytes.Clone(upHeld)
	c.unwireRelay()
	c.wireRelay(c.client, c.upstream, clHeld, upHeld, n)
}

// unwireRelay gives the readers and writers back to the pool; they must
// hold no data.
func (c *conn) unwireRelay() {
	b := c.relayBufs
	if b == nil {
		return
	}
	b.clR.Reset(nil)
	b.upR.Reset(nil)
	b.clW.Reset(nil)
	b.upW.Reset(nil)
	c.bufPool(b.size).Put(b)
	c.relayBufs = nil
}

// sideWriter tags write errors with the side they happened on.
type sideWriter struct {
	w    io.Writer
	code ErrorCode
}

func (s sideWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		return n, &Error{Code: s.code, Err: err}
	}
	return n, nil
}

// flushingReader flushes w before every read from r. A bufio.Reader reads
// from it only when its buffer runs short, so output is flushed exactly
// when the input side might block.
type flushingReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f flushingReader) Read(p []byte) (int, error) {
	if f.w.Buffered() > 0 {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.r.Read(p)
}

package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
)

// The fast relay (fastrelay_linux.go) relays plain-TCP connections on a few
// event loops instead of two goroutines per connection, as PgBouncer does:
// the goroutine relay spends a large share of its CPU in the Go scheduler
// and netpoller, and in reads that end in EAGAIN. It frames both streams
// (headers only) to keep the counters the goroutine relay relies on. A
// simple Query the observer must see is answered on the loop
// (QuickObserver) or by ObserveQuery on a goroutine while the loop holds
// the client's bytes (fastasync_linux.go), and its notices and refusals
// are written before its ReadyForQuery as the goroutine relay writes them.
// It hands a connection over to the goroutine relay for good ("demotes"
// it) as soon as a client message needs more: a Parse the observer must
// see, a message to log at debug level, or a malformed or oversized
// frame, which the goroutine relay then reports exactly as before.

// errFastAborted ends a fast-relayed connection that abort ended; the
// abort's own error, recorded first, is the one reported.
var errFastAborted = errors.New("fast relay: connection aborted")

// fastFilter reports whether the connection may start on the fast relay,
// and with which filter for statements: nil when no statement needs
// inspection (a NopObserver), so they stream like any message.
func (c *conn) fastFilter() (filter StatementFilter, ok bool) {
	if c.opts.DisableFastRelay || c.debug() || c.inj.pending.Load() > 0 {
		return nil, false
	}
	// TLS on either side keeps the connection on the goroutine relay.
	if !plainSocket(c.client) || !plainSocket(c.upstream) {
		return nil, false
	}
	// Bytes already buffered by authentication stay with the goroutine
	// relay that buffered them.
	if c.clR.Buffered() > 0 || c.upR.Buffered() > 0 || c.clW.Buffered() > 0 || c.upW.Buffered() > 0 {
		return nil, false
	}
	switch o := c.opts.Observer.(type) {
	case NopObserver:
		return nil, true
	case StatementFilter:
		return o, true
	}
	return nil, false
}

// quickObserver returns the filter's QuickObserver methods, if it has
// them.
func quickObserver(filter StatementFilter) QuickObserver {
	q, _ := filter.(QuickObserver)
	return q
}

func plainSocket(c net.Conn) bool {
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
		return true
	}
	return false
}

// fastHandback is what the fast relay leaves for the goroutine relay when
// it demotes a connection, per direction (client to upstream, upstream to
// client).
type fastHandback struct {
	client, upstream net.Conn
	// pending bytes were framed and counted but not yet written to the
	// other side; they go out first.
	clPending, upPending []byte
	// held bytes were read but not yet framed; the readers start with them.
	clHeld, upHeld []byte
	// skip bytes of the stream (held bytes first) are the rest of a frame
	// whose header was already forwarded; they are forwarded unframed.
	clSkip, upSkip int
}

// resume sets up the goroutine relay on the state the fast relay left.
// The pending bytes go into the writers' buffers, not to the sockets: a
// write here could block while nobody reads the other side. They fit: the
// fast relay's buffers and these writers' are both c.bufSize() bytes, and
// the writers are empty.
func (c *conn) resume(h *fastHandback) {
	c.setConns(h.client, h.upstream)
	c.wireRelay(h.client, h.upstream, h.clHeld, h.upHeld, c.bufSize())
	_, _ = c.upW.Write(h.clPending) // buffered: cannot fail
	_, _ = c.clW.Write(h.upPending)
	c.clSkip, c.upSkip = h.clSkip, h.upSkip
}

func withPrefix(prefix []byte, r io.Reader) io.Reader {
	if len(prefix) == 0 {
		return r
	}
	return io.MultiReader(bytes.NewReader(prefix), r)
}

package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/pgequiv/pgequiv/protocol"
)

// dialUpstream connects to the upstream and negotiates TLS per its mode,
// within its connect timeout.
func dialUpstream(ctx context.Context, u Upstream) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, u.ConnectTimeout)
	defer cancel()
	return dialUpstreamWithin(ctx, u)
}

// dialUpstreamWithin is dialUpstream bounded by ctx alone, which must
// carry the connect timeout's deadline.
func dialUpstreamWithin(ctx context.Context, u Upstream) (net.Conn, error) {
	conn, err := dialTCP(ctx, u.Address)
	if err != nil {
		return nil, &Error{Code: CodeBackendDial, Err: err}
	}
	if u.TLSMode == TLSDisable {
		return conn, nil
	}
	// Bound the SSLRequest exchange by the same deadline.
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	cfg := &tls.Config{InsecureSkipVerify: true} // prefer and require do not verify, as in libpq
	if u.TLSMode == TLSVerifyFull {
		name := u.ServerName
		if name == "" {
			name, _, _ = net.SplitHostPort(u.Address)
		}
		cfg = &tls.Config{RootCAs: u.RootCAs, ServerName: name}
	}
	tconn, err := protocol.RequestTLS(ctx, conn, cfg, u.TLSMode != TLSPrefer)
	if err != nil {
		conn.Close()
		return nil, &Error{Code: CodeBackendDial, Err: err}
	}
	_ = tconn.SetDeadline(timeZero)
	return tconn, nil
}

// dialTCP connects to address. An IP address with a port (the usual
// upstream) is dialled without the resolver: Go's name resolution and its
// dual-stack dialling cost some 170 bytes of garbage per connection, and a
// burst of logins turns its garbage into resident heap (issue 24, idle
// connections). A host name is resolved on every dial, so that a changed
// DNS record is followed.
func dialTCP(ctx context.Context, address string) (net.Conn, error) {
	var d net.Dialer
	if ap, err := netip.ParseAddrPort(address); err == nil {
		tc, err := d.DialTCP(ctx, "tcp", netip.AddrPort{}, ap)
		if err != nil {
			return nil, err // not a nil *TCPConn in a non-nil net.Conn
		}
		return tc, nil
	}
	return d.DialContext(ctx, "tcp", address)
}

// dial connects to the upstream for c, within the connect timeout. Its
// context does not derive from c.ctx: a child context leaves its parent a
// map of children and a Done channel, some 350 bytes that a connection
// would carry for the rest of its life, idle or not. abort cancels it
// through dialCancel instead.
func (c *conn) dial() (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.Upstream.ConnectTimeout)
	defer cancel()
	c.setDialCancel(cancel)
	defer c.setDialCancel(nil)
	// abort cancels c.ctx before it looks for dialCancel: one of it and
	// this check sees the other.
	if c.ctx.Err() != nil {
		cancel()
	}
	return dialUpstreamWithin(ctx, c.opts.Upstream)
}

func (c *conn) setDialCancel(cancel context.CancelFunc) {
	c.connMu.Lock()
	c.dialCancel = cancel
	c.connMu.Unlock()
}

// upstreamTimedOut reports whether err is the upstream's side of the
// startup running past connect_timeout (a server that accepts TCP but
// does not answer: stopped, overloaded, or not PostgreSQL).
func upstreamTimedOut(err error) bool {
	switch CodeOf(err) {
	case CodeBackendDial, CodeBackendRead, CodeBackendWrite:
	default:
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// upstreamFailure is the FATAL message for a failed upstream startup; a
// timeout names the setting, so that the operator knows which bound hit.
func (c *conn) upstreamFailure(err error) string {
	if upstreamTimedOut(err) {
		c.logWarn("upstream startup timed out", "upstream", c.opts.Upstream.Address,
			"connect_timeout", c.opts.Upstream.ConnectTimeout, "err", err)
		return fmt.Sprintf("pgequiv: the upstream server %s did not complete connection startup within upstream.connect_timeout (%v)",
			c.opts.Upstream.Address, c.opts.Upstream.ConnectTimeout)
	}
	return "pgequiv: cannot reach the upstream server"
}

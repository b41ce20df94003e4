package proxy

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/pgequiv/pgequiv/protocol"
)

// dialUpstream connects to the upstream and negotiates TLS per its mode.
func dialUpstream(ctx context.Context, u Upstream) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, u.ConnectTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Address)
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

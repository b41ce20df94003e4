package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy/scram"
)

// TLSMode is how the proxy secures its connection to the upstream, with
// libpq's sslmode meanings.
type TLSMode string

// Upstream TLS modes.
const (
	// TLSDisable never asks for TLS.
	TLSDisable TLSMode = "disable"
	// TLSPrefer uses TLS if the server offers it, without verification.
	TLSPrefer TLSMode = "prefer"
	// TLSRequire insists on TLS, without verification.
	TLSRequire TLSMode = "require"
	// TLSVerifyFull insists on TLS and verifies the chain and host name.
	TLSVerifyFull TLSMode = "verify-full"
)

// Valid reports whether m is one of the defined modes.
func (m TLSMode) Valid() bool {
	switch m {
	case TLSDisable, TLSPrefer, TLSRequire, TLSVerifyFull:
		return true
	}
	return false
}

// Upstream is the PostgreSQL server the proxy relays to.
type Upstream struct {
	// Address is host:port.
	Address string
	// TLSMode defaults to TLSPrefer.
	TLSMode TLSMode
	// RootCAs verifies the server under TLSVerifyFull; nil means the
	// system roots.
	RootCAs *x509.CertPool
	// ServerName overrides the name verified under TLSVerifyFull; default
	// is the host part of Address.
	ServerName string
	// ConnectTimeout bounds the whole upstream startup: dialing, TLS,
	// authentication (the client's answers included) and the first
	// ReadyForQuery; default 10s.
	ConnectTimeout time.Duration
}

// Options configures a Server. Options are copied when a connection starts;
// Server.Reload changes them for later connections.
type Options struct {
	Upstream Upstream
	// ClientTLS, if set, is offered to clients that send SSLRequest.
	ClientTLS *tls.Config
	// MaxMessageSize bounds the length of every message from a client;
	// default DefaultMaxMessageSize. Larger messages end the connection
	// with a protocol_violation error.
	MaxMessageSize int
	// StartupTimeout bounds the whole startup and authentication phase;
	// default 60s.
	StartupTimeout time.Duration
	// MaxClientConn bounds the connections served at once, startup
	// included; default DefaultMaxClientConn. A client over the limit gets
	// FATAL 53300 after its startup message; the others are unaffected.
	MaxClientConn int
	// Observer sees statements; default NopObserver.
	Observer QueryObserver
	// Admin, if set, enables the admin console.
	Admin *AdminOptions
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// DisableFastRelay keeps every connection on the goroutine relay. By
	// default, on Linux, connections without TLS on either side are
	// relayed on a few shared event loops until a statement needs the
	// observer (see StatementFilter).
	DisableFastRelay bool
	// AdminOnly: the server has no upstream and serves only admin console
	// sessions handed to ServeAdmin (database-free mode); Upstream is
	// ignored.
	AdminOnly bool
}

// DefaultMaxMessageSize is the default Options.MaxMessageSize.
const DefaultMaxMessageSize = config.DefaultMaxMessageSize

// DefaultAdminDatabase is the admin console's default database name.
const DefaultAdminDatabase = config.DefaultAdminDatabase

// DefaultMaxClientConn is the default Options.MaxClientConn.
const DefaultMaxClientConn = config.DefaultMaxClientConn

func (o Options) withDefaults() (Options, error) {
	if o.AdminOnly {
		o.Upstream = Upstream{Address: "none:0", TLSMode: TLSDisable}
	}
	if o.Upstream.Address == "" {
		return o, fmt.Errorf("proxy: no upstream address")
	}
	if _, _, err := net.SplitHostPort(o.Upstream.Address); err != nil {
		return o, fmt.Errorf("proxy: upstream address: %w", err)
	}
	if o.Upstream.TLSMode == "" {
		o.Upstream.TLSMode = TLSPrefer
	}
	if !o.Upstream.TLSMode.Valid() {
		return o, fmt.Errorf("proxy: unknown upstream TLS mode %q", o.Upstream.TLSMode)
	}
	if o.Upstream.ConnectTimeout <= 0 {
		o.Upstream.ConnectTimeout = config.DefaultConnectTimeout
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = config.DefaultStartupTimeout
	}
	if o.MaxClientConn <= 0 {
		o.MaxClientConn = DefaultMaxClientConn
	}
	if o.Observer == nil {
		o.Observer = NopObserver{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Admin != nil {
		a := *o.Admin
		if a.Database == "" {
			a.Database = DefaultAdminDatabase
		}
		if a.Console == nil {
			return o, fmt.Errorf("proxy: admin console without a Console")
		}
		if a.RequireTLS && o.ClientTLS == nil {
			return o, fmt.Errorf("proxy: the admin console requires TLS, but no client TLS is configured")
		}
		if a.Password != "" {
			s, err := scram.NewSecret(a.Password)
			if err != nil {
				return o, fmt.Errorf("proxy: admin password: %w", err)
			}
			a.secret = s
		}
		o.Admin = &a
	}
	return o, nil
}

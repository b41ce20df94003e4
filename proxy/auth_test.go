package proxy

import (
	"crypto/tls"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func TestPasswordAuthPassthrough(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	for _, tc := range []struct{ user, password string }{
		{pgtest.ScramUser, pgtest.ScramPassword},
		{pgtest.MD5User, pgtest.MD5Password},
		{pgtest.CleartextUser, pgtest.CleartextPassword},
	} {
		t.Run(tc.user, func(t *testing.T) {
			conn := p.connect(t, ctx, tc.user, tc.password)
			var who string
			if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != tc.user {
				t.Fatalf("current_user %q, %v", who, err)
			}
			_, err := pgconn.Connect(ctx, p.connString(tc.user, "wrong-password"))
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
				t.Fatalf("wrong password: want invalid_password through the proxy, got %v", err)
			}
			if err := p.waitConnEnd(t, ctx); CodeOf(err) != CodeAuthFailed {
				// The first end may be the successful connection's; drain.
				if err2 := p.waitConnEnd(t, ctx); CodeOf(err2) != CodeAuthFailed && CodeOf(err) != CodeAuthFailed {
					t.Fatalf("connection ends %v, %v; want one auth_failed", err, err2)
				}
			}
		})
	}
}

// TestTLSBothSides runs SCRAM over TLS to the proxy and TLS to the upstream
// in each upstream mode. The upstream offers SCRAM-SHA-256-PLUS there; the
// proxy hides it, and the client disables channel binding (see
// withoutChannelBinding for why it must).
func TestTLSBothSides(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range []struct {
		mode       TLSMode
		serverName string
		wantSSL    bool
		wantErr    bool
	}{
		{mode: TLSDisable, wantSSL: false},
		{mode: TLSPrefer, wantSSL: true},
		{mode: TLSRequire, wantSSL: true},
		{mode: TLSVerifyFull, wantSSL: true},
		{mode: TLSVerifyFull, serverName: "wrong.example", wantErr: true},
	} {
		t.Run(string(tc.mode)+tc.serverName, func(t *testing.T) {
			opts := upstreamOpts()
			opts.Upstream.TLSMode = tc.mode
			opts.Upstream.RootCAs = caPool(t)
			opts.Upstream.ServerName = tc.serverName
			opts.ClientTLS = proxyTLSConfig(t)
			p := startProxy(t, opts)

			cfg, err := pgconn.ParseConfig(p.connString(pgtest.ScramUser, pgtest.ScramPassword))
			if err != nil {
				t.Fatal(err)
			}
			cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true}
			cfg.ChannelBinding = "disable"
			conn, err := pgconn.ConnectConfig(ctx, cfg)
			if tc.wantErr {
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != pgCodeConnectionFailure {
					t.Fatalf("want connection_failure from the proxy, got %v", err)
				}
				if err := p.waitConnEnd(t, ctx); CodeOf(err) != CodeBackendDial {
					t.Fatalf("connection end %v, want backend_dial", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, ok := conn.Conn().(*tls.Conn); !ok {
				t.Fatal("client connection to the proxy is not TLS")
			}
			res, err := conn.Exec(ctx, "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()").ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res[0].Rows[0][0]) == "true"; got != tc.wantSSL {
				t.Fatalf("upstream ssl = %v, want %v", got, tc.wantSSL)
			}
		})
	}
}

// TestChannelBindingWithUpstreamCert: when the proxy presents the
// upstream's own certificate, SCRAM-SHA-256-PLUS passes through and the
// client's channel binding verifies at the upstream.
func TestChannelBindingWithUpstreamCert(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	cert, err := tls.X509KeyPair(pg.CACertPEM, pg.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	opts := upstreamOpts()
	opts.Upstream.TLSMode = TLSVerifyFull
	opts.Upstream.RootCAs = caPool(t)
	opts.ClientTLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	p := startProxy(t, opts)

	cfg, err := pgconn.ParseConfig(p.connString(pgtest.ScramUser, pgtest.ScramPassword))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig = &tls.Config{RootCAs: caPool(t), ServerName: "127.0.0.1"}
	cfg.ChannelBinding = "require"
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("SCRAM-SHA-256-PLUS through the proxy: %v", err)
	}
	// With channel_binding=require, pgx fails unless the exchange was bound.
	conn.Close(ctx)
}

package pgtest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestClusterAuthAndTLS(t *testing.T) {
	c := New(t, Options{TLS: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, tc := range []struct{ user, password, method string }{
		{ScramUser, ScramPassword, "SCRAM-SHA-256"},
		{MD5User, MD5Password, "md5"},
		{CleartextUser, CleartextPassword, "password"},
	} {
		conn, err := pgconn.Connect(ctx, c.ConnString(tc.user, tc.password))
		if err != nil {
			t.Fatalf("%s (%s): %v", tc.user, tc.method, err)
		}
		res, err := conn.Exec(ctx, "SELECT current_user").ReadAll()
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res[0].Rows[0][0]); got != tc.user {
			t.Fatalf("current_user = %q, want %q", got, tc.user)
		}
		// A wrong password must be refused: the method is really enforced.
		_, err = pgconn.Connect(ctx, c.ConnString(tc.user, "wrong"))
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
			t.Fatalf("%s with wrong password: err = %v, want SQLSTATE 28P01", tc.user, err)
		}
	}

	// verify-full against the generated certificate.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CACertPEM) {
		t.Fatal("bad CA PEM")
	}
	cfg, err := pgconn.ParseConfig(c.ConnString(SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("TLS connect: %v", err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res[0].Rows[0][0]); got != "true" {
		t.Fatalf("pg_stat_ssl.ssl = %q, want true", got)
	}
}

func TestStopIsIdempotent(t *testing.T) {
	c, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

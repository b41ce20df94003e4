package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// fakeClock is the login throttle's clock in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func adminConnect(ctx context.Context, p *testProxy, password string) (*pgconn.PgConn, error) {
	return pgconn.Connect(ctx, dbConnString(p.Host, p.Port, pgtest.SuperUser, password, "pgequiv"))
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestAdminConsoleSCRAMAndThrottle: the console asks for its password
// with SCRAM-SHA-256 (never cleartext); psql and pgx log in with it; after
// three failures a source waits before its next attempt is even read, the
// wait doubles, and a success resets it.
func TestAdminConsoleSCRAMAndThrottle(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	opts := upstreamOpts()
	opts.Admin = &AdminOptions{Users: []string{pgtest.SuperUser}, Password: "console-pw", Console: &Console{}}
	p := startProxy(t, opts, testingKnobs{now: clock.now})

	// The first request is SASL with SCRAM-SHA-256 only.
	nc, err := net.Dial("tcp", net.JoinHostPort(p.Host, strconv.Itoa(p.Port)))
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": pgtest.SuperUser, "database": "pgequiv"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err := fe.Receive()
	if sasl, ok := msg.(*pgproto3.AuthenticationSASL); err != nil || !ok || strings.Join(sasl.AuthMechanisms, ",") != "SCRAM-SHA-256" {
		t.Fatalf("first request %T %+v %v, want AuthenticationSASL SCRAM-SHA-256", msg, msg, err)
	}
	nc.Close()

	// psql, with the password from the environment.
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql: %v (scripts/install-test-deps.sh installs it)", err)
	}
	cmd := exec.CommandContext(ctx, psql, "-X", "-A", "-t", "-h", p.Host, "-p", strconv.Itoa(p.Port), "-U", pgtest.SuperUser, "-d", "pgequiv", "-c", "SHOW CONFIG")
	cmd.Env = append(cmd.Environ(), "PGPASSWORD=console-pw", "PGSSLMODE=disable")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("psql over SCRAM: %v\n%s", err, out)
	}

	// Three free failures, then a fourth that starts the wait.
	for i := 1; i <= 4; i++ {
		if _, err := adminConnect(ctx, p, "wrong"); pgCode(err) != pgCodeInvalidPassword {
			t.Fatalf("wrong password %d: %v, want 28P01", i, err)
		}
	}
	_, err = adminConnect(ctx, p, "console-pw")
	if pgCode(err) != pgCodeInvalidAuthSpec || !strings.Contains(err.Error(), "too many failed admin console logins") {
		t.Fatalf("right password while throttled: %v, want 28000 too many failed logins", err)
	}
	clock.advance(adminBaseDelay)
	if _, err := adminConnect(ctx, p, "wrong"); pgCode(err) != pgCodeInvalidPassword {
		t.Fatalf("after the wait: %v", err)
	}
	clock.advance(adminBaseDelay) // the wait doubled: not over yet
	if _, err := adminConnect(ctx, p, "console-pw"); pgCode(err) != pgCodeInvalidAuthSpec {
		t.Fatalf("doubled wait: %v, want 28000", err)
	}
	clock.advance(adminBaseDelay)
	conn, err := adminConnect(ctx, p, "console-pw")
	if err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
	conn.Close(ctx)
	// The success reset the source: three failures are free again.
	for i := 1; i <= 3; i++ {
		if _, err := adminConnect(ctx, p, "wrong"); pgCode(err) != pgCodeInvalidPassword {
			t.Fatalf("after reset, wrong password %d: %v", i, err)
		}
	}
	if conn, err = adminConnect(ctx, p, "console-pw"); err != nil {
		t.Fatalf("after reset: %v", err)
	}
	conn.Close(ctx)
}

// TestAdminConsoleRequireTLS: with RequireTLS a plain connection is
// refused with a hint, and a TLS one is served.
func TestAdminConsoleRequireTLS(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	opts := upstreamOpts()
	opts.ClientTLS = proxyTLSConfig(t)
	opts.Admin = &AdminOptions{Users: []string{pgtest.SuperUser}, Console: &Console{}, RequireTLS: true}
	p := startProxy(t, opts)
	_, err := adminConnect(ctx, p, "")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != pgCodeInvalidAuthSpec || !strings.Contains(pe.Message, "requires TLS") || !strings.Contains(pe.Hint, "sslmode=require") {
		t.Fatalf("plain connection: %v", err)
	}
	cfg, err := pgconn.ParseConfig(dbConnString(p.Host, p.Port, pgtest.SuperUser, "", "pgequiv"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("TLS connection: %v", err)
	}
	if _, err := conn.Exec(ctx, "SHOW CONFIG").ReadAll(); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	// An ordinary database is not the console: plain is fine there.
	if c, err := pgconn.Connect(ctx, p.connString(pgtest.SuperUser, "")); err != nil {
		t.Fatalf("relay without TLS: %v", err)
	} else {
		c.Close(ctx)
	}
}

package proxy

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestConnectTimeoutStoppedUpstream: an upstream that accepts TCP but
// answers nothing (its postmaster SIGSTOPped) gives the client a FATAL
// naming upstream.connect_timeout within connect_timeout + 1 s, and the
// proxy serves again once it is continued.
func TestConnectTimeoutStoppedUpstream(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	stopped := pgtest.New(t, pgtest.Options{})
	const timeout = 2 * time.Second
	opts := upstreamOpts()
	opts.Upstream.Address = stopped.Addr()
	opts.Upstream.ConnectTimeout = timeout
	p := startProxy(t, opts)

	if err := stopped.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	continued := false
	cont := func() {
		if !continued {
			continued = true
			if err := stopped.Signal(syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	defer cont()

	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(cctx, pgtest.ConnString(p.Host, p.Port, pgtest.SuperUser, ""))
	took := time.Since(start)
	if err == nil {
		conn.Close(ctx)
		t.Fatal("connected through a stopped upstream")
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Severity != "FATAL" || pe.Code != pgCodeConnectionFailure ||
		!strings.Contains(pe.Message, "upstream.connect_timeout (2s)") {
		t.Fatalf("error %v, want FATAL 08006 naming upstream.connect_timeout (2s)", err)
	}
	if took < timeout || took > timeout+time.Second {
		t.Errorf("FATAL after %v, want within [%v, %v]", took, timeout, timeout+time.Second)
	}
	t.Logf("FATAL after %v: %s", took.Round(time.Millisecond), pe.Message)

	cont()
	conn, err = pgconn.Connect(ctx, pgtest.ConnString(p.Host, p.Port, pgtest.SuperUser, ""))
	if err != nil {
		t.Fatalf("after SIGCONT: %v", err)
	}
	conn.Close(ctx)
}

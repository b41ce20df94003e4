package proxy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestNegotiateProtocolVersion starts with each protocol minor version,
// and with _pq_ options, through the proxy (relayed and admin console) to
// a real PostgreSQL: every one connects and runs a query, getting one
// NegotiateProtocolVersion where PostgreSQL would send one.
func TestNegotiateProtocolVersion(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	opts := upstreamOpts()
	opts.Admin = &AdminOptions{Database: "pgequiv", Users: []string{pgtest.SuperUser}, Console: &Console{}}
	p := startProxy(t, opts)
	addr := fmt.Sprintf("%s:%d", p.Host, p.Port)
	for _, tc := range []struct {
		minor   uint32
		params  map[string]string
		newest  int // -1: no NegotiateProtocolVersion
		options []string
	}{
		{0, nil, -1, nil},
		{1, nil, 0, nil},
		{3, nil, 0, nil}, // the proxy speaks 3.2, the upstream (PostgreSQL < 18) 3.0
		{100, nil, 0, nil},
		{0, map[string]string{"_pq_.future_option": "on"}, 0, []string{"_pq_.future_option"}},
	} {
		for _, db := range []string{pgtest.Database, "pgequiv"} {
			t.Run(fmt.Sprintf("3.%d %v %s", tc.minor, tc.params, db), func(t *testing.T) {
				params := map[string]string{"database": db}
				for k, v := range tc.params {
					params[k] = v
				}
				req := pgtest.StartupRequest{Addr: addr, User: pgtest.SuperUser, Minor: tc.minor, Params: params}
				if db == "pgequiv" {
					req.Query = "SHOW CONFIG"
				}
				res, err := pgtest.StartupVersion(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				newest := tc.newest
				if db == "pgequiv" && tc.minor >= 2 {
					newest = 2 // the console speaks 3.2 itself
				}
				checkNegotiate(t, res, newest, tc.options)
			})
		}
	}
	// 3.2 itself: the upstream decides (PostgreSQL < 18 answers 3.0).
	direct, err := pgtest.StartupVersion(ctx, pgtest.StartupRequest{Addr: pg.Addr(), User: pgtest.SuperUser, Minor: 2})
	if err != nil {
		t.Fatal(err)
	}
	proxied, err := pgtest.StartupVersion(ctx, pgtest.StartupRequest{Addr: addr, User: pgtest.SuperUser, Minor: 2})
	if err != nil {
		t.Fatal(err)
	}
	if (direct.Negotiate == nil) != (proxied.Negotiate == nil) ||
		direct.Negotiate != nil && (direct.Negotiate.NewestMinorProtocol != proxied.Negotiate.NewestMinorProtocol ||
			!slices.Equal(direct.Negotiate.UnrecognizedOptions, proxied.Negotiate.UnrecognizedOptions)) {
		t.Fatalf("3.2: direct %+v, through the proxy %+v", direct.Negotiate, proxied.Negotiate)
	}
	// pgx asking for 3.2, as newer drivers do.
	conn, err := pgx.Connect(ctx, pgtest.ConnString(p.Host, p.Port, pgtest.SuperUser, "")+" max_protocol_version=3.2")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("pgx 3.2: %d %v", n, err)
	}
}

func checkNegotiate(t *testing.T, res *pgtest.Startup, newest int, options []string) {
	t.Helper()
	switch {
	case newest < 0 && res.Negotiate != nil:
		t.Fatalf("unexpected NegotiateProtocolVersion %+v", res.Negotiate)
	case newest < 0:
	case res.Negotiate == nil:
		t.Fatalf("no NegotiateProtocolVersion, want newest minor %d", newest)
	case res.Negotiate.NewestMinorProtocol != 3<<16|uint32(newest) || !slices.Equal(res.Negotiate.UnrecognizedOptions, options):
		t.Fatalf("NegotiateProtocolVersion %+v, want minor %d options %v", res.Negotiate, newest, options)
	}
}

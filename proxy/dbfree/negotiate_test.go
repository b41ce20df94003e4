package dbfree

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestNegotiateProtocolVersion starts with each protocol minor version,
// and with _pq_ options: every one connects and runs a query, getting a
// NegotiateProtocolVersion where PostgreSQL would send one (3.2 is spoken).
func TestNegotiateProtocolVersion(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, tc := range []struct {
		minor   uint32
		params  map[string]string
		newest  int // -1: none
		options []string
	}{
		{0, nil, -1, nil},
		{1, nil, 0, nil},
		{2, nil, -1, nil},
		{3, nil, 2, nil},
		{100, nil, 2, nil},
		{2, map[string]string{"_pq_.future_option": "on", "_pq_.other": "1"}, 2, []string{"_pq_.future_option", "_pq_.other"}},
	} {
		res, err := pgtest.StartupVersion(ctx, pgtest.StartupRequest{Addr: s.addr, User: "tester", Minor: tc.minor, Params: tc.params})
		if err != nil {
			t.Fatalf("3.%d %v: %v", tc.minor, tc.params, err)
		}
		got := -1
		var opts []string
		if res.Negotiate != nil {
			got, opts = int(res.Negotiate.NewestMinorProtocol)-3<<16, res.Negotiate.UnrecognizedOptions
		}
		if got != tc.newest || !slices.Equal(opts, tc.options) {
			t.Errorf("3.%d %v: NegotiateProtocolVersion %d %v, want %d %v", tc.minor, tc.params, got, opts, tc.newest, tc.options)
		}
	}
	// pgx asking for 3.2, as newer drivers do.
	conn, err := pgx.Connect(ctx, s.connString("")+" max_protocol_version=3.2")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	v, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner))
	if err != nil || v.label != "equivalent" {
		t.Fatalf("pgx 3.2: %+v %v", v, err)
	}
}

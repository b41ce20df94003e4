package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestStatsSummary: each line counts what changed since the previous one.
func TestStatsSummary(t *testing.T) {
	var s statsSummary
	for i, tc := range []struct {
		stats   []proxy.JudgeStat
		clients int
		want    string
	}{
		{nil, 0, "period=1m0s clients=0 tagged=0 equivalent=0 equivalent_under_assumptions=0 not_equivalent=0 unknown=0 errors=0 timeouts=0 refusals=0"},
		{[]proxy.JudgeStat{{Name: "tagged", Value: 5}, {Name: "equivalent", Value: 3}, {Name: "unknown", Value: 2}, {Name: "cache_hits", Value: 9}}, 2,
			"period=1m0s clients=2 tagged=5 equivalent=3 equivalent_under_assumptions=0 not_equivalent=0 unknown=2 errors=0 timeouts=0 refusals=0"},
		{[]proxy.JudgeStat{{Name: "tagged", Value: 6}, {Name: "equivalent", Value: 3}, {Name: "unknown", Value: 2}, {Name: "not_equivalent", Value: 1}}, 1,
			"period=1m0s clients=1 tagged=1 equivalent=0 equivalent_under_assumptions=0 not_equivalent=1 unknown=0 errors=0 timeouts=0 refusals=0"},
		// A counter that went down (it never should) shows 0, not a wrapped value.
		{[]proxy.JudgeStat{{Name: "tagged", Value: 2}}, 0,
			"period=1m0s clients=0 tagged=0 equivalent=0 equivalent_under_assumptions=0 not_equivalent=0 unknown=0 errors=0 timeouts=0 refusals=0"},
	} {
		a := s.attrs(tc.stats, tc.clients, time.Minute)
		var parts []string
		for j := 0; j < len(a); j += 2 {
			parts = append(parts, fmt.Sprintf("%v=%v", a[j], a[j+1]))
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("reading %d: %s\nwant       %s", i, got, tc.want)
		}
	}
}

// TestStatsLogLine (issue 37, item 6): serve logs a one-line summary each
// period, as PgBouncer does: the clients connected and the verdicts of
// the period. Here in database-free mode (the shipped proxy.yaml) and in
// relay mode, with the ticks driven by the test.
func TestStatsLogLine(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	const ddl = "CREATE TABLE dogs (dog_id int PRIMARY KEY, owner_id int NOT NULL);"
	if err := os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(ddl), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := execOnce(ctx, pg.ConnString(pgtest.SuperUser, ""), ddl); err != nil {
		t.Fatal(err)
	}
	relay := filepath.Join(dir, "relay.yaml")
	if err := os.WriteFile(relay, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\n"+
		"shutdown_timeout: 5s\njudge_isolation: none\nmode: annotate\nschema:\n  files: [schema.sql]\n", pg.Addr())), 0o600); err != nil {
		t.Fatal(err)
	}
	shipped, err := filepath.Abs("../../proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, db, sql string
	}{
		{"database-free", shipped, "pgequiv",
			"SELECT label FROM pgequiv.check('SELECT COUNT(*) FROM dogs', 'SELECT COUNT(owner_id) FROM dogs')"},
		{"relay annotate", relay, pgtest.SuperUser,
			"SELECT COUNT(owner_id) FROM dogs /*pgequiv_ref='SELECT%20COUNT(*)%20FROM%20dogs'*/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr syncBuffer
			tick := make(chan time.Time)
			logged := make(chan struct{}, 1)
			// line asks for a summary line and waits until it is written,
			// so that the next statement cannot fall into its period.
			line := func() {
				tick <- time.Now()
				<-logged
			}
			port, stop := serveOn(t, ctx, tc.path, serveEnv{
				getenv: func(k string) string {
					if k == config.EnvListen {
						return "127.0.0.1:0"
					}
					return ""
				},
				stderr: &stderr, statsTick: tick, statsLogged: func() { logged <- struct{}{} },
			})
			conn, err := pgconn.Connect(ctx, pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, "")+" dbname="+tc.db)
			if err != nil {
				t.Fatal(err)
			}
			// A statement answered also means the server lists the
			// connection (database-free mode lists it once its greeting
			// is flushed, which the client may see first).
			if _, err := conn.Exec(ctx, tc.sql).ReadAll(); err != nil {
				t.Fatal(err)
			}
			line() // line 1: one client, one verdict
			if _, err := conn.Exec(ctx, tc.sql).ReadAll(); err != nil {
				t.Fatal(err)
			}
			conn.Close(ctx)
			line() // line 2: the period's one verdict, not two
			var lines []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(l, "msg=stats ") {
					lines = append(lines, l[strings.Index(l, "msg=stats "):])
				}
			}
			if len(lines) < 2 {
				t.Fatalf("stats lines %q; log:\n%s", lines, stderr.String())
			}
			for i, want := range []string{"clients=1 tagged=1 equivalent=1 ", " tagged=1 equivalent=1 "} {
				if !strings.Contains(lines[i], want) {
					t.Errorf("stats line %d %q lacks %q", i+1, lines[i], want)
				}
			}
			stop()
		})
	}
}

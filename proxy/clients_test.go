package proxy

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy/internal/proxytest"
)

func TestLibPQDriver(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 30*time.Second)
	for _, tc := range []struct{ user, password string }{
		{pgtest.SuperUser, ""},
		{pgtest.ScramUser, pgtest.ScramPassword},
		{pgtest.MD5User, pgtest.MD5Password},
	} {
		t.Run(tc.user, func(t *testing.T) {
			db, err := sql.Open("postgres", p.connString(tc.user, tc.password))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var who string
			if err := db.QueryRowContext(ctx, "SELECT current_user").Scan(&who); err != nil || who != tc.user {
				t.Fatalf("current_user %q, %v", who, err)
			}
			// lib/pq prepares unnamed statements for parameterised queries.
			var sum int
			if err := db.QueryRowContext(ctx, "SELECT $1::int + $2::int", 20, 22).Scan(&sum); err != nil || sum != 42 {
				t.Fatalf("params: %d, %v", sum, err)
			}
			stmt, err := db.PrepareContext(ctx, "SELECT length($1::text)")
			if err != nil {
				t.Fatal(err)
			}
			defer stmt.Close()
			for _, s := range []string{"a", "abc", strings.Repeat("z", 10000)} {
				var n int
				if err := stmt.QueryRowContext(ctx, s).Scan(&n); err != nil || n != len(s) {
					t.Fatalf("prepared: %d, %v", n, err)
				}
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE pq_t AS SELECT generate_series(1, 100) AS g"); err != nil {
				t.Fatal(err)
			}
			var cnt int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pq_t").Scan(&cnt); err != nil || cnt != 100 {
				t.Fatalf("count %d, %v", cnt, err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func clientBin(t testing.TB, name string) string {
	t.Helper()
	return proxytest.ClientBin(t, pg, name)
}

func runTool(t testing.TB, ctx context.Context, env []string, bin string, args ...string) string {
	t.Helper()
	return proxytest.RunTool(t, ctx, env, bin, args...)
}

// TestPsqlSameOutput runs psql commands directly and through the proxy and
// compares the output byte for byte.
func TestPsqlSameOutput(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 60*time.Second)
	psql := clientBin(t, "psql")
	commands := []string{
		"SELECT g, md5(g::text) FROM generate_series(1, 50) g",
		`\d pg_catalog.pg_am`,
		"SELECT 1 AS a; SELECT 'two' AS b",
		`DO $$ BEGIN RAISE NOTICE 'psql notice'; END $$`,
		"SELECT current_user, current_setting('server_encoding')",
	}
	for _, user := range []struct{ name, password string }{{pgtest.SuperUser, ""}, {pgtest.ScramUser, pgtest.ScramPassword}, {pgtest.MD5User, pgtest.MD5Password}} {
		env := []string{"PGPASSWORD=" + user.password, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}
		for _, c := range commands {
			args := func(port int) []string {
				return []string{"-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port),
					"-U", user.name, "-d", pgtest.Database, "-c", c}
			}
			direct := runTool(t, ctx, env, psql, args(pg.Port)...)
			proxied := runTool(t, ctx, env, psql, args(p.Port)...)
			if direct != proxied {
				t.Errorf("psql -c %q as %s differs:\ndirect:\n%s\nproxied:\n%s", c, user.name, direct, proxied)
			}
			if direct == "" {
				t.Errorf("psql -c %q printed nothing", c)
			}
		}
	}
}

func TestPgbench(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 300*time.Second)
	pgbench := clientBin(t, "pgbench")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}
	conn := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", pgtest.SuperUser}
	out := runTool(t, ctx, env, pgbench, append(append([]string{"-i", "-s", "1", "-q"}, conn...), pgtest.Database)...)
	if !strings.Contains(out, "done") {
		t.Fatalf("pgbench -i output:\n%s", out)
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			args := append(append([]string{"-M", mode, "-c", "4", "-j", "2", "-t", "50", "-n"}, conn...), pgtest.Database)
			out := runTool(t, ctx, env, pgbench, args...)
			if !strings.Contains(out, "number of transactions actually processed: 200/200") ||
				!strings.Contains(out, "number of failed transactions: 0") {
				t.Fatalf("pgbench -M %s output:\n%s", mode, out)
			}
		})
	}
}

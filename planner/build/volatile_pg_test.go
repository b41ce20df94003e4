package build

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// TestVolatileFuncsMatchPostgres checks sqltext.VolatileFuncs against
// PostgreSQL 15's pg_proc (issue 18, cause 13): every function the
// planner accepts that PostgreSQL marks volatile (provolatile = 'v') is
// listed, so no rewrite or proof treats two of its calls as one value;
// every listed function PostgreSQL has is volatile in all its forms, so
// stable ones (now(), statement_timestamp()) are judged as before; and
// the common volatile functions are listed.
func TestVolatileFuncsMatchPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	volatility := map[string]map[string]bool{} // name -> provolatile values of its overloads
	rows, err := conn.Query(ctx, "SELECT proname, provolatile::text FROM pg_proc")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		if volatility[name] == nil {
			volatility[name] = map[string]bool{}
		}
		volatility[name][v] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	accepted := map[string]bool{}
	for name := range scalarFuncTypes {
		accepted[name] = true
	}
	for name := range aggFuncs {
		accepted[name] = true
	}
	for name := range winFuncs {
		accepted[name] = true
	}
	for name := range pgFuncs {
		accepted[name] = true
	}
	for name := range accepted {
		if volatility[name]["v"] && !sqltext.VolatileFuncs[name] {
			t.Errorf("the planner accepts %s(), volatile in PostgreSQL, but sqltext.VolatileFuncs does not list it", name)
		}
	}
	for name := range sqltext.VolatileFuncs {
		if vs, ok := volatility[name]; ok && (len(vs) != 1 || !vs["v"]) {
			t.Errorf("sqltext.VolatileFuncs lists %s(), whose PostgreSQL forms are %v (not all volatile)", name, vs)
		}
	}
	for _, name := range []string{"random", "clock_timestamp", "timeofday", "nextval", "setval", "gen_random_uuid", "setseed", "set_config", "pg_advisory_lock"} {
		if !volatility[name]["v"] {
			t.Errorf("%s() is not volatile in PostgreSQL", name)
		}
		if !sqltext.VolatileFuncs[name] {
			t.Errorf("sqltext.VolatileFuncs does not list %s()", name)
		}
	}
	for _, name := range []string{"now", "statement_timestamp", "transaction_timestamp", "lower", "abs"} {
		if sqltext.VolatileFuncs[name] {
			t.Errorf("sqltext.VolatileFuncs lists %s(), which is not volatile", name)
		}
	}
}

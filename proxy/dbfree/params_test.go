package dbfree

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// typedParamCases are tagged queries with parameters and the types
// PostgreSQL 15 describes them with over the example schema.
var typedParamCases = []struct {
	sql  string
	oids []uint32
}{
	{"SELECT name FROM dogs WHERE dog_id = $1", []uint32{23}},
	{"SELECT name FROM dogs WHERE age > $1 AND name = $2", []uint32{23, 25}},
	{"SELECT name FROM dogs WHERE weight BETWEEN $1 AND $2", []uint32{1700, 1700}},
	{"SELECT name FROM dogs WHERE date_of_birth = $1", []uint32{1082}},
	{"SELECT name FROM dogs WHERE name LIKE $1", []uint32{25}},
	{"SELECT name FROM dogs WHERE dog_id IN ($1, $2)", []uint32{23, 23}},
	{"SELECT name FROM dogs WHERE dog_id + $1 = 3", []uint32{23}},
	{"SELECT name FROM dogs ORDER BY dog_id LIMIT $1", []uint32{20}},
	{"SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners WHERE city = $1)", []uint32{25}},
	{"SELECT name FROM dogs WHERE $1 < age", []uint32{23}},
}

// TestTypedParameterDescription: a tagged query's ParameterDescription
// gives each $n the type PostgreSQL gives it over the same schema (not
// text for all), so drivers encode values as they would for PostgreSQL.
func TestTypedParameterDescription(t *testing.T) {
	p := newIntrospectPair(t)
	ctx := testCtx(t)
	real, err := pgconn.Connect(ctx, p.real.ConnString("postgres", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close(context.Background())
	free, err := pgconn.Connect(ctx, p.free.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	defer free.Close(context.Background())
	for _, tc := range typedParamCases {
		want := fmt.Sprint(tc.oids)
		rd, err := real.Prepare(ctx, "", tc.sql, nil)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", tc.sql, err)
		}
		if got := fmt.Sprint(rd.ParamOIDs); got != want {
			t.Errorf("PostgreSQL describes %s as %s, the case says %s", tc.sql, got, want)
		}
		tagged := "/*pgequiv_ref='" + tc.sql + "'*/ " + tc.sql
		fd, err := free.Prepare(ctx, "", tagged, nil)
		if err != nil {
			t.Fatalf("database-free: %s: %v", tc.sql, err)
		}
		if got := fmt.Sprint(fd.ParamOIDs); got != want {
			t.Errorf("database-free describes %s as %s, PostgreSQL as %s", tc.sql, got, want)
		}
	}
	// A type the client names in Parse is kept.
	fd, err := free.Prepare(ctx, "", "/*pgequiv_ref='SELECT name FROM dogs WHERE dog_id = $1'*/ SELECT name FROM dogs WHERE dog_id = $1", []uint32{20})
	if err != nil || fmt.Sprint(fd.ParamOIDs) != "[20]" {
		t.Errorf("a client's int8: %v %v", fd, err)
	}
}

// TestPgxTypedParameter: pgx executes tagged queries with integer, numeric
// and date arguments in its default (statement cache) mode and in
// describe-exec mode; before, every $n was described as text and pgx
// refused to encode 5 ("unable to encode 5 into text format").
func TestPgxTypedParameter(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	const q = "SELECT name FROM dogs WHERE dog_id = $1 AND weight > $2 AND date_of_birth < $3"
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec} {
		conn := s.connect(t, ctx, mode)
		for run := 0; run < 2; run++ { // the second run reuses the cached statement
			var label string
			var score float64
			var assumptions, rules, differences, counterexample *string
			err := conn.QueryRow(ctx, "/*pgequiv_ref='"+q+"'*/ "+q, 5, 2.5, time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)).
				Scan(&label, &score, &assumptions, &rules, &differences, &counterexample)
			if err != nil || label != "equivalent" {
				t.Errorf("%v run %d: %q %v", mode, run, label, err)
			}
		}
		conn.Close(ctx)
	}
}

// TestPgxCatalogParameters: a catalog query's parameters are described
// with the system columns' types, as PostgreSQL describes them, and pgx
// binds Go integers and strings to them (in binary where it chooses to).
func TestPgxCatalogParameters(t *testing.T) {
	p := newIntrospectPair(t)
	ctx := testCtx(t)
	real, err := pgconn.Connect(ctx, p.real.ConnString("postgres", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer real.Close(context.Background())
	conn := p.free.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	for _, tc := range []struct {
		sql  string
		oids string
		args []any
		want string
	}{
		{"SELECT relname FROM pg_catalog.pg_class WHERE relname = $1 AND relkind = $2", "[19 18]", []any{"dogs", "r"}, "dogs"},
		{"SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.oid = $1 AND c.relname = 'owners'",
			"[26]", []any{2200}, "owners"},
		{"SELECT attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relname = 'dogs' AND attnum = $1",
			"[21]", []any{2}, "owner_id"},
		{"SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname LIKE $1", "[25]", []any{"publ%"}, "public"},
	} {
		rd, err := real.Prepare(ctx, "", tc.sql, nil)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", tc.sql, err)
		}
		if got := fmt.Sprint(rd.ParamOIDs); got != tc.oids {
			t.Errorf("PostgreSQL describes %s as %s, the case says %s", tc.sql, got, tc.oids)
		}
		fd, err := conn.PgConn().Prepare(ctx, "", tc.sql, nil)
		if err != nil {
			t.Fatalf("database-free: %s: %v", tc.sql, err)
		}
		if got := fmt.Sprint(fd.ParamOIDs); got != tc.oids {
			t.Errorf("database-free describes %s as %s, PostgreSQL as %s", tc.sql, got, tc.oids)
		}
		var got string
		if err := conn.QueryRow(ctx, tc.sql, tc.args...).Scan(&got); err != nil || got != tc.want {
			t.Errorf("pgx %s %v: %q %v", tc.sql, tc.args, got, err)
		}
	}
}

package exec_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqlitetest"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestSQLiteSemantics pins each SQLite behaviour the package documents
// as modelled: every query must execute and agree with real SQLite.
func TestSQLiteSemantics(t *testing.T) {
	const ddl = `CREATE TABLE t (id numeric, n numeric, s text, ts timestamp, PRIMARY KEY (id));`
	rows := [][]string{
		{"1", "20.00", "10", "2020-01-01 00:00:00"},
		{"2", "2.5", "abc", "2019-12-31"},
		{"3", "", "Bob", ""},
		{"4", "7", "2.5", "2021-06-15 12:30:00"},
	}
	queries := []string{
		"SELECT id, n / 3, n % 3, n * 2 FROM t",
		"SELECT 7 / 2, 7 / 0, 7.0 / 2, 5.5 % 2, 9223372036854775807 + 1",
		"SELECT id FROM t WHERE s = 10",
		"SELECT id FROM t WHERE s > 5",
		"SELECT id FROM t WHERE n = '7'",
		"SELECT id FROM t WHERE s < n",
		"SELECT id, s || n, n || '' FROM t",
		"SELECT avg(n), sum(n), max(s), min(s), sum(id), avg(id) FROM t",
		"SELECT id FROM t WHERE s LIKE 'b%'",
		"SELECT id FROM t WHERE s LIKE '2_5'",
		"SELECT id, n > 5 FROM t",
		"SELECT sum(n > 5) FROM t",
		"SELECT id FROM t ORDER BY n",
		"SELECT id FROM t ORDER BY n DESC",
		"SELECT id FROM t ORDER BY s",
		"SELECT id FROM t WHERE ts > '2020'",
		"SELECT round(n), round(n, 1), length(n), upper(s), abs(s) FROM t",
		"SELECT max(id, n), min(id, n) FROM t",
		"SELECT cast(n AS integer), cast(s AS integer), cast(n AS text) FROM t",
		"SELECT id FROM t LIMIT -1",
		"SELECT id FROM t WHERE n",
		"SELECT id FROM t WHERE s IN (SELECT n FROM t)",
		"SELECT count(*) FROM t WHERE s = (SELECT max(n) FROM t WHERE id = 4)",
	}
	ctx := context.Background()
	schema, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, sqlitetest.DDL(ddl)); err != nil {
		t.Fatal(err)
	}
	mem := exec.Database{}
	for _, r := range rows {
		vals := make([]exec.Value, len(r))
		args := make([]any, len(r))
		for i, s := range r {
			if s == "" && i != 2 {
				continue // NULL
			}
			args[i] = s
			if vals[i], err = exec.ParseSQLite(schema.Tables[0].Columns[i].Type, s); err != nil {
				t.Fatal(err)
			}
		}
		mem["t"] = append(mem["t"], vals)
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?, ?)", args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			p, err := planner.Plan(ctx, schema, q, planner.Options{})
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			got, err := exec.ExecuteWith(ctx, p, mem, exec.Options{Dialect: catalog.SQLite})
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			want, err := liteRows(ctx, db, q)
			if err != nil {
				t.Fatalf("sqlite: %v", err)
			}
			if diff := liteCompareResults(got, want); diff != "" {
				t.Errorf("%s\n exec:   %v\n sqlite: %v", diff, liteGot(got), want)
			}
		})
	}
}

package exec_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqlitetest"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// collationSchema loads ddl under SQLite and sets the collations the DDL
// declares by hand (the loader's reading of COLLATE is another change).
func collationSchema(t *testing.T, ddl string, colls map[string]string) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range s.Tables {
		for i := range tb.Columns {
			c := &tb.Columns[i]
			if coll, ok := colls[tb.Name+"."+c.Name]; ok {
				c.Collation = coll
				c.Nondeterministic = coll == "NOCASE" || coll == "RTRIM"
			}
		}
	}
	return s
}

// TestExecCollationSQLite runs queries over columns declared COLLATE
// NOCASE and COLLATE RTRIM with the executor and with real SQLite: each
// must agree with SQLite, or be refused as not modelled (never a wrong
// answer). The queries marked mustRun must execute.
func TestExecCollationSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id integer PRIMARY KEY, name text COLLATE NOCASE, pad text COLLATE RTRIM, plain text);`
	rows := [][]any{
		{1, "abc", "x", "abc"},
		{2, "ABC", "x  ", "ABC"},
		{3, "Bob", "y", "bob"},
		{4, "bob", "Y", "Bob"},
		{5, "zed", "z ", "zed"},
		{6, nil, nil, nil},
	}
	cases := []struct {
		q       string
		mustRun bool
	}{
		{"SELECT id FROM t WHERE name = 'abc'", true},
		{"SELECT id FROM t WHERE 'abc' = name", true},
		{"SELECT id FROM t WHERE name = 'abc' AND name = 'ABC'", true},
		{"SELECT id FROM t WHERE plain = 'abc' AND plain = 'ABC'", true},
		{"SELECT id FROM t WHERE name < 'b'", true},
		{"SELECT id FROM t WHERE name > 'BOA'", true},
		{"SELECT id FROM t WHERE pad = 'x'", true},
		{"SELECT id FROM t WHERE pad = 'X'", true},
		{"SELECT id FROM t WHERE name IN ('ABC', 'zed')", true},
		{"SELECT id FROM t WHERE upper(name) = 'ABC'", true},
		{"SELECT id FROM t WHERE name || '' = 'abc'", true},
		{"SELECT id FROM t WHERE CAST(name AS text) = 'abc'", true},
		{"SELECT id FROM t WHERE coalesce(name, '') = 'abc'", true},
		{"SELECT id FROM t WHERE name LIKE 'a%'", true},
		{"SELECT id FROM (SELECT id, name AS n FROM t) s WHERE n = 'BOB'", true},
		{"SELECT count(DISTINCT name), count(DISTINCT pad), count(DISTINCT plain) FROM t", true},
		{"SELECT id FROM t ORDER BY name, id", true},
		{"SELECT id FROM t ORDER BY pad, id", true},
		{"SELECT id FROM t WHERE name = plain", false},
		{"SELECT id FROM t WHERE plain = name", false},
		{"SELECT a.id, b.id FROM t a JOIN t b ON a.name = b.name", true},
		{"SELECT name, count(*) FROM t GROUP BY name", false},
		{"SELECT DISTINCT name FROM t", false},
		{"SELECT name, count(*) FROM t WHERE id IN (1, 3, 5) GROUP BY name", true},
		{"SELECT DISTINCT name FROM t WHERE id NOT IN (2, 4)", true},
		{"SELECT name FROM t WHERE id IN (1, 3) UNION SELECT name FROM t WHERE id = 5", true},
		{"SELECT name FROM t WHERE id IN (1, 4) INTERSECT SELECT name FROM t WHERE id IN (2, 3)", false},
		{"SELECT DISTINCT lower(name) FROM t", true},
		{"SELECT max(name) FROM t", false},
		// A NOCASE column UNION a BINARY one is refused by the planner (the
		// collation follows the branches' order: planner/build/setoptype.go).
		{"SELECT id FROM t WHERE name IN (SELECT plain FROM t)", false},
		{"SELECT id FROM t WHERE name IN (SELECT name FROM t WHERE id = 1)", true},
	}
	ctx := context.Background()
	schema := collationSchema(t, ddl, map[string]string{"t.name": "NOCASE", "t.pad": "RTRIM"})
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
		for i, v := range r {
			switch v := v.(type) {
			case int:
				vals[i] = exec.Int(int64(v))
			case string:
				vals[i] = exec.Text(v)
			default:
				vals[i] = exec.Null
			}
		}
		mem["t"] = append(mem["t"], vals)
		if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?, ?)", r...); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			p, err := planner.Plan(ctx, schema, c.q, planner.Options{})
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			want, err := liteRows(ctx, db, c.q)
			if err != nil {
				t.Fatalf("sqlite: %v", err)
			}
			got, err := exec.ExecuteWith(ctx, p, mem, exec.Options{Dialect: catalog.SQLite})
			if err != nil {
				if !errors.Is(err, exec.ErrCannotExecute) {
					t.Fatalf("execute: %v", err)
				}
				if c.mustRun {
					t.Fatalf("refused: %v", err)
				}
				t.Logf("refused (not modelled): %v; SQLite: %v", err, want)
				return
			}
			if diff := liteCompareResults(got, want); diff != "" {
				t.Errorf("%s\n exec:   %v\n sqlite: %v", diff, liteGot(got), want)
			}
		})
	}
}

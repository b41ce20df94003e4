package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteFormsPostgreSQLRejects (issue 23): queries SQLite accepts in
// forms PostgreSQL's grammar or scoping rejects — an inner join's ON
// reading a table joined to its right, a comma binding as tightly as
// JOIN, a 'string' standing for a table or an alias — are judged, and
// proved equivalent to their plain forms. Each pair is also run on real
// SQLite, where the two must agree.
func TestSQLiteFormsPostgreSQLRejects(t *testing.T) {
	const ddl = `CREATE TABLE flights (fno INTEGER PRIMARY KEY, src TEXT, dst TEXT, airline INTEGER);
CREATE TABLE airports (code TEXT PRIMARY KEY, city TEXT);
CREATE TABLE airlines (uid INTEGER PRIMARY KEY, name TEXT);`
	const rows = `INSERT INTO flights VALUES (1, 'A', 'B', 1), (2, 'B', 'A', 2), (3, 'A', 'C', 1), (4, NULL, 'A', NULL);
INSERT INTO airports VALUES ('A', 'Aberdeen'), ('B', 'Boston'), ('C', NULL);
INSERT INTO airlines VALUES (1, 'UA'), (2, 'JetBlue');`
	cases := []struct{ plain, sqlite string }{
		{"SELECT count(*) FROM flights f JOIN airports a ON f.src = a.code JOIN airlines l ON l.uid = f.airline",
			"SELECT count(*) FROM flights f JOIN airports a ON f.src = a.code AND l.uid = f.airline JOIN airlines l"},
		{"SELECT a.city, l.name FROM flights f JOIN airports a ON f.src = a.code JOIN airlines l ON l.uid = f.airline",
			"SELECT a.city, l.name FROM flights f, airports a JOIN airlines l ON f.src = a.code AND l.uid = f.airline"},
		{"SELECT count(*) FROM flights", "SELECT count(*) FROM 'flights'"},
		{"SELECT city AS c FROM airports", "SELECT city AS 'c' FROM airports"},
		{"SELECT a.city FROM airports a WHERE a.code = 'A'", "SELECT w.city FROM 'airports' 'w' WHERE w.code = 'A'"},
	}
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	db := memorySQLite(t, ddl+rows)
	ctx := context.Background()
	for _, c := range cases {
		if a, b := rowsOf(t, db, c.plain), rowsOf(t, db, c.sqlite); a != b {
			t.Fatalf("SQLite itself: %s gives %s, %s gives %s", c.plain, a, c.sqlite, b)
		}
		v, err := equivalence.Judge(ctx, s, c.plain, c.sqlite, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != equivalence.Equivalent {
			t.Errorf("%s / %s: %s %v, want equivalent", c.plain, c.sqlite, v.Label, v.Differences)
		}
	}
}

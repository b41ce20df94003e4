package equivalence_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteCompoundLeftToRight: SQLite reads A UNION ALL B INTERSECT C
// as (A UNION ALL B) INTERSECT C, where PostgreSQL binds INTERSECT
// first. Planned with PostgreSQL's precedence, the campaign's pair below
// was refuted on a database where SQLite returns the same (nothing) for
// both. Each case's truth is checked on real SQLite over the databases
// listed, and each counterexample the judge gives must load there and
// tell the queries apart.
func TestSQLiteCompoundLeftToRight(t *testing.T) {
	const ddl = `CREATE TABLE s (name TEXT);`
	cases := []struct {
		ref, cand string
		differ    bool // SQLite tells them apart on some database below
	}{
		{"SELECT name FROM s WHERE name = 'b' UNION ALL SELECT name FROM s WHERE name <> 'a' INTERSECT SELECT name FROM s WHERE name > 'c'",
			"SELECT name FROM s WHERE name > 'c' UNION ALL SELECT name FROM s WHERE name <> 'a' INTERSECT SELECT name FROM s WHERE name = 'b'", true},
		{"SELECT name FROM s UNION ALL SELECT name FROM s INTERSECT SELECT name FROM s WHERE name = 'a'",
			"SELECT name FROM s WHERE name = 'a' INTERSECT SELECT name FROM s", false},
		{"SELECT name FROM s EXCEPT SELECT name FROM s WHERE name = 'a' UNION SELECT name FROM s WHERE name = 'a'",
			"SELECT DISTINCT name FROM s", false},
	}
	dbs := []string{"INSERT INTO s VALUES ('d')", "INSERT INTO s VALUES ('a'), ('b'), ('d')", "INSERT INTO s VALUES ('a'), ('a'), ('e')", ""}
	ctx := context.Background()
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	run := func(inserts, q string) string {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(ddl + ";" + inserts); err != nil {
			t.Fatal(err)
		}
		return rowsOf(t, db, q)
	}
	for _, c := range cases {
		differ := false
		for _, d := range dbs {
			if run(d, c.ref) != run(d, c.cand) {
				differ = true
			}
		}
		if differ != c.differ {
			t.Fatalf("%s / %s: SQLite tells them apart = %v, the case says %v", c.ref, c.cand, differ, c.differ)
		}
		v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !c.differ && v.Label == equivalence.NotEquivalent {
			t.Errorf("%s / %s: not_equivalent (%s)", c.ref, c.cand, v.Summary())
		}
		if c.differ && v.Label.Proved() {
			t.Errorf("%s / %s: %s", c.ref, c.cand, v.Label)
		}
		if ce := v.Counterexample; ce != nil {
			ins := strings.Join(ce.Inserts, ";\n")
			if run(ins, c.ref) == run(ins, c.cand) {
				t.Errorf("%s / %s: SQLite does not tell the counterexample apart: %v", c.ref, c.cand, ce.Inserts)
			}
		}
	}
}

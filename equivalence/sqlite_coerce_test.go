package equivalence_test

import (
	"context"
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteCoerceWithoutAffinity: SQLite converts a numeric literal to
// text only beside an operand with TEXT affinity (a column, a CAST);
// max(name) has none, so HAVING max(name) > 3 compares text with a
// number, and any text is greater. The normalizer turned 3 into '3'
// there, and the judge refuted > 3 vs > 4 on '3x', where SQLite returns
// the row for both (the soundness campaign found it). Beside the column
// itself the conversion stands, and '3x' tells > 3 from > 4.
func TestSQLiteCoerceWithoutAffinity(t *testing.T) {
	const ddl = `CREATE TABLE c (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);`
	const data = `INSERT INTO c VALUES (0, '3x', NULL);`
	cases := []struct {
		ref, cand string
		differ    bool
	}{
		{"SELECT email, max(name) FROM c GROUP BY email HAVING max(name) > 3", "SELECT email, max(name) FROM c GROUP BY email HAVING max(name) > 4", false},
		{"SELECT id FROM c WHERE name > 3", "SELECT id FROM c WHERE name > 4", true},
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(ddl + data); err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if differ := rowsOf(t, db, c.ref) != rowsOf(t, db, c.cand); differ != c.differ {
			t.Fatalf("%s / %s: SQLite tells them apart on '3x' = %v, the case says %v", c.ref, c.cand, differ, c.differ)
		}
		v, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Label == equivalence.NotEquivalent; got != c.differ {
			t.Errorf("%s / %s: %s, want not_equivalent = %v", c.ref, c.cand, v.Summary(), c.differ)
		}
	}
}

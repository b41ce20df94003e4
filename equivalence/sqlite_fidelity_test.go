package equivalence_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteRejectedCandidateIsInvalid (issue 18, cause 18): a candidate
// SQLite refuses is reported invalid, never equivalent to a reference
// that runs; a nearby candidate SQLite runs is still proved. Whether
// SQLite runs each candidate is checked on the real engine.
func TestSQLiteRejectedCandidateIsInvalid(t *testing.T) {
	ctx := context.Background()
	const ddl = `CREATE TABLE t (a INTEGER, b TEXT); CREATE TABLE u (a INTEGER, c INTEGER);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(ddl + `INSERT INTO t VALUES (1, 'x'), (2, 'y'), (2, 'z'); INSERT INTO u VALUES (2, 1), (3, 1);`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, ref, cand string
		runs            bool // SQLite prepares the candidate
	}{
		{"paren-union-operand", "SELECT a FROM t UNION SELECT a FROM u", "(SELECT a FROM t) UNION SELECT a FROM u", false},
		{"plain-union", "SELECT a FROM t UNION SELECT a FROM u", "SELECT a FROM u UNION SELECT a FROM t", true},
		{"eq-any", "SELECT b FROM t WHERE a IN (SELECT a FROM u)", "SELECT b FROM t WHERE a = ANY (SELECT a FROM u)", false},
		{"in-subquery", "SELECT b FROM t WHERE a IN (SELECT a FROM u)", "SELECT b FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)", true},
		{"group-by-outer", "SELECT b, (SELECT count(*) FROM u WHERE u.a = t.a) FROM t", "SELECT b, (SELECT count(*) FROM u WHERE u.a = t.a GROUP BY t.a) FROM t", false},
		{"order-by-aggregate", "SELECT a FROM t", "SELECT a FROM t ORDER BY count(*)", false},
		{"empty-select-list", "SELECT count(*) FROM t", "SELECT FROM t", false},
		{"ilike", "SELECT a FROM t WHERE b LIKE 'x'", "SELECT a FROM t WHERE b ILIKE 'x'", false},
		{"like", "SELECT a FROM t WHERE b LIKE 'x'", "SELECT a FROM t WHERE b LIKE 'x' AND 1 = 1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := sqlitetest.Query(ctx, db, c.ref); err != nil {
				t.Fatalf("the reference must run on SQLite: %v", err)
			}
			_, engErr := sqlitetest.Query(ctx, db, c.cand)
			// SQLite 3.40 rejects a GROUP BY naming an outer column; the
			// linked, newer SQLite accepts it (sqlite_fidelity_test in
			// planner/build checks the 3.40 shell).
			if (engErr == nil) != c.runs && c.name != "group-by-outer" {
				t.Fatalf("SQLite runs the candidate: %v (%v); the case says %v", engErr == nil, engErr, c.runs)
			}
			v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 200 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			if !c.runs {
				if v.Label.Proved() || v.Label == equivalence.NotEquivalent {
					t.Fatalf("verdict %s for a candidate SQLite rejects", v.Label)
				}
				if len(v.Differences) == 0 || !strings.Contains(v.Differences[0].Component, "SQLite rejects") {
					t.Fatalf("differences %+v: want the candidate named invalid because SQLite rejects it", v.Differences)
				}
				return
			}
			if !v.Label.Proved() {
				t.Fatalf("verdict %s for a candidate SQLite runs and that equals the reference", v.Label)
			}
		})
	}
}

package build

import (
	"database/sql"
	"errors"
	"testing"

	_ "modernc.org/sqlite" // the real engine the precedence is checked on

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestRewriteSQLiteForms: the text rewrites of issue 33, item 13. [name]
// is a quoted name; x IS v is x IS NOT DISTINCT FROM v; NATURAL LEFT
// JOIN keeps no added ON.
func TestRewriteSQLiteForms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT [a b] FROM [t]", `SELECT "a b" FROM "t"`},
		{`SELECT [a"b] FROM t`, `SELECT "a""b" FROM t`},
		{"SELECT 'x[1]' FROM t", "SELECT 'x[1]' FROM t"},
		{"SELECT a FROM t WHERE a IS 20", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM 20"},
		{"SELECT a FROM t WHERE b IS NOT 'US' AND c IS -1", "SELECT a FROM t WHERE b IS DISTINCT FROM 'US' AND c IS NOT DISTINCT FROM -1"},
		{"SELECT a FROM t WHERE a IS (SELECT 1) OR a IS b", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM (SELECT 1) OR a IS NOT DISTINCT FROM b"},
		{"SELECT a FROM t WHERE a IS NULL AND b IS NOT NULL AND c IS TRUE", "SELECT a FROM t WHERE a IS NULL AND b IS NOT NULL AND c IS TRUE"},
		{"SELECT a FROM t WHERE a IS NOT DISTINCT FROM 1", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM 1"},
		{"SELECT a FROM t WHERE a IS 1 <= 2", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM 1 <= 2"},
		// An operator of IS's level follows: SQLite reads (a IS 1) = 1.
		{"SELECT a FROM t WHERE a IS 1 = 1", "SELECT a FROM t WHERE a IS 1 = 1"},
		{"SELECT a FROM t WHERE a IS 1 <> b", "SELECT a FROM t WHERE a IS 1 <> b"},
		{"SELECT a FROM t WHERE a IS 1 IN (1)", "SELECT a FROM t WHERE a IS 1 IN (1)"},
		{"SELECT * FROM a NATURAL LEFT JOIN b", "SELECT * FROM a NATURAL LEFT JOIN b"},
		{"SELECT * FROM a NATURAL LEFT OUTER JOIN b", "SELECT * FROM a NATURAL LEFT OUTER JOIN b"},
	} {
		if got, _ := rewriteSQLite(tc.in); got != tc.want {
			t.Errorf("rewriteSQLite(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestSQLiteIsPrecedence: where IS is followed by an operator of its
// level, SQLite reads the chain left to right and PostgreSQL's IS
// DISTINCT FROM would bind looser: the planner must not read such a
// query (with a meaning SQLite does not give it). Real SQLite shows the
// two readings differ.
func TestSQLiteIsPrecedence(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var chain, pgReading int
	// (2 IS 2) = 1 is 1; 2 IS (2 = 1) is 0.
	if err := db.QueryRow("SELECT (2 IS 2) = 1, 2 IS (2 = 1)").Scan(&chain, &pgReading); err != nil {
		t.Fatal(err)
	}
	var bare int
	if err := db.QueryRow("SELECT 2 IS 2 = 1").Scan(&bare); err != nil {
		t.Fatal(err)
	}
	if bare != chain || chain == pgReading {
		t.Fatalf("SQLite: 2 IS 2 = 1 is %d, (2 IS 2) = 1 is %d, 2 IS (2 = 1) is %d: the readings do not differ as the test assumes", bare, chain, pgReading)
	}
	s, err := catalog.LoadDDL("CREATE TABLE t (a INTEGER, b TEXT)", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT a FROM t WHERE a IS 2 = 1", "SELECT a IS 2 = 1 FROM t", "SELECT a FROM t WHERE a IS NOT 1 == b",
		"SELECT a FROM t WHERE a IS DISTINCT FROM 2 = 1", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM b IN ('x')"} {
		if _, err := Build(s, q); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want unsupported (PostgreSQL's reading of IS differs)", q, err)
		}
	}
	if _, err := Build(s, "SELECT a FROM t WHERE a IS 1 AND b IS NOT 'x'"); err != nil {
		t.Errorf("IS with values: %v", err)
	}
}

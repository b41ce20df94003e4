package equivalence_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// TestCompoundCollationSQLite: SQLite compares a compound SELECT's column
// under its leftmost branch's collation, so swapping the branches of a
// UNION over a NOCASE and a BINARY column changes the rows (the soundness
// campaign found the swap proved equivalent). Such a pair must not be
// proved; SQLite tells it apart here. Nor is a swap against an
// expression, which has no collation: the two sides spell equal values
// apart ('w' against upper('w')), and SQLite keeps other spellings
// (TestCompoundNondeterministicSwapSQLite). Branches with the same
// deterministic collation are still proved.
func TestCompoundCollationSQLite(t *testing.T) {
	const ddl = `CREATE TABLE sensor (name TEXT PRIMARY KEY COLLATE NOCASE, site TEXT, lo INT, hi INT);`
	ctx := context.Background()
	db, f := sqliteFile(t, ddl+`INSERT INTO sensor VALUES ('v3', 'A', 0, 2), ('v', 'a', 0, 3), ('B', 'b', 0, 1), ('w', 'w', 0, 1);`)
	for _, c := range []struct {
		ref, cand string
		proved    bool
	}{
		{"SELECT name FROM sensor WHERE name = 'v3' UNION SELECT site FROM sensor",
			"SELECT site FROM sensor UNION SELECT name FROM sensor WHERE name = 'v3'", false},
		{"SELECT name FROM sensor INTERSECT SELECT site FROM sensor",
			"SELECT site FROM sensor INTERSECT SELECT name FROM sensor", false},
		{"SELECT site FROM sensor UNION SELECT site FROM sensor", "SELECT DISTINCT site FROM sensor", true},
		{"SELECT upper(site) FROM sensor UNION SELECT name FROM sensor",
			"SELECT name FROM sensor UNION SELECT upper(site) FROM sensor", false},
	} {
		checkProvedOnRows(ctx, t, db, f.Schema, c.ref, c.cand, c.proved)
	}
}

// bagOf is q's rows on db, sorted, as text.
func bagOf(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := sqlitetest.Query(context.Background(), db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, "|")
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestCompoundNondeterministicSwapSQLite: with the same NOCASE collation
// on both branches, a set operation still keeps the spelling of the
// branch it meets first ('a' from the left, 'A' from the right), so
// swapped branches of INTERSECT or UNION return other rows (the soundness
// campaign found the INTERSECT swap proved equivalent). Such a pair must
// not be proved; the same pairs unswapped, or over BINARY columns, are.
func TestCompoundNondeterministicSwapSQLite(t *testing.T) {
	const ddl = `CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, plain TEXT);
CREATE TABLE tag (id INTEGER PRIMARY KEY, label TEXT COLLATE NOCASE, plain TEXT);`
	ctx := context.Background()
	db, f := sqliteFile(t, ddl+`INSERT INTO customer VALUES (1, 'a', 'a'), (2, 'b', 'b'); INSERT INTO tag VALUES (1, 'A', 'a'), (2, 'c', 'c');`)
	for _, c := range []struct {
		ref, cand string
		proved    bool
	}{
		{"SELECT name FROM customer INTERSECT SELECT label FROM tag", "SELECT label FROM tag INTERSECT SELECT name FROM customer", false},
		{"SELECT name FROM customer UNION SELECT label FROM tag", "SELECT label FROM tag UNION SELECT name FROM customer", false},
		{"SELECT name FROM customer INTERSECT SELECT label FROM tag", "SELECT name FROM customer INTERSECT SELECT label FROM tag WHERE 1 = 1", true},
		{"SELECT plain FROM customer INTERSECT SELECT plain FROM tag", "SELECT plain FROM tag INTERSECT SELECT plain FROM customer", true},
	} {
		checkProvedOnRows(ctx, t, db, f.Schema, c.ref, c.cand, c.proved)
	}
}

// checkProvedOnRows judges ref and cand over s and checks the verdict
// against the rows of db: proved exactly when want says, a proof only
// where SQLite returns the same rows, and an unproved pair one the rows
// tell apart (so that the case shows what it claims).
func checkProvedOnRows(ctx context.Context, t *testing.T, db *sql.DB, s *catalog.Schema, ref, cand string, want bool) {
	t.Helper()
	same := bagOf(t, db, ref) == bagOf(t, db, cand)
	v, err := equivalence.Judge(ctx, s, ref, cand, equivalence.Options{})
	proved := err == nil && v.Label.Proved()
	if proved != want {
		t.Errorf("%s / %s: %s (%v), want proved %v", ref, cand, v.Summary(), err, want)
	}
	if proved && !same {
		t.Errorf("%s / %s: proved, but SQLite returns %s vs %s", ref, cand, bagOf(t, db, ref), bagOf(t, db, cand))
	}
	if !want && same {
		t.Errorf("%s / %s: SQLite does not tell them apart on the test rows", ref, cand)
	}
}

// sqliteFile runs script (DDL and rows) in a new SQLite database file and
// returns the file open, closed with the test, and the schema
// sqlitefile reads from it.
func sqliteFile(t *testing.T, script string) (*sql.DB, *sqlitefile.Schema) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
	f, err := sqlitefile.Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return db, f
}

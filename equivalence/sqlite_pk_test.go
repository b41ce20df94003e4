package equivalence_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSQLiteNullablePrimaryKey: SQLite lets the PRIMARY KEY columns of a
// rowid table hold NULL, several times (all but the INTEGER rowid alias).
// A pair equal only when the key holds no NULL is therefore not
// `equivalent` under the declared schema: it is proved only as
// equivalent_under_assumptions naming primary_key_not_null (found by the
// soundness campaign: count(*) vs count(name) grouped by a text key was
// proved equivalent). The rowid alias, and a key declared NOT NULL, are
// keys outright. Each pair's truth is checked on real SQLite: a NULL key
// row tells the assumed pairs apart, and cannot tell the others apart.
func TestSQLiteNullablePrimaryKey(t *testing.T) {
	const ddl = `CREATE TABLE sensor (name TEXT PRIMARY KEY, site TEXT);
CREATE TABLE reading (id INTEGER PRIMARY KEY, val INTEGER);
CREATE TABLE tagged (code TEXT NOT NULL PRIMARY KEY, site TEXT);`
	const nulls = `INSERT INTO sensor VALUES (NULL, 'a'), (NULL, 'b'), ('x', 'c');
INSERT INTO reading VALUES (NULL, 1), (NULL, 2);
INSERT INTO tagged VALUES ('x', 'a');`
	cases := []struct {
		ref, cand string
		assumed   bool // proved only under primary_key_not_null (else: equivalent)
	}{
		{"SELECT name, count(*) FROM sensor GROUP BY name", "SELECT name, count(name) FROM sensor GROUP BY name", true},
		{"SELECT count(*) FROM sensor", "SELECT count(name) FROM sensor", true},
		{"SELECT DISTINCT name FROM sensor", "SELECT name FROM sensor", true},
		{"SELECT count(*) FROM reading", "SELECT count(id) FROM reading", false},
		{"SELECT DISTINCT id FROM reading", "SELECT id FROM reading", false},
		{"SELECT count(*) FROM tagged", "SELECT count(code) FROM tagged", false},
	}
	ctx := context.Background()
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	db := memorySQLite(t, ddl+nulls)
	// With a search, the proof comes at the search's checkpoint; without
	// one, after the judgement under the declared schema: the same
	// verdict either way.
	noSearch := equivalence.Options{}
	noSearch.Refute.Off = true
	for _, c := range cases {
		for _, opts := range []equivalence.Options{{}, noSearch} {
			v, err := equivalence.Judge(ctx, s, c.ref, c.cand, opts)
			if err != nil {
				t.Fatal(err)
			}
			differ := rowsOf(t, db, c.ref) != rowsOf(t, db, c.cand)
			if differ != c.assumed {
				t.Errorf("%s / %s: SQLite tells them apart on NULL keys = %v, the case says %v", c.ref, c.cand, differ, c.assumed)
			}
			want := equivalence.Equivalent
			if c.assumed {
				want = equivalence.EquivalentUnderAssumptions
			}
			if v.Label != want {
				t.Errorf("%s / %s: %s %v, want %s", c.ref, c.cand, v.Label, v.Assumptions, want)
				continue
			}
			if c.assumed && (len(v.Assumptions) != 1 || v.Assumptions[0].Kind != equivalence.AssumePrimaryKeyNotNull || v.Assumptions[0].Subject != "sensor") {
				t.Errorf("%s / %s: assumptions %v, want primary_key_not_null of sensor", c.ref, c.cand, v.Assumptions)
			}
		}
	}
}

// memorySQLite is a private in-memory SQLite database (one connection:
// each would have its own) with script run on it; closed at cleanup.
func memorySQLite(t *testing.T, script string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("SQLite refuses the script: %v", err)
	}
	return db
}

// rowsOf is q's rows on db as one sorted text (a bag).
func rowsOf(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := sqlitetest.Query(context.Background(), db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	slices.Sort(out)
	return fmt.Sprint(out)
}

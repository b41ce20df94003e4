package equivalence_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// TestAnyValueKeepsCollationSQLite: GROUP BY name, id on a rowid table
// groups by id alone, name becoming any_value(name); SQLite still reads
// that output as the column, NOCASE and all, so an ORDER BY over it sorts
// without regard to case, as over DISTINCT name, id. The executor sorted
// it by bytes and called the pair not_equivalent on a database where
// SQLite returns the same rows in the same order (the soundness campaign
// found it). A nearby pair that really orders apart is still refuted,
// and SQLite confirms its counterexample.
func TestAnyValueKeepsCollationSQLite(t *testing.T) {
	const ddl = `CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE);`
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ddl); err != nil {
		t.Fatal(err)
	}
	f, err := sqlitefile.Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	const (
		distinct = "SELECT DISTINCT name, id FROM customer ORDER BY 1 DESC, 2"
		grouped  = "SELECT name, id FROM customer GROUP BY name, id ORDER BY 1 DESC, 2"
		ascend   = "SELECT DISTINCT name, id FROM customer ORDER BY 1, 2"
	)
	if _, err := db.Exec(`INSERT INTO customer VALUES (1, 'a'), (0, 'Ba')`); err != nil {
		t.Fatal(err)
	}
	if a, b := orderedRows(t, db, distinct), orderedRows(t, db, grouped); a != b {
		t.Fatalf("SQLite orders them apart: %s vs %s", a, b)
	}
	v, err := equivalence.Judge(ctx, f.Schema, distinct, grouped, equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Label == equivalence.NotEquivalent {
		t.Errorf("%s / %s: not_equivalent (%s), though SQLite orders both by NOCASE", distinct, grouped, v.Summary())
	}
	v, err = equivalence.Judge(ctx, f.Schema, distinct, ascend, equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != equivalence.NotEquivalent || v.Counterexample == nil {
		t.Fatalf("%s / %s: %s, want a counterexample", distinct, ascend, v.Summary())
	}
	if _, err := db.Exec("DELETE FROM customer; " + strings.Join(v.Counterexample.Inserts, ";\n")); err != nil {
		t.Fatalf("counterexample does not load: %v", err)
	}
	if a, b := orderedRows(t, db, distinct), orderedRows(t, db, ascend); a == b {
		t.Errorf("SQLite does not tell the counterexample apart: %s", a)
	}
}

// orderedRows is q's rows on db in order, as text.
func orderedRows(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := sqlitetest.Query(context.Background(), db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return fmt.Sprint(rows)
}

package equivalence_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the real engine the classes are checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// TestCounterexampleClassSQLite: every counterexample names its class
// (issue 36, item 3). Each case's counterexample is replayed on real
// SQLite: the queries must differ there, and for "duplicates" they must
// agree once both results are deduplicated, for "ties" the reference's
// LIMIT must cut through rows tied on its sort key.
func TestCounterexampleClassSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER);`
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
	for _, tc := range []struct {
		name, ref, cand string
		want            string // a class the counterexample must carry
		not             []string
	}{
		{"ordinary", "SELECT a FROM t WHERE a > 1", "SELECT a FROM t WHERE a > 2", equivalence.ClassOrdinary, []string{equivalence.ClassDuplicates, equivalence.ClassTies}},
		{"duplicates", "SELECT a FROM t", "SELECT DISTINCT a FROM t", equivalence.ClassDuplicates, []string{equivalence.ClassOrdinary, equivalence.ClassTies}},
		{"null", "SELECT count(b) FROM t", "SELECT count(*) FROM t", equivalence.ClassNull, []string{equivalence.ClassOrdinary, equivalence.ClassDuplicates}},
		{"ties", "SELECT a FROM t ORDER BY a DESC LIMIT 1", "SELECT a FROM t WHERE a = (SELECT max(a) FROM t)", equivalence.ClassTies, []string{equivalence.ClassOrdinary}},
		{"other rows, not duplicates", "SELECT a FROM t", "SELECT DISTINCT a + 1 FROM t", "", []string{equivalence.ClassDuplicates, equivalence.ClassTies}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := equivalence.Judge(ctx, f.Schema, tc.ref, tc.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ce := v.Counterexample
			if v.Label != equivalence.NotEquivalent || ce == nil {
				t.Fatalf("%s: want a counterexample", v.Summary())
			}
			if len(ce.Class) == 0 {
				t.Fatalf("counterexample without a class: %s", ce)
			}
			if tc.want != "" && !slices.Contains(ce.Class, tc.want) {
				t.Errorf("class %v, want %s (%s)", ce.Class, tc.want, ce)
			}
			for _, n := range tc.not {
				if slices.Contains(ce.Class, n) {
					t.Errorf("class %v has %s (%s)", ce.Class, n, ce)
				}
			}
			if _, err := db.Exec("DELETE FROM t; " + strings.Join(ce.Inserts, ";\n")); err != nil {
				t.Fatalf("counterexample does not load: %v", err)
			}
			r, c := bag(t, db, tc.ref), bag(t, db, tc.cand)
			if slices.Equal(r, c) {
				t.Fatalf("SQLite does not tell the counterexample apart: %v", r)
			}
			// A LIMIT through ties is nondeterministic: its rows are no
			// set to compare, and the class is ties alone.
			dr, dc := slices.Compact(slices.Clone(r)), slices.Compact(slices.Clone(c))
			if !slices.Contains(ce.Class, equivalence.ClassTies) && slices.Contains(ce.Class, equivalence.ClassDuplicates) != slices.Equal(dr, dc) {
				t.Errorf("class %v, but deduplicated SQLite results: %v vs %v", ce.Class, dr, dc)
			}
			if slices.Contains(ce.Class, equivalence.ClassTies) {
				// The reference keeps one row of the top sort group: the
				// group must hold more.
				top := bag(t, db, "SELECT a FROM t WHERE a = (SELECT max(a) FROM t)")
				if len(top) < 2 {
					t.Errorf("class ties, but the top sort group on SQLite is %v", top)
				}
			}
		})
	}
}

// bag is q's rows on db, sorted, as text.
func bag(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := sqlitetest.Query(context.Background(), db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	sort.Strings(out)
	return out
}

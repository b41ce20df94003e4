package equivalence_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// generatedDDL declares generated columns as SQLite spells them (stored,
// virtual, the bare AS form) and a column without a type. SELECT * on
// SQLite returns all seven columns, the generated ones included.
const generatedDDL = `CREATE TABLE item (
  id INTEGER PRIMARY KEY,
  qty INTEGER NOT NULL CHECK (qty > 0),
  price NUMERIC,
  total REAL GENERATED ALWAYS AS (price * qty) STORED,
  half INTEGER AS (qty / 2),
  raw,
  twice INTEGER GENERATED ALWAYS AS (qty * 2) VIRTUAL
);`

// generatedData are databases the truth is checked on: integers, a REAL
// and a TEXT where INTEGER affinity keeps them.
var generatedData = []string{
	``,
	`INSERT INTO item (id, qty, price, raw) VALUES (1, 5, 2, 'x'), (2, 4, 1.5, 7), (3, 1, NULL, NULL);`,
	`INSERT INTO item (id, qty, price, raw) VALUES (1, 5.5, 2, 'x'), (2, 'abc', 3, x'00'), (3, 3, 1, 1);`,
}

// TestSQLiteGeneratedColumns: a SQLite table's generated columns are
// part of the schema whichever loader read it (sqlitefile from a real
// database, catalog.LoadDDL from its DDL), so SELECT * is not proved
// equal to a list without them, and a generated column is its
// expression, not a free value a counterexample could choose. Every
// verdict is checked on real SQLite: a proved pair agrees on every
// database of generatedData, a counterexample loads and tells the pair
// apart.
func TestSQLiteGeneratedColumns(t *testing.T) {
	ctx := context.Background()
	_, f := sqliteFile(t, generatedDDL)
	fromDDL, err := catalog.LoadDDL(generatedDDL, catalog.SQLite)
	if err != nil {
		t.Fatalf("LoadDDL: %v", err)
	}
	cases := []struct{ name, ref, cand string }{
		{"star-vs-stored-columns", "SELECT * FROM item", "SELECT id, qty, price, raw FROM item"},
		{"star-vs-all-columns", "SELECT * FROM item", "SELECT id, qty, price, total, half, raw, twice FROM item"},
		{"virtual-is-its-expression", "SELECT id, half FROM item", "SELECT id, qty / 2 FROM item"},
		{"virtual-in-where", "SELECT id FROM item WHERE twice > 6", "SELECT id FROM item WHERE qty * 2 > 6"},
		{"virtual-vs-other", "SELECT id FROM item WHERE half > 1", "SELECT id FROM item WHERE qty > 1"},
		{"stored-real-vs-expression", "SELECT id, total FROM item", "SELECT id, price * qty FROM item"},
	}
	for _, sc := range []struct {
		loader string
		s      *catalog.Schema
	}{{"sqlitefile", f.Schema}, {"LoadDDL", fromDDL}} {
		tab := sc.s.Table("item")
		var names []string
		for _, c := range tab.Columns {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, ","); got != "id,qty,price,total,half,raw,twice" {
			t.Fatalf("%s: columns %s, want SQLite's SELECT * order id,qty,price,total,half,raw,twice", sc.loader, got)
		}
		for _, n := range []string{"total", "half", "twice"} {
			if c, ok := sc.s.Column(tab, n); !ok || c.Generated == "" {
				t.Errorf("%s: %s is not generated", sc.loader, n)
			}
		}
		if raw, _ := sc.s.Column(tab, "raw"); raw.Type != catalog.Unknown || raw.TypeSQL != "" {
			t.Errorf("%s: the untyped column reads as %v %q", sc.loader, raw.Type, raw.TypeSQL)
		}
		if len(tab.Unmodelled) > 0 {
			t.Errorf("%s: unmodelled %q", sc.loader, tab.Unmodelled)
		}
		for _, c := range cases {
			t.Run(sc.loader+"/"+c.name, func(t *testing.T) {
				judgeOnSQLite(ctx, t, sc.s, generatedDDL, generatedData, c.ref, c.cand)
			})
		}
	}
}

// booleanDDL: SQLite has no boolean storage class; a BOOLEAN column has
// numeric affinity and TRUE is 1.
const booleanDDL = `CREATE TABLE flags (id INTEGER PRIMARY KEY, n INTEGER, flag BOOLEAN);`

var booleanData = []string{
	`INSERT INTO flags VALUES (1, 1, TRUE), (2, 5, FALSE), (3, NULL, NULL);`,
	`INSERT INTO flags VALUES (1, 1, 1), (2, 2, 0), (3, 3, 'yes');`,
}

// TestSQLiteBooleansAreIntegers: a comparison or a boolean column in a
// SQLite result is the integer 0 or 1, as SQLite returns it, so a pair
// that differs only in spelling a truth value as a comparison or as a
// CASE is not refuted (that was a wrong not_equivalent, its
// counterexample showing "false" against "0"). Checked on real SQLite as
// TestSQLiteGeneratedColumns checks.
func TestSQLiteBooleansAreIntegers(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(booleanDDL, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, ref, cand string
		wantNotRefuted  bool // SQLite agrees on every database
	}{
		{"comparison-vs-case", "SELECT id, n = 1 FROM flags", "SELECT id, CASE WHEN n = 1 THEN 1 WHEN n <> 1 THEN 0 END FROM flags", true},
		{"comparison-vs-iif", "SELECT id FROM flags WHERE (n > 1) = 1", "SELECT id FROM flags WHERE n > 1", true},
		{"comparison-vs-other-case", "SELECT id, n = 1 FROM flags", "SELECT id, CASE WHEN n = 1 THEN 2 WHEN n <> 1 THEN 0 END FROM flags", false},
		{"column-vs-cast", "SELECT DISTINCT flag FROM flags", "SELECT DISTINCT CAST(flag AS INTEGER) FROM flags", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if differ := judgeOnSQLite(ctx, t, s, booleanDDL, booleanData, c.ref, c.cand); differ == c.wantNotRefuted {
				t.Fatalf("real SQLite tells the pair apart: %v; the case says it %s", differ, map[bool]string{true: "does not", false: "does"}[c.wantNotRefuted])
			}
		})
	}
}

// judgeOnSQLite judges ref and cand over s and checks the verdict on real
// SQLite (ddl loaded with each of data): a proof must agree with SQLite
// on every database, a counterexample must load and tell the pair apart.
// It reports whether SQLite tells the pair apart on data.
func judgeOnSQLite(ctx context.Context, t *testing.T, s *catalog.Schema, ddl string, data []string, ref, cand string) bool {
	t.Helper()
	differ := false
	for _, d := range data {
		differ = differ || liteDiffer(t, ddl, d, ref, cand)
	}
	v, err := equivalence.Judge(ctx, s, ref, cand, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case v.Label == equivalence.Equivalent && differ:
		t.Fatalf("proved equivalent (rules %v), but SQLite tells the pair apart", v.Rules)
	case v.Label == equivalence.NotEquivalent:
		ce := v.Counterexample
		if ce == nil {
			t.Fatal("not_equivalent without a counterexample")
		}
		if !liteDiffer(t, ddl, strings.Join(ce.Inserts, "\n"), ref, cand) {
			t.Fatalf("counterexample %q does not tell the pair apart on SQLite", ce.Inserts)
		}
	}
	t.Logf("%s (SQLite tells apart: %v)", v.Label, differ)
	return differ
}

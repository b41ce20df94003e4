package equivalence_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the real engine the truth is checked on

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/catalog/sqlitefile"
)

// affinityDDL: loose is an ordinary table, whose INTEGER column n keeps
// 5.5 as REAL and 'abc' as TEXT; tight is STRICT; in both, id is the
// rowid alias, which holds only integers.
const affinityDDL = `CREATE TABLE loose (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, g INTEGER);
CREATE TABLE tight (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, g INTEGER) STRICT;
CREATE TABLE checked (id INTEGER PRIMARY KEY, n INTEGER NOT NULL CHECK (typeof(n) = 'integer'));`

// affinityData are databases the truth is checked on: integers only,
// then with a REAL and a TEXT in loose.n (tight refuses them).
var affinityData = []string{
	`INSERT INTO loose VALUES (1, 5, 1), (2, 6, 1), (3, 7, 2); INSERT INTO tight VALUES (1, 5, 1), (2, 6, 1), (3, 7, 2); INSERT INTO checked VALUES (1, 5), (2, 6);`,
	`INSERT INTO loose VALUES (1, 5, 1), (2, 6, 1), (4, 0, 2), (3, 7, 2); INSERT INTO tight VALUES (1, 5, 1), (2, 6, 1), (3, 7, 2), (4, 0, 2);`,
	`INSERT INTO loose VALUES (1, 5.5, 1), (2, 'abc', 1), (3, 7, 2), (4, 5, 2);`,
}

// TestSQLiteIntegerAffinity (issue 18, cause 17): rules that read an
// integer column as whole numbers (x > 5 is x >= 6, x > 5 AND x < 6 is
// empty, CAST(x AS INTEGER) is x, x + 0 is x) hold in SQLite only where
// the engine keeps the column to integers: a STRICT table's INTEGER
// column, the rowid alias, count(*). Elsewhere such a pair is not proved
// and the search finds the database that tells it apart, marked as
// needing a non-integer. Each pair's truth is checked on real SQLite.
func TestSQLiteIntegerAffinity(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "aff.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(affinityDDL); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := sqlitefile.Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Schema
	// The CHECK is read by the DDL loader where it models CHECKs; set here
	// so the test does not depend on it.
	if tab := s.Table("checked"); len(tab.Checks) == 0 {
		tab.Checks = []catalog.Check{{Expr: "typeof(n) = 'integer'"}}
	}
	// The engine keeps checked.n and tight.n to integers: 5.5 is refused.
	for _, table := range []string{"tight", "checked"} {
		mem, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Exec(affinityDDL); err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Exec(`INSERT INTO ` + table + ` (id, n) VALUES (9, 5.5)`); err == nil {
			t.Errorf("SQLite stores 5.5 in %s.n", table)
		}
		mem.Close()
	}
	cases := []struct {
		name, ref, cand string
		differ          bool
	}{
		{"loose-strict-bound", "SELECT id FROM loose WHERE n > 5", "SELECT id FROM loose WHERE n >= 6", true},
		{"loose-strict-bound-lt", "SELECT id FROM loose WHERE n < 6", "SELECT id FROM loose WHERE n <= 5", true},
		{"loose-empty-range", "SELECT id FROM loose WHERE n > 5 AND n < 6", "SELECT id FROM loose WHERE n <> n", true},
		{"loose-fraction", "SELECT id FROM loose WHERE n = 5.5", "SELECT id FROM loose WHERE n <> n", true},
		{"loose-cast", "SELECT id FROM loose WHERE CAST(n AS INTEGER) = 5", "SELECT id FROM loose WHERE n = 5", true},
		{"loose-plus-zero", "SELECT id, n + 0 FROM loose", "SELECT id, n FROM loose", true},
		{"loose-sum-bound", "SELECT g FROM loose GROUP BY g HAVING sum(n) > 5", "SELECT g FROM loose GROUP BY g HAVING sum(n) >= 6", true},
		{"strict-sum-bound", "SELECT g FROM tight GROUP BY g HAVING sum(n) > 5", "SELECT g FROM tight GROUP BY g HAVING sum(n) >= 6", false},
		{"strict-strict-bound", "SELECT id FROM tight WHERE n > 5", "SELECT id FROM tight WHERE n >= 6", false},
		{"strict-empty-range", "SELECT id FROM tight WHERE n > 5 AND n < 6", "SELECT id FROM tight WHERE n <> n", false},
		{"check-typeof-strict-bound", "SELECT id FROM checked WHERE n > 5", "SELECT id FROM checked WHERE n >= 6", false},
		{"rowid-strict-bound", "SELECT n FROM loose WHERE id > 2", "SELECT n FROM loose WHERE id >= 3", false},
		{"count-strict-bound", "SELECT g FROM loose GROUP BY g HAVING count(*) > 1", "SELECT g FROM loose GROUP BY g HAVING count(*) >= 2", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := affinityDiffers(ctx, t, c.ref, c.cand); got != c.differ {
				t.Fatalf("real SQLite tells the pair apart: %v, the case says %v", got, c.differ)
			}
			opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: time.Second}}
			v, err := equivalence.Judge(ctx, s, c.ref, c.cand, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.differ {
				if v.Label.Proved() {
					t.Fatalf("proved %s (rules %v), but SQLite tells them apart", v.Label, v.Rules)
				}
				ce := v.Counterexample
				if ce == nil {
					t.Fatalf("verdict %s without a counterexample; want one", v.Label)
				}
				if !slices.Contains(ce.Needs, refute.NeedsNonInteger) {
					t.Errorf("counterexample needs %q, want it to name the non-integer: %s", ce.Needs, strings.Join(ce.Inserts, " "))
				}
				// The counterexample loads on real SQLite and tells them apart.
				mem, err := sql.Open("sqlite", ":memory:")
				if err != nil {
					t.Fatal(err)
				}
				defer mem.Close()
				mem.SetMaxOpenConns(1)
				if _, err := mem.Exec(affinityDDL + strings.Join(ce.Inserts, "\n")); err != nil {
					t.Fatalf("counterexample does not load: %v", err)
				}
				a, errA := sqlitetest.Query(ctx, mem, c.ref)
				b, errB := sqlitetest.Query(ctx, mem, c.cand)
				if errA != nil || errB != nil || sameBag(a, b) {
					t.Errorf("counterexample %q does not tell them apart on SQLite: %v %v (%v / %v)", ce.Inserts, a, b, errA, errB)
				}
				return
			}
			if v.Label != equivalence.Equivalent {
				t.Fatalf("verdict %s, want equivalent (rules %v)", v.Label, v.Rules)
			}
		})
	}
}

// affinityDiffers is the truth: whether SQLite tells the pair apart on
// one of affinityData.
func affinityDiffers(ctx context.Context, t *testing.T, ref, cand string) bool {
	for _, data := range affinityData {
		mem, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		mem.SetMaxOpenConns(1)
		if _, err := mem.Exec(affinityDDL); err != nil {
			t.Fatal(err)
		}
		if _, err := mem.Exec(data); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		a, errA := sqlitetest.Query(ctx, mem, ref)
		b, errB := sqlitetest.Query(ctx, mem, cand)
		mem.Close()
		if errA != nil || errB != nil {
			t.Fatalf("real SQLite: %v / %v", errA, errB)
		}
		if !sameBag(a, b) {
			return true
		}
	}
	return false
}

func sameBag(a, b [][]string) bool {
	key := func(rs [][]string) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = strings.Join(r, "\x00")
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

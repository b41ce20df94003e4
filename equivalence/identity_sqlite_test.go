package equivalence_test

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// identityCase is a pair the judge must not prove (prove false), or a
// nearby one it must prove (prove true). engine is a database (INSERTs)
// on which the engine itself shows the truth: the two results differ
// for a pair not to prove, agree for one to prove.
type identityCase struct {
	name   string
	a, b   string
	prove  bool
	engine string
}

// handSchema loads ddl under dialect d and sets column collations by
// hand: colls maps "table.column" to the collation, with nondeterministic
// ones marked so (the loader's reading of COLLATE is another change).
func handSchema(t *testing.T, ddl string, d catalog.Dialect, colls map[string]string, nondet map[string]bool) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(ddl, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range s.Tables {
		for i := range tb.Columns {
			c := &tb.Columns[i]
			key := tb.Name + "." + c.Name
			if coll, ok := colls[key]; ok {
				c.Collation = coll
				c.Nondeterministic = nondet[key]
			}
		}
	}
	return s
}

func judgeIdentity(t *testing.T, s *catalog.Schema, a, b string) equivalence.Verdict {
	t.Helper()
	v, err := equivalence.Judge(context.Background(), s, a, b, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func proved(v equivalence.Verdict) bool {
	return v.Label == equivalence.Equivalent || v.Label == equivalence.EquivalentUnderAssumptions
}

// sameBagText compares two results as bags of rows, values as text.
func sameBagText(x, y [][]string) bool {
	key := func(rs [][]string) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = strings.Join(r, "\x00")
		}
		sort.Strings(out)
		return out
	}
	return strings.Join(key(x), "\x01") == strings.Join(key(y), "\x01")
}

// liteDiffer loads ddl and inserts into a fresh SQLite and says whether
// a and b return different results there.
func liteDiffer(t *testing.T, ddl, inserts, a, b string) bool {
	t.Helper()
	rs := liteRun(t, ddl, inserts, a, b)
	return !sameBagText(rs[0], rs[1])
}

// liteRun loads ddl and inserts into a fresh in-memory SQLite and
// returns each query's rows in the engine's order.
func liteRun(t *testing.T, ddl, inserts string, queries ...string) [][][]string {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, ddl+"\n"+inserts); err != nil {
		t.Fatalf("load: %v", err)
	}
	out := make([][][]string, len(queries))
	for i, q := range queries {
		if out[i], err = sqlitetest.Query(ctx, db, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return out
}

// TestNocaseEqualityNotIdentitySQLite: under COLLATE NOCASE, = is not
// identity ('abc' = 'ABC'). The judge must not substitute a column for
// the literal or the column it was equated with, nor call two such
// equalities with unequal constants a contradiction; the same pairs over
// a column of the default collation are still proved. Each verdict is
// checked on SQLite: the engine tells the unproved pairs apart on the
// database given, agrees on the proved ones, and confirms every
// counterexample the judge reports.
func TestNocaseEqualityNotIdentitySQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id integer PRIMARY KEY, name text COLLATE NOCASE, plain text);
CREATE TABLE u (id integer PRIMARY KEY, label text);`
	s := handSchema(t, ddl, catalog.SQLite, map[string]string{"t.name": "NOCASE"}, map[string]bool{"t.name": true})
	cases := []identityCase{
		{name: "contradiction", a: "SELECT count(*) FROM t WHERE name = 'abc' AND name = 'ABC'", b: "SELECT count(*) FROM t WHERE 1 = 0",
			engine: "INSERT INTO t VALUES (1, 'abc', 'abc');"},
		{name: "contradiction/default", a: "SELECT count(*) FROM t WHERE plain = 'abc' AND plain = 'ABC'", b: "SELECT count(*) FROM t WHERE 1 = 0", prove: true,
			engine: "INSERT INTO t VALUES (1, 'abc', 'abc'), (2, 'ABC', 'ABC');"},
		{name: "pinned output", a: "SELECT name FROM t WHERE name = 'abc'", b: "SELECT 'abc' FROM t WHERE name = 'abc'",
			engine: "INSERT INTO t VALUES (1, 'ABC', 'x');"},
		{name: "pinned output/default", a: "SELECT plain FROM t WHERE plain = 'abc'", b: "SELECT 'abc' FROM t WHERE plain = 'abc'", prove: true,
			engine: "INSERT INTO t VALUES (1, 'ABC', 'abc'), (2, 'abc', 'ABC');"},
		{name: "join substitution", a: "SELECT t.name FROM t JOIN u ON t.name = u.label", b: "SELECT u.label FROM t JOIN u ON t.name = u.label",
			engine: "INSERT INTO t VALUES (1, 'ABC', 'x'); INSERT INTO u VALUES (1, 'abc');"},
		{name: "join substitution/default", a: "SELECT t.plain FROM t JOIN u ON t.plain = u.label", b: "SELECT u.label FROM t JOIN u ON t.plain = u.label", prove: true,
			engine: "INSERT INTO t VALUES (1, 'ABC', 'abc'); INSERT INTO u VALUES (1, 'abc'), (2, 'ABC');"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			differ := liteDiffer(t, ddl, c.engine, c.a, c.b)
			if differ == c.prove {
				t.Fatalf("engine: results differ = %v on %s, the case expects %v", differ, c.engine, !c.prove)
			}
			v := judgeIdentity(t, s, c.a, c.b)
			if proved(v) != c.prove {
				t.Fatalf("judged %s (rules %v), want proved = %v", v.Label, v.Rules, c.prove)
			}
			if ce := v.Counterexample; ce != nil {
				if c.prove {
					t.Fatalf("counterexample for a pair the engine agrees on: %v", ce.Inserts)
				}
				if !liteDiffer(t, ddl, strings.Join(ce.Inserts, "\n"), c.a, c.b) {
					t.Fatalf("counterexample does not tell the queries apart on SQLite: %v", ce.Inserts)
				}
			}
			t.Logf("%s", v.Label)
		})
	}
}

// TestNocaseKeyCounterexamplesLegalSQLite: a key under COLLATE NOCASE
// is unique case-insensitively, so a counterexample may not hold 'abc'
// and 'ABC' as two of its keys (SQLite refuses the second). Over such a
// key, a self-join on it is the table on every database SQLite
// accepts: the judge must not call the pair different, and any
// counterexample it reports must load into SQLite and tell them apart.
func TestNocaseKeyCounterexamplesLegalSQLite(t *testing.T) {
	// NOT NULL: a rowid table's text key may otherwise hold NULL in SQLite,
	// which the self-join drops (TestSQLiteNullablePrimaryKey).
	const ddl = `CREATE TABLE k (name text COLLATE NOCASE NOT NULL PRIMARY KEY, v integer);`
	s := handSchema(t, ddl, catalog.SQLite, map[string]string{"k.name": "NOCASE"}, map[string]bool{"k.name": true})
	a := "SELECT count(*) FROM k x JOIN k y ON x.name = y.name WHERE x.name IN ('abc', 'ABC', 'x') OR x.v > 0"
	b := "SELECT count(*) FROM k WHERE name IN ('abc', 'ABC', 'x') OR v > 0"
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, ddl+"\nINSERT INTO k VALUES ('abc', 1);"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO k VALUES ('ABC', 2)"); err == nil {
		t.Fatal("SQLite accepted 'ABC' beside 'abc' in a NOCASE key")
	}
	if liteDiffer(t, ddl, "INSERT INTO k VALUES ('abc', 1), ('x', 0), ('Y', 3);", a, b) {
		t.Fatal("engine: the pair differs on a legal database")
	}
	for seed := uint64(1); seed <= 5; seed++ {
		v, err := equivalence.Judge(ctx, s, a, b, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 300 * time.Millisecond, Seed: seed}})
		if err != nil {
			t.Fatal(err)
		}
		if ce := v.Counterexample; ce != nil {
			if !liteDiffer(t, ddl, strings.Join(ce.Inserts, "\n"), a, b) {
				t.Fatalf("seed %d: counterexample does not tell the queries apart on SQLite: %v", seed, ce.Inserts)
			}
		}
		t.Logf("seed %d: %s %v", seed, v.Label, v.Search)
		if v.Label == equivalence.NotEquivalent {
			t.Fatalf("seed %d: judged not_equivalent on %v", seed, v.Counterexample.Inserts)
		}
	}
}

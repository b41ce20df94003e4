package equivalence_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Regression tests for issue 18, causes 13-16 (query semantics): each
// pair's truth is shown on a real PostgreSQL 15 before the judge's
// verdict on it is checked.

const semDDL = `CREATE TABLE t (a int PRIMARY KEY, b int, c int NOT NULL, x float8, s text);
CREATE TABLE u (id int PRIMARY KEY, v int);`

// semPG starts a throwaway cluster holding semDDL and returns a
// connection to it.
func semPG(t *testing.T, ctx context.Context) *pgx.Conn {
	t.Helper()
	conn, _ := pgLoaded(t, ctx, semDDL)
	return conn
}

func semSchema(t *testing.T) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(semDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// semLoad empties the tables and runs the inserts.
func semLoad(t *testing.T, ctx context.Context, conn *pgx.Conn, inserts ...string) {
	t.Helper()
	pgRefill(t, ctx, conn, "t, u", inserts...)
}

// semRows runs q on PostgreSQL, failing the test on an error.
func semRows(t *testing.T, ctx context.Context, conn *pgx.Conn, q string) [][]string {
	t.Helper()
	r := pgQuery(ctx, conn, q)
	if r.err != nil {
		t.Fatalf("%s: %v", q, r.err)
	}
	return r.rows
}

func semJudge(t *testing.T, s *catalog.Schema, ref, cand string) equivalence.Verdict {
	t.Helper()
	// A generous search budget and a fixed seed: the machine may be busy,
	// and a refutation the test expects must not depend on it.
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 5 * time.Second, MaxInstances: 400, Seed: 18}}
	v, err := equivalence.Judge(context.Background(), s, ref, cand, opts)
	if err != nil {
		t.Fatalf("judge %q vs %q: %v", ref, cand, err)
	}
	return v
}

// TestSelfJoinOnKeyNullableColumn (cause 16): y.a = z.a AND y.b = z.b,
// a the key and b nullable, drops the rows whose b is NULL, so the
// self-join is t WHERE b IS NOT NULL, not t. The judge must refute the
// pair with a counterexample PostgreSQL confirms, and still prove the
// pairs where the other column is NOT NULL or the filter is written.
func TestSelfJoinOnKeyNullableColumn(t *testing.T) {
	ctx := context.Background()
	conn := semPG(t, ctx)
	s := semSchema(t)
	rows := []string{"INSERT INTO t VALUES (1, NULL, 10, 1.5, 'x'), (2, 7, 20, NULL, 'y'), (3, NULL, 30, 2, NULL)"}
	differ := []struct{ ref, cand string }{
		{"SELECT y.a FROM t y JOIN t z ON y.a = z.a AND y.b = z.b", "SELECT a FROM t"},
		{"SELECT y.a FROM t y, t z WHERE y.a = z.a AND y.b = z.b", "SELECT a FROM t"},
		{"SELECT a FROM t y WHERE EXISTS (SELECT 1 FROM t z WHERE y.a = z.a AND y.b = z.b)", "SELECT a FROM t"},
		{"SELECT a FROM t WHERE (a, b) IN (SELECT a, b FROM t)", "SELECT a FROM t"},
		{"SELECT y.a, z.s FROM t y JOIN t z ON y.a = z.a AND y.b = z.b AND y.x = z.x", "SELECT a, s FROM t WHERE b IS NOT NULL"},
	}
	for _, c := range differ {
		semLoad(t, ctx, conn, rows...)
		if !bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
			t.Fatalf("PostgreSQL does not tell %q and %q apart on %v", c.ref, c.cand, rows)
		}
		v := semJudge(t, s, c.ref, c.cand)
		if v.Label.Proved() {
			t.Errorf("%s vs %s: %s (rules %v), but PostgreSQL tells them apart", c.ref, c.cand, v.Label, v.Rules)
			continue
		}
		if v.Label != equivalence.NotEquivalent || v.Counterexample == nil {
			t.Errorf("%s vs %s: %s, want not_equivalent with a counterexample", c.ref, c.cand, v.Label)
			continue
		}
		semLoad(t, ctx, conn, v.Counterexample.Inserts...)
		if !bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
			t.Errorf("%s vs %s: PostgreSQL returns the same rows on the counterexample %v", c.ref, c.cand, v.Counterexample.Inserts)
		}
	}
	same := []struct{ ref, cand string }{
		{"SELECT y.a FROM t y JOIN t z ON y.a = z.a AND y.c = z.c", "SELECT a FROM t"},
		{"SELECT y.a FROM t y JOIN t z ON y.a = z.a AND y.b = z.b", "SELECT a FROM t WHERE b IS NOT NULL"},
		{"SELECT a FROM t y WHERE EXISTS (SELECT 1 FROM t z WHERE y.a = z.a AND y.b = z.b)", "SELECT a FROM t WHERE b IS NOT NULL"},
		{"SELECT y.a, z.s FROM t y JOIN t z ON y.a = z.a", "SELECT a, s FROM t"},
	}
	for _, c := range same {
		semLoad(t, ctx, conn, rows...)
		if bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
			t.Fatalf("PostgreSQL tells %q and %q apart", c.ref, c.cand)
		}
		if v := semJudge(t, s, c.ref, c.cand); v.Label != equivalence.Equivalent {
			t.Errorf("%s vs %s: %s, want equivalent (the self-join on a key with NOT NULL or filtered columns)", c.ref, c.cand, v.Label)
		}
	}
}

// TestVolatileCallsNotJudged (cause 13): two calls of random() are two
// values, and a derived column read twice is one; PostgreSQL shows both.
// No pair with a volatile call is proved, none refuted on a made-up
// value, and the verdict names the function. now() is stable: one value
// throughout a statement, judged as before.
func TestVolatileCallsNotJudged(t *testing.T) {
	ctx := context.Background()
	conn := semPG(t, ctx)
	s := semSchema(t)
	if got := semRows(t, ctx, conn, "SELECT count(*) FROM generate_series(1, 1000) g WHERE random() = random()"); got[0][0] == "n:1000" {
		t.Fatalf("random() = random() held 1000 times of 1000: %v", got)
	}
	if got := semRows(t, ctx, conn, "SELECT count(*) FROM (SELECT random() AS r FROM generate_series(1, 1000) g) q WHERE r = r"); got[0][0] != "n:1000" {
		t.Fatalf("a derived random() column read twice differed from itself: %v", got)
	}
	if got := semRows(t, ctx, conn, "SELECT count(*) FROM generate_series(1, 1000) g WHERE now() = now() AND statement_timestamp() = statement_timestamp()"); got[0][0] != "n:1000" {
		t.Fatalf("now() differed within a statement: %v", got)
	}
	semLoad(t, ctx, conn, "INSERT INTO t VALUES (1, NULL, 10, 0.5, 'x'), (2, 7, 20, 0.25, 'y')")
	pairs := []struct{ ref, cand string }{
		{"SELECT random() = random()", "SELECT true"},
		{"SELECT random(), random()", "SELECT r, r FROM (SELECT random() AS r) q"},
		{"WITH w AS (SELECT random() AS r) SELECT r, r FROM w", "SELECT random(), random()"},
		{"SELECT count(*) FROM t WHERE random() = random()", "SELECT count(*) FROM t"},
		{"SELECT a, random() FROM t", "SELECT a, random() FROM t"},
		{"SELECT a FROM t WHERE x < random()", "SELECT a FROM t WHERE random() > x"},
		{"SELECT a FROM t WHERE x < random() AND x < random()", "SELECT a FROM t WHERE x < random()"},
	}
	for _, p := range pairs {
		for _, q := range []string{p.ref, p.cand} {
			if r := pgQuery(ctx, conn, q); r.err != nil {
				t.Fatalf("%s: %v", q, r.err)
			}
		}
		v := semJudge(t, s, p.ref, p.cand)
		if v.Label.Proved() || v.Counterexample != nil {
			t.Errorf("%s vs %s: %s (counterexample %v), want no proof and no counterexample", p.ref, p.cand, v.Label, v.Counterexample)
		}
		named := false
		for _, d := range v.Differences {
			if d.Component == equivalence.ComponentVolatile && strings.Contains(d.Reference+d.Candidate, "random()") {
				named = true
			}
		}
		if !named {
			t.Errorf("%s vs %s: the verdict does not name random(): %+v", p.ref, p.cand, v.Differences)
		}
	}
	// Stable calls are judged: one value within each statement.
	stable := []struct{ ref, cand string }{
		{"SELECT a, now() FROM t WHERE c > 5", "SELECT a, now() FROM t WHERE c >= 6"},
		{"SELECT n, n FROM (SELECT now() AS n) q", "SELECT now(), now()"},
	}
	for _, p := range stable {
		// One transaction: now() is its start time in both queries.
		if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		r, c := semRows(t, ctx, conn, p.ref), semRows(t, ctx, conn, p.cand)
		if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		if bagsDiffer(r, c, nil) {
			t.Fatalf("PostgreSQL tells %q and %q apart", p.ref, p.cand)
		}
		if v := semJudge(t, s, p.ref, p.cand); v.Label != equivalence.Equivalent {
			t.Errorf("%s vs %s: %s, want equivalent (now() is stable)", p.ref, p.cand, v.Label)
		}
	}
}

// TestDataModifyingStatementsNotJudged (cause 14): a data-modifying WITH
// query runs whether or not the query reads it, and returns rows like a
// read-only query does; a statement with side effects is refused, never
// judged equivalent, in either position.
func TestDataModifyingStatementsNotJudged(t *testing.T) {
	ctx := context.Background()
	conn := semPG(t, ctx)
	s := semSchema(t)
	semLoad(t, ctx, conn, "INSERT INTO t VALUES (1, NULL, 10, 0.5, 'x'), (2, 7, 20, 0.25, 'y')", "INSERT INTO u VALUES (1, 1)")
	readOnly := "SELECT a FROM t WHERE a = 1"
	deleting := "WITH d AS (DELETE FROM t WHERE a = 1 RETURNING a) SELECT a FROM t WHERE a = 1"
	// The same rows (the statement's snapshot), and the row is gone.
	if bagsDiffer(semRows(t, ctx, conn, readOnly), semRows(t, ctx, conn, deleting), nil) {
		t.Fatal("the DELETE CTE query returned other rows than the read-only one")
	}
	if got := semRows(t, ctx, conn, "SELECT count(*) FROM t WHERE a = 1"); got[0][0] != "n:0" {
		t.Fatalf("the unreferenced DELETE CTE did not delete: %v", got)
	}
	semRows(t, ctx, conn, "WITH w AS (UPDATE u SET v = 9) SELECT a FROM t")
	if got := semRows(t, ctx, conn, "SELECT v FROM u"); got[0][0] != "n:9" {
		t.Fatalf("the unreferenced UPDATE CTE did not update: %v", got)
	}
	modifying := []string{
		deleting,
		"WITH d AS (DELETE FROM t WHERE a = 1 RETURNING a) SELECT a FROM d",
		"WITH w AS (UPDATE u SET v = 1) SELECT a FROM t WHERE a = 1",
		"WITH i AS (INSERT INTO u VALUES (5, 5) RETURNING id) SELECT a FROM t WHERE a = 1",
		"SELECT a FROM (WITH d AS (DELETE FROM t RETURNING a) SELECT a FROM d) q WHERE a = 1",
		"DELETE FROM t WHERE a <> 1 RETURNING a",
		"UPDATE t SET c = c WHERE a = 1 RETURNING a",
		"SELECT a FROM t WHERE a = 1 FOR UPDATE",
		"SELECT a INTO TEMP kept FROM t WHERE a = 1",
		"CREATE TABLE kept2 AS SELECT a FROM t WHERE a = 1",
		"SELECT a FROM t WHERE a = 1 AND nextval('seq') > 0",
	}
	for _, q := range modifying {
		if _, err := equivalence.Judge(ctx, s, q, readOnly, equivalence.Options{}); !errors.Is(err, build.ErrSideEffects) {
			t.Errorf("reference %s: error %v, want one wrapping build.ErrSideEffects", q, err)
		}
		v := semJudge(t, s, readOnly, q)
		if v.Label != equivalence.Unknown || len(v.Differences) == 0 || !strings.Contains(v.Differences[0].Candidate, "side effects") {
			t.Errorf("candidate %s: %s %+v, want unknown naming the side effects", q, v.Label, v.Differences)
		}
	}
	// A read-only WITH query is still judged.
	semLoad(t, ctx, conn, "INSERT INTO t VALUES (1, NULL, 10, 0.5, 'x'), (2, 7, 20, 0.25, 'y')")
	withRead := "WITH d AS (SELECT a FROM t WHERE a = 1) SELECT a FROM d"
	if bagsDiffer(semRows(t, ctx, conn, readOnly), semRows(t, ctx, conn, withRead), nil) {
		t.Fatal("PostgreSQL tells the read-only CTE apart")
	}
	if v := semJudge(t, s, readOnly, withRead); v.Label != equivalence.Equivalent {
		t.Errorf("read-only CTE: %s, want equivalent", v.Label)
	}
}

// TestOrderedSubqueryFeedsOrderSensitiveConsumer (cause 15): an ORDER BY
// in a derived table decides what string_agg, a float sum or
// row_number() OVER () above it returns on PostgreSQL, so it is not
// dropped: such a pair is not proved (and not refuted on an order the
// engine does not promise). Order-insensitive consumers still drop it.
func TestOrderedSubqueryFeedsOrderSensitiveConsumer(t *testing.T) {
	ctx := context.Background()
	conn := semPG(t, ctx)
	s := semSchema(t)
	// Rows stored in an order unlike the sort order of c, s and x:
	// c = 3, 1, 2 holds x = 1, 1e20, -1e20, whose float sum is 0 in the
	// stored order and 1 in the order of c.
	rows := []string{"INSERT INTO t VALUES (1, NULL, 3, 1, 'b'), (2, 7, 1, 1e20, 'c'), (3, 5, 2, -1e20, 'a')",
		"INSERT INTO t SELECT g, NULL, g, NULL, md5(g::text) FROM generate_series(4, 60) g"}
	semLoad(t, ctx, conn, rows...)
	// The ordered subquery's result is the one ORDER BY inside the
	// aggregate gives: stable.
	if bagsDiffer(semRows(t, ctx, conn, "SELECT string_agg(s, ',') FROM (SELECT s FROM t ORDER BY s) q"),
		semRows(t, ctx, conn, "SELECT string_agg(s, ',' ORDER BY s) FROM t"), nil) {
		t.Fatal("string_agg over an ordered subquery is not the ordered aggregate")
	}
	differ := []struct{ ref, cand string }{
		{"SELECT string_agg(s, ',') FROM (SELECT s FROM t ORDER BY s) q", "SELECT string_agg(s, ',') FROM t"},
		{"SELECT string_agg(s, ',') FROM (SELECT s FROM t ORDER BY s) q", "SELECT string_agg(s, ',') FROM (SELECT s FROM t ORDER BY s DESC) q"},
		{"SELECT array_agg(a) FROM (SELECT a FROM t ORDER BY c) q", "SELECT array_agg(a) FROM t"},
		{"SELECT sum(x) FROM (SELECT x FROM t ORDER BY c) q", "SELECT sum(x) FROM t"},
		{"SELECT a, row_number() OVER () FROM (SELECT a FROM t ORDER BY s) q", "SELECT a, row_number() OVER () FROM t"},
		{"SELECT q.a FROM (SELECT a FROM t ORDER BY s) q LIMIT 3", "SELECT a FROM t LIMIT 3"},
	}
	for _, c := range differ {
		semLoad(t, ctx, conn, rows...)
		if !bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
			t.Fatalf("PostgreSQL does not tell %q and %q apart", c.ref, c.cand)
		}
		v := semJudge(t, s, c.ref, c.cand)
		if v.Label.Proved() {
			t.Errorf("%s vs %s: %s (rules %v), but PostgreSQL tells them apart", c.ref, c.cand, v.Label, v.Rules)
		}
		if v.Counterexample != nil {
			// Any counterexample must hold on PostgreSQL too.
			semLoad(t, ctx, conn, v.Counterexample.Inserts...)
			if !bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
				t.Errorf("%s vs %s: PostgreSQL returns the same rows on the counterexample %v", c.ref, c.cand, v.Counterexample.Inserts)
			}
		}
	}
	same := []struct{ ref, cand string }{
		{"SELECT count(s) FROM (SELECT s FROM t ORDER BY s) q", "SELECT count(s) FROM t"},
		{"SELECT sum(c), max(s) FROM (SELECT c, s FROM t ORDER BY s) q", "SELECT sum(c), max(s) FROM t"},
		{"SELECT string_agg(s, ',') FROM (SELECT s FROM t ORDER BY s) q", "SELECT string_agg(s, ',') FROM (SELECT s FROM t WHERE true ORDER BY s) q"},
		{"SELECT a, row_number() OVER (ORDER BY a) FROM (SELECT a FROM t ORDER BY s) q", "SELECT a, row_number() OVER (ORDER BY a) FROM t"},
	}
	for _, c := range same {
		semLoad(t, ctx, conn, rows...)
		if bagsDiffer(semRows(t, ctx, conn, c.ref), semRows(t, ctx, conn, c.cand), nil) {
			t.Fatalf("PostgreSQL tells %q and %q apart", c.ref, c.cand)
		}
		if v := semJudge(t, s, c.ref, c.cand); v.Label != equivalence.Equivalent {
			t.Errorf("%s vs %s: %s, want equivalent (the consumer reads no order)", c.ref, c.cand, v.Label)
		}
	}
}

// TestOrderedScalarSubquerySQLite (cause 15, SQLite): a scalar subquery
// of several rows yields its first row in SQLite, so its ORDER BY picks
// the value and is kept; the judge refutes a reversed order with a
// counterexample SQLite confirms, and proves the same order equal.
func TestOrderedScalarSubquerySQLite(t *testing.T) {
	ctx := context.Background()
	ddl := "CREATE TABLE t (a INTEGER PRIMARY KEY, c INTEGER NOT NULL, s TEXT NOT NULL); CREATE TABLE u (id INTEGER PRIMARY KEY)"
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	rows := []string{"INSERT INTO t VALUES (1, 2, 'b'), (2, 1, 'a'), (3, 3, 'c');", "INSERT INTO u VALUES (1);"}
	asc, desc, none := "SELECT id, (SELECT s FROM t ORDER BY c) FROM u", "SELECT id, (SELECT s FROM t ORDER BY c DESC) FROM u", "SELECT id, (SELECT s FROM t) FROM u"
	for _, cand := range []string{desc, none} {
		r, c, _, done, err := liteRecheckRun(ctx, s, ddl, rows, asc, cand)
		if err != nil {
			t.Fatal(err)
		}
		done()
		if r.err != nil || c.err != nil || !bagsDiffer(r.rows, c.rows, nil) {
			t.Fatalf("SQLite does not tell %q and %q apart: %v %v (%v %v)", asc, cand, r.rows, c.rows, r.err, c.err)
		}
		v := semJudge(t, s, asc, cand)
		if v.Label.Proved() {
			t.Errorf("%s vs %s: %s, but SQLite tells them apart", asc, cand, v.Label)
			continue
		}
		if v.Counterexample == nil {
			continue // unknown: the executor does not promise SQLite's scan order
		}
		r, c, _, done, err = liteRecheckRun(ctx, s, ddl, v.Counterexample.Inserts, asc, cand)
		if err != nil {
			t.Fatal(err)
		}
		done()
		if !bagsDiffer(r.rows, c.rows, nil) {
			t.Errorf("%s vs %s: SQLite returns the same rows on the counterexample %v", asc, cand, v.Counterexample.Inserts)
		}
	}
	if v := semJudge(t, s, asc, "SELECT u.id, (SELECT t.s FROM t ORDER BY t.c ASC) FROM u"); v.Label != equivalence.Equivalent {
		t.Errorf("the same ordered scalar subquery: %s, want equivalent", v.Label)
	}
}

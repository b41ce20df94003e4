package equivalence_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Issue 33, "not_equivalent needs evidence": a pair is labelled not
// equivalent only on a database the engine tells the two apart on, or
// for a difference of shape every database shows (a different number of
// output columns). Pairs that differ only in a LIMIT spelling, in a sort
// direction the filter pins, or in an ORDER BY over rows that all tie,
// return the same rows on the engine and must not be labelled different;
// pairs that do differ must be refuted with a database that replays.

const evidenceDDL = `CREATE TABLE t (id int PRIMARY KEY, g int, s text, b boolean);`

// evidenceRows exercise every case below: several groups, NULLs, ties.
const evidenceRows = `INSERT INTO t VALUES (1, 1, NULL, true), (2, 1, NULL, false), (3, 2, 'x', true), (4, 2, 'y', NULL), (5, 3, NULL, true);`

// evidenceCase is a pair and what the engine shows of it: same says the
// results agree on evidenceRows (as lists where the reference is
// ordered), and the judge must then not label it not_equivalent (prove:
// and must prove it); otherwise the judge must refute it with a
// counterexample the engine replays.
type evidenceCase struct {
	name  string
	a, b  string
	same  bool
	prove bool
}

func TestEvidenceRulePostgres(t *testing.T) {
	s, err := catalog.LoadDDL(evidenceDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgConnect(t)
	q := func(extra string) string { return "SELECT id, g FROM t " + extra }
	cases := []evidenceCase{
		{name: "offset 0", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2 OFFSET 0"), same: true, prove: true},
		{name: "offset null", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2 OFFSET NULL"), same: true, prove: true},
		{name: "offset 1-1", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2 OFFSET 1-1"), same: true, prove: true},
		{name: "limit 2.5 rounds", a: q("ORDER BY id LIMIT 3"), b: q("ORDER BY id LIMIT 2.5"), same: true, prove: true},
		{name: "limit float 2.5 rounds to even", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2.5::float8"), same: true, prove: true},
		{name: "limit subquery", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT (SELECT 2)"), same: true, prove: true},
		{name: "limit quoted", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT '2'"), same: true, prove: true},
		{name: "limit null", a: q("ORDER BY id"), b: q("ORDER BY id LIMIT NULL"), same: true, prove: true},
		{name: "limit above a bounded input", a: q("WHERE id IN (1, 2, 3) ORDER BY id LIMIT 20"), b: q("WHERE id IN (1, 2, 3) ORDER BY id LIMIT 25"), same: true},
		{name: "flipped key pinned", a: q("WHERE g = 2 ORDER BY g, id"), b: q("WHERE g = 2 ORDER BY g DESC, id"), same: true},
		{name: "flipped key all null", a: "SELECT id FROM t WHERE s IS NULL ORDER BY s, id", b: "SELECT id FROM t WHERE s IS NULL ORDER BY s DESC, id", same: true},
		{name: "unordered where every row ties", a: q("WHERE g = 2 ORDER BY g"), b: q("WHERE g = 2"), same: true},
		{name: "limit over one group", a: "SELECT DISTINCT g FROM t WHERE g = 2 LIMIT 1", b: "SELECT DISTINCT g FROM t WHERE g = 2", same: true},
		// Differences the engine shows: each refuted, its database replayed.
		{name: "limit 1 vs 2", a: q("ORDER BY id LIMIT 1"), b: q("ORDER BY id LIMIT 2")},
		{name: "limit 20 vs 25", a: q("ORDER BY id LIMIT 20"), b: q("ORDER BY id LIMIT 25")},
		{name: "offset 1 vs 2", a: q("ORDER BY id LIMIT 1 OFFSET 1"), b: q("ORDER BY id LIMIT 1 OFFSET 2")},
		{name: "direction", a: q("ORDER BY id"), b: q("ORDER BY id DESC")},
		{name: "missing order by", a: q("ORDER BY id"), b: q("")},
		{name: "limit 2.4 vs 3", a: q("ORDER BY id LIMIT 3"), b: q("ORDER BY id LIMIT 2.4")},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, rb := pgEvidence(t, ctx, conn, evidenceRows, c.a, c.b)
			if c.same && !sameResult(ra, rb, strings.Contains(c.b, "ORDER BY")) {
				t.Fatalf("engine: %v vs %v; the case expects the same result", ra, rb)
			}
			v := judgeIdentity(t, s, c.a, c.b)
			checkEvidence(t, c, v, func(inserts string) ([][]string, [][]string) {
				return pgEvidence(t, ctx, conn, inserts, c.a, c.b)
			})
		})
	}
}

func TestEvidenceRuleSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id integer PRIMARY KEY, g integer, s text, b boolean);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	q := func(extra string) string { return "SELECT id, g FROM t " + extra }
	cases := []evidenceCase{
		{name: "limit a, b", a: q("ORDER BY id LIMIT 1"), b: q("ORDER BY id LIMIT 0, 1"), same: true, prove: true},
		{name: "negative limits", a: q("ORDER BY id LIMIT -1"), b: q("ORDER BY id LIMIT -2"), same: true, prove: true},
		{name: "negative limit is none", a: q("ORDER BY id"), b: q("ORDER BY id LIMIT -1"), same: true, prove: true},
		{name: "negative offset is 0", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2 OFFSET -3"), same: true, prove: true},
		{name: "limit quoted", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT '2'"), same: true, prove: true},
		{name: "limit 2.0", a: q("ORDER BY id LIMIT 2"), b: q("ORDER BY id LIMIT 2.0"), same: true, prove: true},
		{name: "flipped key pinned", a: q("WHERE g = 2 ORDER BY g, id"), b: q("WHERE g = 2 ORDER BY g DESC, id"), same: true},
		{name: "limit above a bounded input", a: q("WHERE id IN (1, 2, 3) ORDER BY id LIMIT 20"), b: q("WHERE id IN (1, 2, 3) ORDER BY id LIMIT 25"), same: true},
		{name: "limit 1 vs 2", a: q("ORDER BY id LIMIT 1"), b: q("ORDER BY id LIMIT 2")},
		{name: "limit 20 vs 25", a: q("ORDER BY id LIMIT 20"), b: q("ORDER BY id LIMIT 25")},
		{name: "direction", a: q("ORDER BY id"), b: q("ORDER BY id DESC")},
		{name: "missing order by", a: q("ORDER BY g DESC"), b: q("")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, rb := liteEvidence(t, ddl, evidenceRows, c.a, c.b)
			if c.same && !sameResult(ra, rb, strings.Contains(c.b, "ORDER BY")) {
				t.Fatalf("engine: %v vs %v; the case expects the same result", ra, rb)
			}
			v := judgeIdentity(t, s, c.a, c.b)
			checkEvidence(t, c, v, func(inserts string) ([][]string, [][]string) {
				return liteEvidence(t, ddl, inserts, c.a, c.b)
			})
		})
	}
}

// checkEvidence asserts the verdict c expects, replaying a counterexample
// through run (the database's INSERTs to both results).
func checkEvidence(t *testing.T, c evidenceCase, v equivalence.Verdict, run func(inserts string) ([][]string, [][]string)) {
	t.Helper()
	switch {
	case c.prove && !proved(v):
		t.Fatalf("judged %s (%s), want proved", v.Label, v.Summary())
	case c.same && v.Label == equivalence.NotEquivalent:
		t.Fatalf("judged not_equivalent for queries the engine returns alike: %s", v.Summary())
	case !c.same && v.Label != equivalence.NotEquivalent:
		t.Fatalf("judged %s, want not_equivalent with a counterexample: %s", v.Label, v.Summary())
	case !c.same && v.Counterexample == nil:
		t.Fatalf("not_equivalent without a database to show it: %s", v.Summary())
	}
	ce := v.Counterexample
	if ce == nil {
		return
	}
	ra, rb := run(strings.Join(ce.Inserts, "\n"))
	if ce.RowOrderOnly {
		// The engine's reference result must hold two different rows
		// in an order it imposes; the candidate the same rows.
		if !sameResult(ra, rb, false) || !orderMatters(ra) {
			t.Fatalf("row-order counterexample does not replay: reference %v, candidate %v on %v", ra, rb, ce.Inserts)
		}
		return
	}
	if sameResult(ra, rb, strings.Contains(c.a, "ORDER BY") && strings.Contains(c.b, "ORDER BY")) {
		t.Fatalf("counterexample does not replay: both return %v on %v", ra, ce.Inserts)
	}
}

// sameResult compares results as lists when ordered, else as bags.
func sameResult(a, b [][]string, ordered bool) bool {
	if !ordered {
		return sameBagText(a, b)
	}
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// orderMatters reports whether a result holds two different rows.
func orderMatters(rows [][]string) bool {
	for _, r := range rows[min(1, len(rows)):] {
		if !slices.Equal(r, rows[0]) {
			return true
		}
	}
	return false
}

// pgEvidence loads inserts over evidenceDDL in a transaction it rolls
// back and returns both queries' rows in the engine's order.
func pgEvidence(t *testing.T, ctx context.Context, conn *pgx.Conn, inserts, a, b string) ([][]string, [][]string) {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, evidenceDDL+"\n"+inserts); err != nil {
		t.Fatalf("load: %v", err)
	}
	return pgRaw(t, ctx, tx, a), pgRaw(t, ctx, tx, b)
}

// liteEvidence is pgEvidence on a fresh in-memory SQLite.
func liteEvidence(t *testing.T, ddl, inserts, a, b string) ([][]string, [][]string) {
	t.Helper()
	rs := liteRun(t, ddl, inserts, a, b)
	return rs[0], rs[1]
}

// checkEvidenceRule fails a not_equivalent verdict that has neither a
// counterexample nor a different number of output columns to rest on
// (docs/soundness.md, "The evidence rule").
func checkEvidenceRule(t *testing.T, id string, v equivalence.Verdict) {
	t.Helper()
	if v.Label != equivalence.NotEquivalent || v.Counterexample != nil {
		return
	}
	for _, d := range v.Differences {
		if d.Component == equivalence.ComponentOutputColumns {
			return
		}
	}
	t.Errorf("%s: not_equivalent with neither a counterexample nor a difference of shape: %s", id, v.Summary())
}

package equivalence_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// Regression tests for issue 33, item 5: a query PostgreSQL answers
// with an error whatever the data (1/0 folded while planning, a
// negative LIMIT or OFFSET, 'abc' read as an integer, a text that is no
// label of the enum) returns no rows to compare. No proof may read it
// as an empty result, and no counterexample may rest on rows it does
// not return (docs/soundness.md, "What "same result" means for errors").

const raiseDDL = `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE rt (id int PRIMARY KEY, n int, d date, m mood);`

var raiseRows = []string{"INSERT INTO rt VALUES (1, 1, '2020-01-01', 'ok'), (2, NULL, NULL, NULL)"}

func raisePG(t *testing.T, ctx context.Context) (*pgx.Conn, *catalog.Schema) {
	t.Helper()
	return pgLoaded(t, ctx, raiseDDL)
}

// raiseLoad empties rt and runs the inserts.
func raiseLoad(t *testing.T, ctx context.Context, conn *pgx.Conn, inserts []string) {
	t.Helper()
	pgRefill(t, ctx, conn, "rt", inserts...)
}

// TestQueriesThatRaisePG: each query's behaviour on PostgreSQL (an error
// on the empty database and on one with rows, or none) is checked first;
// then the planner's reading of it, the executor's answer on the empty
// database, and the judge's label against an empty query and a query
// returning rows.
func TestQueriesThatRaisePG(t *testing.T) {
	ctx := context.Background()
	conn, s := raisePG(t, ctx)
	const empty, rows = "SELECT id FROM rt WHERE false", "SELECT id FROM rt"
	cases := []struct {
		q      string
		raises bool // PostgreSQL fails it on both databases
		always bool // and the planner knows it always does
	}{
		{"SELECT id FROM rt WHERE n = 1/0", true, true},
		{"SELECT id FROM rt WHERE n = 1/0 AND false", true, false},
		{"SELECT id FROM rt WHERE id = 1 AND id = 2 AND n = 1/0", true, false},
		{"SELECT 1/0 FROM rt WHERE false", true, true},
		{"SELECT CASE WHEN n > 0 THEN 1/0 END FROM rt", true, false},
		{"SELECT id FROM rt WHERE false LIMIT -1", true, false},
		{"SELECT id FROM rt LIMIT 0 OFFSET -1", true, false},
		{"SELECT id FROM rt WHERE false AND n = 'abc'::int", true, true},
		{"SELECT id FROM rt WHERE false AND n = 'abc'", true, true},
		{"SELECT id FROM rt WHERE m = 'bad' AND m = 'ok'", true, true},
		{"SELECT id FROM rt WHERE d = '2020-13-01' AND false", true, true},
		// PostgreSQL folds FALSE AND ... to FALSE before it reaches 1/0:
		// no error. The planner may not know that: unknown is allowed,
		// a proof or a counterexample that does not replay is not.
		{"SELECT id FROM rt WHERE false AND n = 1/0", false, false},
		{"SELECT id FROM rt WHERE n = 2 - 1", false, false},
	}
	for _, c := range cases {
		// The engine's truth.
		for _, db := range [][]string{nil, raiseRows} {
			raiseLoad(t, ctx, conn, db)
			if err := pgQuery(ctx, conn, c.q).err; (err != nil) != c.raises {
				t.Fatalf("%s on %v: PostgreSQL error %v, the case says raises=%v", c.q, db, err, c.raises)
			}
		}
		// The planner and the executor.
		p, err := planner.Plan(ctx, s, c.q, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if c.raises && p.Raises == "" {
			t.Errorf("%s: PostgreSQL always fails it, the plan does not say it may", c.q)
		}
		if p.RaisesAlways != c.always {
			t.Errorf("%s: RaisesAlways %v, want %v (%s)", c.q, p.RaisesAlways, c.always, p.Raises)
		}
		_, xerr := exec.Execute(ctx, p, exec.Database{"rt": nil})
		switch {
		case c.always && !errors.Is(xerr, exec.ErrQuery):
			t.Errorf("%s: the executor answers %v on the empty database, PostgreSQL an error", c.q, xerr)
		case c.raises && xerr == nil:
			t.Errorf("%s: the executor returns rows on the empty database, PostgreSQL an error", c.q)
		case !c.raises && errors.Is(xerr, exec.ErrQuery):
			t.Errorf("%s: the executor fails (%v), PostgreSQL does not", c.q, xerr)
		}
		// The judge: against an empty result and against rows.
		for _, other := range []string{empty, rows} {
			v := semJudge(t, s, c.q, other)
			raiseLoad(t, ctx, conn, raiseRows)
			otherRuns := pgQuery(ctx, conn, other).err == nil
			switch {
			case c.raises && v.Label.Proved():
				t.Errorf("%s vs %s: %s (rules %v), but PostgreSQL fails the first and not the second", c.q, other, v.Label, v.Rules)
			case v.Label == equivalence.NotEquivalent && v.Counterexample != nil:
				raiseLoad(t, ctx, conn, v.Counterexample.Inserts)
				a, b := pgQuery(ctx, conn, c.q), pgQuery(ctx, conn, other)
				if (a.err != nil) == (b.err != nil) && (a.err != nil || !bagsDiffer(a.rows, b.rows, nil)) {
					t.Errorf("%s vs %s: the counterexample %v does not replay on PostgreSQL", c.q, other, v.Counterexample.Inserts)
				}
			case c.raises && otherRuns && v.Label == equivalence.NotEquivalent && v.Counterexample == nil:
				// A structural difference with an error on one side: no
				// such pair here (one column each side).
				t.Errorf("%s vs %s: not_equivalent without a counterexample", c.q, other)
			}
		}
	}
	// Negative control: a pair that does not raise is still proved.
	if v := semJudge(t, s, "SELECT id FROM rt WHERE n = 2 - 1", "SELECT id FROM rt WHERE n = 1"); v.Label != equivalence.Equivalent {
		t.Errorf("n = 2 - 1 vs n = 1: %s, want equivalent", v.Label)
	}
}

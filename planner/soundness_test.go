package planner_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/soundness"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestGoldenPlansAgreeWithRaw is part of the soundness net: every golden
// plan (testdata/plans.golden) returns what the plan built before
// normalization returns, on generated databases. A difference is a bug in
// a normalization rule or in the executor. SOUNDNESS_INSTANCES sets the
// databases per case (default 100).
func TestGoldenPlansAgreeWithRaw(t *testing.T) {
	n := soundness.Instances(100)
	ctx := context.Background()
	checked, cannot, failed := 0, 0, 0
	for _, c := range readGoldenCases(t, "testdata/plans.txt") {
		s := exampleSchema(t, c.dialect)
		raw, err1 := planner.Plan(ctx, s, c.sql, planner.Options{SkipNormalize: true})
		golden, err2 := planner.Plan(ctx, s, c.sql, planner.Options{})
		if err1 != nil || err2 != nil {
			failed++ // the golden test reports planning errors
			continue
		}
		opts := refute.Options{TrustForeignKeys: c.dialect == catalog.Postgres, Dialect: c.dialect, Seed: 7}
		res, err := refute.Agree(ctx, s, raw, golden, n, opts, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checked++
		switch {
		case res.CannotExecute && soundness.Malformed(res.Reason):
			t.Errorf("%s: a plan is broken: %s\nraw:\n%s\ngolden:\n%s", c.name, res.Reason, raw.Explain(), golden.Explain())
		case res.CannotExecute:
			cannot++
			t.Logf("%s: %s", c.name, res.Reason)
		case res.Counterexample != nil:
			t.Errorf("%s: the golden plan differs from the raw plan (rules %v):\n%s\n%s\nraw:\n%s\ngolden:\n%s", c.name, golden.Rules, c.sql, res.Counterexample, raw.Explain(), golden.Explain())
		}
	}
	if checked < 40 {
		t.Fatalf("only %d golden plans checked", checked)
	}
	t.Logf("%d golden plans checked against their raw plans on %d databases each (%d cannot execute, %d not planned)", checked, n, cannot, failed)
}

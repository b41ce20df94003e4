package soundness_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/soundness"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestGoldenPlansAgreeWithRaw is part of the soundness net: every golden
// plan (planner/testdata/plans.golden) returns what the plan built before
// normalization returns, on generated databases. A difference is a bug in
// a normalization rule or in the executor. SOUNDNESS_INSTANCES sets the
// databases per case (default 100).
func TestGoldenPlansAgreeWithRaw(t *testing.T) {
	n := soundness.Instances(100)
	ctx := context.Background()
	checked, cannot, failed := 0, 0, 0
	for _, c := range goldenQueries(t) {
		s, dialect := c.Schema, c.Schema.Dialect
		raw, err1 := planner.Plan(ctx, s, c.SQL, planner.Options{SkipNormalize: true})
		golden, err2 := planner.Plan(ctx, s, c.SQL, planner.Options{})
		if err1 != nil || err2 != nil {
			failed++ // planner's TestGolden reports planning errors
			continue
		}
		opts := refute.Options{TrustForeignKeys: dialect == catalog.Postgres, Dialect: dialect, Seed: 7}
		res, err := refute.Agree(ctx, s, raw, golden, n, opts, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		checked++
		switch {
		case res.CannotExecute && soundness.Malformed(res.Reason):
			t.Errorf("%s: a plan is broken: %s\nraw:\n%s\ngolden:\n%s", c.ID, res.Reason, raw.Explain(), golden.Explain())
		case res.CannotExecute:
			cannot++
			t.Logf("%s: %s", c.ID, res.Reason)
		case res.Counterexample != nil:
			t.Errorf("%s: the golden plan differs from the raw plan (rules %v):\n%s\n%s\nraw:\n%s\ngolden:\n%s", c.ID, golden.Rules, c.SQL, res.Counterexample, raw.Explain(), golden.Explain())
		}
	}
	if checked < 40 {
		t.Fatalf("only %d golden plans checked", checked)
	}
	t.Logf("%d golden plans checked against their raw plans on %d databases each (%d cannot execute, %d not planned)", checked, n, cannot, failed)
}

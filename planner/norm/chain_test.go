package norm_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
)

// TestSubstituteEquivalentsSettles: substitute-join-equivalent-columns
// once replaced a set operation's output column by an equal base column
// and back, forever (the output column reads as the base column once
// nothing else refers to it): the recursion overflowed the stack and
// ended the process. Found by the not-NULL probe on a CockroachDB pair
// (crdb-xform-853, the columns NOT NULL).
func TestSubstituteEquivalentsSettles(t *testing.T) {
	s, err := catalog.LoadDDL("CREATE TABLE kuv (k bigint NOT NULL, u bigint NOT NULL, v bigint, rowid bigint PRIMARY KEY)", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT t4.k, t4.u, t3.v FROM (SELECT t2.k, t2.u, t2.rowid FROM
	  ((SELECT t0.k, t0.u, t0.rowid FROM kuv t0 WHERE 1 <= t0.k AND t0.k <= 1 LIMIT 5)
	   UNION ALL (SELECT t1.k, t1.u, t1.rowid FROM kuv t1 WHERE 2 <= t1.k AND t1.k <= 2 LIMIT 5)) t2
	  ORDER BY t2.u NULLS FIRST LIMIT 5) t4, kuv t3
	WHERE t4.k IS NOT DISTINCT FROM t3.k AND t4.u IS NOT DISTINCT FROM t3.u AND t4.rowid IS NOT DISTINCT FROM t3.rowid`
	p, err := planner.Plan(context.Background(), s, q, planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, count := norm.WithFiringLimit(context.Background(), 0)
	if _, err := norm.NormalizeContext(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n, last := count(); n > 200 {
		t.Fatalf("%d rule firings (last %s): rules undo each other", n, last)
	}
}

// TestRuleChainBounded: two node rules that undo each other stop after
// a bounded chain with an equivalent plan, instead of recursing until the
// stack overflows.
func TestRuleChainBounded(t *testing.T) {
	restore := norm.AddFlipRules()
	defer restore()
	s := testSchema(t)
	p, err := planner.Plan(context.Background(), s, "SELECT name FROM dogs WHERE age > 3", planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, count := norm.WithFiringLimit(context.Background(), 0)
	if _, err := norm.NormalizeContext(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n, _ := count(); n < norm.MaxRuleChain || n > 2*norm.MaxRuleChain {
		t.Fatalf("%d firings, want the chain cut soon after %d", n, norm.MaxRuleChain)
	}
}

package planner_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestNormalizeIsIdempotent: normalizing a normalized plan again must not
// change its canonical text, or a fingerprint would depend on how many
// passes ran. Checked on every Spider query.
func TestNormalizeIsIdempotent(t *testing.T) {
	pairs, schemas := loadSpider(t)
	bad := 0
	for _, p := range pairs {
		for _, q := range []string{p.Reference, p.Candidate} {
			once, err := planner.Plan(context.Background(), schemas[p.DB], q, planner.Options{})
			if err != nil {
				continue
			}
			want := once.Canonical()
			twice, err := norm.Normalize(once)
			if err != nil {
				t.Fatalf("%s: %v", p.ID, err)
			}
			if got := twice.Canonical(); got != want {
				bad++
				if bad <= 3 {
					t.Errorf("%s: a second normalization changed the plan\n%s\n--- to\n%s\n(%s)", p.ID, want, got, q)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d queries not at a fixpoint", bad)
	}
}

// TestDeriverMatchesDerive: the memoizing Deriver gives every node of
// every Spider plan the properties a fresh Derive does, asked in any
// order (parents first here, so inputs come from the memo).
func TestDeriverMatchesDerive(t *testing.T) {
	pairs, schemas := loadSpider(t)
	nodes := 0
	for _, p := range pairs {
		pl, err := planner.Plan(context.Background(), schemas[p.DB], p.Reference, planner.Options{})
		if err != nil {
			continue
		}
		d := plan.NewDeriver(pl.Meta)
		pl.Root.WalkNodes(func(n *plan.Node) {
			nodes++
			want := plan.Derive(n, pl.Meta)
			got := d.Derive(n)
			got.Keys = append(got.Keys, plan.ColSet{}) // callers may change what they get
			if got = d.Derive(n); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s: memoized %+v, fresh %+v", p.ID, n.Op, got, want)
			}
		})
	}
	if nodes < 1000 {
		t.Errorf("only %d nodes checked", nodes)
	}
}

package planner_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/norm"
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

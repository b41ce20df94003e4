package judging

import (
	"context"
	"reflect"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestJudgeBound: the shape decides when it is equivalent; otherwise the
// constants are bound into the reference and the candidate judged as sent.
func TestJudgeBound(t *testing.T) {
	schema, err := catalog.LoadDDL(`CREATE TABLE a (aid int PRIMARY KEY, bid int, abalance int);`, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	jr, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ref, cand string
		want      equivalence.Label
		calls     []string // candidates judged, in order
	}{
		{"SELECT x.abalance FROM a x WHERE x.aid = $1", "SELECT abalance FROM a WHERE aid = 42",
			equivalence.Equivalent, []string{"SELECT abalance FROM a WHERE aid = $1"}},
		// $1 twice: only equal constants make the candidate match.
		{"SELECT abalance FROM a WHERE aid = $1 AND bid = $1", "SELECT abalance FROM a WHERE aid = 5 AND bid = 5",
			equivalence.Equivalent, []string{"SELECT abalance FROM a WHERE aid = $1 AND bid = $2", "SELECT abalance FROM a WHERE aid = 5 AND bid = 5"}},
		{"SELECT abalance FROM a WHERE aid = $1 AND bid = $1", "SELECT abalance FROM a WHERE aid = 5 AND bid = 6",
			"", []string{"SELECT abalance FROM a WHERE aid = $1 AND bid = $2", "SELECT abalance FROM a WHERE aid = 5 AND bid = 6"}},
		// No placeholder in the reference: judged as it is.
		{"SELECT abalance FROM a WHERE aid = 7", "SELECT abalance FROM a WHERE aid = 7",
			equivalence.Equivalent, []string{"SELECT abalance FROM a WHERE aid = 7"}},
	}
	for _, tc := range cases {
		var calls []string
		v, err := JudgeBound(context.Background(), tc.ref, tc.cand, func(ctx context.Context, ref, cand string) (equivalence.Verdict, error) {
			calls = append(calls, cand)
			return jr.Judge(ctx, schema, ref, cand, equivalence.Options{})
		})
		if err != nil {
			t.Fatalf("%s vs %s: %v", tc.ref, tc.cand, err)
		}
		if tc.want == "" && (v.Label == equivalence.Equivalent || v.Label == equivalence.EquivalentUnderAssumptions) ||
			tc.want != "" && v.Label != tc.want {
			t.Errorf("%s vs %s: %s, want %q", tc.ref, tc.cand, v.Label, tc.want)
		}
		if !reflect.DeepEqual(calls, tc.calls) {
			t.Errorf("%s vs %s: judged %q, want %q", tc.ref, tc.cand, calls, tc.calls)
		}
	}
}

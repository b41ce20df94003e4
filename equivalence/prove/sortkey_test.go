package prove_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestSortKeysUnderEqualities: a sort key may be any column equal to it
// on every row of the sort's input, and an ordered or limited derived
// table's conditions (and its self-join on a key) hold in the block above
// it. Each "false" row differs on some database (the equality is padded
// by an outer join or holds under OR only, the self-join is not on a
// key), so a proof of it would be wrong. (The planner already writes
// keys equal under a block's own equalities alike; these pairs differ
// only after a rewrite of the prover.)
func TestSortKeysUnderEqualities(t *testing.T) {
	s, err := catalog.LoadDDL(unnestDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, a, b string
		want       bool
		rule       string
	}{
		{"self-join on a key under a sort", "SELECT a.id, a.w FROM o a JOIN o b ON a.id = b.id ORDER BY b.id",
			"SELECT id, w FROM o ORDER BY id", true, "ordered or limited derived table"},
		{"self-join on a key under a limit", "SELECT a.id, a.w FROM o a JOIN o b ON a.id = b.id ORDER BY b.id DESC LIMIT 3",
			"SELECT id, w FROM o ORDER BY id DESC LIMIT 3", true, "sort: keys equal under the input's equalities"},
		{"self-join on another column", "SELECT a.id, a.w FROM o a JOIN o b ON a.w = b.w ORDER BY b.id",
			"SELECT id, w FROM o ORDER BY id", false, ""},
		{"left join pads the equal column", "SELECT o.id, l.lid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id, l.lid",
			"SELECT o.id, l.lid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY l.oid, l.lid", false, ""},
		{"equality under or", "SELECT o.id, l.lid FROM o JOIN l ON l.oid = o.id OR l.k = 1 ORDER BY o.id, l.lid",
			"SELECT o.id, l.lid FROM o JOIN l ON l.oid = o.id OR l.k = 1 ORDER BY l.oid, l.lid", false, ""},
		{"left-joined derived table", "SELECT x.id, x.oid FROM (SELECT o.id, l.oid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id LIMIT 4) x",
			"SELECT x.id, x.id FROM (SELECT o.id, l.oid FROM o LEFT JOIN l ON l.oid = o.id ORDER BY o.id LIMIT 4) x", false, ""},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := planner.Plan(ctx, s, c.a, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.a, err)
			}
			b, err := planner.Plan(ctx, s, c.b, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.b, err)
			}
			r := proveBoth(t, ctx, a, b, prove.Options{TrustForeignKeys: true})
			if r.Proved != c.want {
				t.Fatalf("proved %v, want %v (%v)", r.Proved, c.want, r.Rules)
			}
			if r.Proved && !strings.Contains(strings.Join(r.Rules, "; "), c.rule) {
				t.Errorf("rules %v lack %q", r.Rules, c.rule)
			}
			res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: 300, Budget: 2 * time.Second, Seed: 7, TrustForeignKeys: true, Dialect: catalog.Postgres})
			if err != nil {
				t.Fatal(err)
			}
			if c.want && res.Instances == 0 {
				t.Errorf("the executor ran no instance")
			}
			if res.Found == c.want {
				t.Errorf("refuter found a counterexample: %v (want proved: %v)", res.Found, c.want)
			}
		})
	}
}

package prove_test

import (
	"context"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// ruleCase is one pair of queries for the prover's rule tests and what
// must hold of it: proved (or not) alike either way round, the proof
// naming rule, and the executor on random databases agreeing.
type ruleCase struct {
	name   string
	sqlite bool // plan, prove and execute under SQLite's semantics
	a, b   string
	want   bool // proved equivalent
	// rule is a trace entry a proof must hold, both ways round: a
	// registered rule's name (any detail), or "name: detail" exactly.
	rule string
	// ruleNot is a registered rule no proof of the pair may name (a
	// near miss of it).
	ruleNot string
	// ruleAsGiven: only the proof with a as the reference must name rule
	// (swapped, another route proves the pair).
	ruleAsGiven bool
	// unseen says why the executor cannot show a difference the pair
	// has (an error, a locale), if so.
	unseen string
	// unproved says why an equivalent pair is not proved, if so: the
	// executor must find no difference, as for a proved pair.
	unproved string
}

// runRuleCases runs each case on the schema ddl. A proof must survive
// the executor (which must run at least one database), and each pair
// left unproved differs on some database it finds, unless unseen or
// unproved says otherwise.
func runRuleCases(t *testing.T, ddl string, cases []ruleCase) {
	t.Helper()
	ctx := context.Background()
	schemas := map[catalog.Dialect]*catalog.Schema{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := catalog.Postgres
			if c.sqlite {
				d = catalog.SQLite
			}
			s, ok := schemas[d]
			if !ok {
				var err error
				if s, err = catalog.LoadDDL(ddl, d); err != nil {
					t.Fatal(err)
				}
				schemas[d] = s
			}
			a, err := planner.Plan(ctx, s, c.a, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.a, err)
			}
			b, err := planner.Plan(ctx, s, c.b, planner.Options{})
			if err != nil {
				t.Fatalf("%s: %v", c.b, err)
			}
			opts := prove.Options{TrustForeignKeys: true, SQLite: c.sqlite}
			for _, dir := range []string{"as given", "swapped"} {
				x, y := a, b
				if dir == "swapped" {
					x, y = b, a
				}
				r, err := prove.Equivalent(ctx, x, y, opts)
				if err != nil {
					t.Fatal(err)
				}
				if r.Proved != c.want {
					t.Errorf("%s: proved %v, want %v (%v)", dir, r.Proved, c.want, r.Rules)
				}
				if c.ruleNot != "" && namesRule(r.Rules, c.ruleNot) {
					t.Errorf("%s: rules %v name %q", dir, r.Rules, c.ruleNot)
				}
				if r.Proved && c.rule != "" && !(c.ruleAsGiven && dir == "swapped") && !namesRule(r.Rules, c.rule) {
					t.Errorf("%s: rules %v do not name %q", dir, r.Rules, c.rule)
				}
			}
			res, err := refute.Refute(ctx, s, a, b, refute.Options{MaxInstances: 300, Budget: 2 * time.Second, Seed: 7, TrustForeignKeys: true, Dialect: d})
			if err != nil {
				t.Fatal(err)
			}
			equal := c.want || c.unproved != ""
			if equal && res.Instances == 0 {
				t.Errorf("the executor ran no instance")
			}
			if res.Found == equal && (equal || c.unseen == "") {
				t.Errorf("refuter found a counterexample: %v, want %v", res.Found, !equal)
			}
		})
	}
}

// namesRule says whether the trace rules holds want: an entry equal to
// it, or of the registered rule it names.
func namesRule(rules []string, want string) bool {
	for _, e := range rules {
		if e == want || prove.RuleName(e) == want {
			return true
		}
	}
	return false
}

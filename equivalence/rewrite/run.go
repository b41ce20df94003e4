package rewrite

import (
	"context"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// maxRounds bounds rewriting; each round is followed by renormalization,
// which can enable another rule.
const maxRounds = 4

// Options tune a rewrite. The zero value runs the rule set as the judge
// does, not trusting unenforced foreign keys.
type Options struct {
	// TrustForeignKeys says declared foreign keys hold; otherwise a rule
	// that needs one names it as an assumption.
	TrustForeignKeys bool
	// Rules replaces the rule set (a test adds a wrong rule to see the
	// soundness net catch it); nil means Rules().
	Rules []Rule
	// BeforeRound, when set, is called as every round of rules starts,
	// with the plan as normalization left it; with AfterRule it gives the
	// plan before and after each firing (the soundness net's view).
	BeforeRound func(p *plan.Plan)
	// AfterRule, when set, is called after every rule that fires, with the
	// plan as the rule left it.
	AfterRule func(p *plan.Plan, rule string)
}

// Run rewrites p in place: rounds of every rule over every node, each
// round followed by renormalization, until no rule fires or maxRounds
// pass. fired is called with every rule name that applied, the
// planner's normalization rules (p.Rules) included, possibly more than
// once; assume with every assumption a rewrite rests on. It stops with
// ctx's error when ctx ends.
func Run(ctx context.Context, p *plan.Plan, s *catalog.Schema, o Options, fired func(rule string), assume func(Assumption)) error {
	for _, r := range p.Rules {
		fired(r)
	}
	if p.Raises != "" {
		// PostgreSQL fails, or may fail, on p (planner/norm/raises.go):
		// the rules would drop the part that fails (UNION read as OR
		// leaves an unread i + 1 to prune) and renormalization would
		// then clear p.Raises, which keeps the judge from a proof.
		return nil
	}
	rc := &Ctx{ctx: ctx, p: p, schema: s, trustFK: o.TrustForeignKeys, fired: fired, assume: assume}
	for round := 0; round < maxRounds; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		any, err := applyRules(rc, o)
		if err != nil {
			return err
		}
		if !any {
			break
		}
		if _, err := norm.NormalizeContext(ctx, p); err != nil {
			return err
		}
		for _, r := range p.Rules {
			fired(r)
		}
	}
	return nil
}

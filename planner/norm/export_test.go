package norm

import "github.com/pgequiv/pgequiv/planner/plan"

// MaxRuleChain is maxRuleChain, for tests.
const MaxRuleChain = maxRuleChain

// AddFlipRules appends two node rules that never settle (each rotates a
// filter's conjuncts, keeping the plan equivalent), and returns what
// restores the rule list.
func AddFlipRules() (restore func()) {
	saved := nodeRules
	flip := func(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
		if n.Op != plan.OpFilter || len(n.Preds) == 0 {
			return n, false
		}
		n.Preds = append(n.Preds[1:], n.Preds[0])
		return n, true
	}
	nodeRules = append(append([]nodeRule(nil), nodeRules...),
		nodeRule{name: "test-flip-a", apply: flip, local: true},
		nodeRule{name: "test-flip-b", apply: flip, local: true})
	return func() { nodeRules = saved }
}

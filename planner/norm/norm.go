// Package norm rewrites logical plans into a canonical form: equivalent
// surface forms of a query give identical plans. Every rule is small,
// named, sound under bag semantics and three-valued logic, and recorded in
// Plan.Rules when it fires. When a rule cannot prove its precondition from
// the schema's declared constraints, it leaves the plan alone.
package norm

import (
	"fmt"
	"sort"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// maxPasses bounds the fixpoint loop; every rule makes the plan smaller
// or more canonical, so a handful of passes suffices in practice.
const maxPasses = 8

// Normalize rewrites p in place and returns it.
func Normalize(p *plan.Plan) (*plan.Plan, error) {
	z := &normalizer{p: p, fired: map[string]bool{}}
	for pass := 0; pass < maxPasses; pass++ {
		z.changed = false
		p.Root = z.node(p.Root, flags{keepOrder: true, keepCols: true})
		if !z.changed {
			break
		}
	}
	// Canonical ordering last, once the structure is final.
	p.Root = z.canonicalOrder(p.Root)
	p.Rules = z.order
	if debugChecks {
		if err := plan.CheckDefinitions(p); err != nil {
			return nil, fmt.Errorf("normalize: %w", err)
		}
	}
	return p, nil
}

type normalizer struct {
	p       *plan.Plan
	fired   map[string]bool
	order   []string
	changed bool
	// fm is the anonymous formatter for sort keys, built from the plan as
	// it was when the last rule fired. Only rules change the plan (and
	// every change fires one), so fire drops it and it is rebuilt on the
	// next use; until then a new formatter would collect the same
	// definitions.
	fm *plan.Formatter
	// dv memoizes derived properties; like fm it is valid until the plan
	// changes, and is reset wherever fm is.
	dv *plan.Deriver
}

// derive returns n's properties, memoized until the next change.
func (z *normalizer) derive(n *plan.Node) *plan.Props {
	if z.dv == nil {
		z.dv = plan.NewDeriver(z.p.Meta)
	}
	return z.dv.Derive(n)
}

// formatter returns the anonymous formatter for the current plan.
func (z *normalizer) formatter() *plan.Formatter {
	if z.fm == nil {
		z.fm = plan.NewFormatter(z.p.Meta, z.p.Root, true)
	}
	return z.fm
}

func (z *normalizer) fire(rule string) {
	z.fm, z.dv = nil, nil
	z.changed = true
	if !z.fired[rule] {
		z.fired[rule] = true
		z.order = append(z.order, rule)
	}
}

// key is the canonical sort key of an expression: its text without
// instance numbers, so it does not depend on the order tables were seen.
func (z *normalizer) key(e *plan.Expr) string {
	return z.formatter().Expr(e)
}

func (z *normalizer) nodeKey(n *plan.Node) string {
	return z.formatter().Node(n)
}

// scalar normalizes an expression bottom-up to a fixpoint of the scalar
// rules, and normalizes the plans of subqueries inside it.
func (z *normalizer) scalar(e *plan.Expr) *plan.Expr {
	return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.Subquery {
			x.Sub = z.node(x.Sub, flags{keepCols: true})
		}
		for i := 0; i < 16; i++ {
			var ok bool
			switch {
			case func() bool { x, ok = expandBetween(x); return ok }():
				z.fire(RuleExpandBetween)
			case func() bool { x, ok = expandInList(x); return ok }():
				z.fire(RuleExpandInList)
			case func() bool { x, ok = pushNot(x); return ok }():
				z.fire(RulePushNot)
			case func() bool { x, ok = foldConstants(x); return ok }():
				z.fire(RuleFoldConstants)
			case func() bool { x, ok = coerceLiteral(x); return ok }():
				z.fire(RuleCoerceLiteral)
			case func() bool { x, ok = expandIsDistinct(x); return ok }():
				z.fire(RuleExpandIsDistinct)
			case func() bool { x, ok = flattenAndOr(x, z.key); return ok }():
				z.fire(RuleFlattenAndOr)
			case func() bool { x, ok = orientComparison(x, z.key); return ok }():
				z.fire(RuleOrientComparison)
			case func() bool { x, ok = integerBound(x); return ok }():
				z.fire(RuleIntegerBound)
			default:
				return x
			}
			// A rule may have built new children: normalize them too.
			x.Children(func(s **plan.Expr) { *s = z.scalar(*s) })
		}
		return x
	})
}

// flags say what a node's parent observes of it.
type flags struct {
	// keepOrder: the row order matters (the outermost query's ORDER BY,
	// or a Sort under LIMIT).
	keepOrder bool
	// keepCols: the exact output columns matter (query root, DISTINCT's
	// input, a subquery compared by IN).
	keepCols bool
}

func childFlags(n *plan.Node, f flags) flags {
	switch n.Op {
	case plan.OpProject:
		// Only the query's own ORDER BY sits right below its projection;
		// a derived table's projection below it sees no order.
		in := n.Inputs[0].Op
		return flags{keepOrder: f.keepOrder && (in == plan.OpSort || in == plan.OpLimit)}
	case plan.OpDistinct:
		return flags{keepCols: true}
	case plan.OpLimit:
		return flags{keepOrder: true, keepCols: f.keepCols}
	case plan.OpSort, plan.OpFilter, plan.OpWindow:
		return flags{keepCols: f.keepCols}
	}
	return flags{}
}

// node normalizes the subtree at n, children first.
func (z *normalizer) node(n *plan.Node, f flags) *plan.Node {
	cf := childFlags(n, f)
	for i, in := range n.Inputs {
		n.Inputs[i] = z.node(in, cf)
	}
	n.Exprs(func(s **plan.Expr) { *s = z.scalar(*s) })
	if n.Op == plan.OpFilter || n.Op == plan.OpJoin {
		if ps, changed := splitConjuncts(n.Preds); changed {
			// Not a rule, but the plan changed: the formatter's memoized
			// column texts may render it.
			n.Preds, z.fm, z.dv = ps, nil, nil
		}
	}
	for _, r := range nodeRules {
		if out, ok := r.apply(z, n, f); ok {
			z.fire(r.name)
			return z.node(out, f)
		}
	}
	return n
}

type nodeRule struct {
	name  string
	apply func(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool)
}

// nodeRules are tried in order at every node after its inputs are
// normalized; the first that fires restarts normalization of its result.
var nodeRules []nodeRule

func init() {
	nodeRules = []nodeRule{
		{RuleDropSubqueryOrder, dropSubqueryOrder},
		{RuleRemoveProject, removePassthroughProject},
		{RuleMergeFilters, mergeFilters},
		{RuleRightToLeft, rightToLeft},
		{RuleSubqueryToSemi, subqueryToSemiJoin},
		{RuleOuterToInner, outerToInner},
		{RuleLeftJoinIsNull, leftJoinIsNullToAnti},
		{RuleFilterPastOuter, pushFilterPastOuterJoin},
		{RuleFilterIntoSemiJoin, pushFilterIntoSemiJoin},
		{RuleFilterIntoJoin, filterIntoJoin},
		{RuleFlattenInnerJoin, flattenInnerJoin},
		{RulePushJoinPredicate, pushJoinPredicate},
		{RuleHavingToWhere, havingToWhere},
		{RuleFilterPastDistinct, pushFilterPastDistinct},
		{RuleGroupByToDistinct, groupByToDistinct},
		{RuleReduceGroupBy, reduceGroupBy},
		{RuleRemoveDistinct, removeRedundantDistinct},
		{RuleJoinEquivalence, substituteJoinEquivalents},
	}
}

// splitConjuncts drops TRUE conjuncts and splits ANDs; it reports
// whether that changed anything.
func splitConjuncts(ps []*plan.Expr) ([]*plan.Expr, bool) {
	changed := false
	for _, p := range ps {
		if p.IsTrue() || p.IsOp(plan.OpAnd) {
			changed = true
			break
		}
	}
	if !changed {
		return ps, false
	}
	var out []*plan.Expr
	for _, p := range ps {
		if p.IsTrue() {
			continue
		}
		out = append(out, plan.Conjuncts(p)...)
	}
	return out, true
}

// canonicalOrder sorts what is unordered: conjuncts, inner-join inputs and
// grouping columns, bottom-up so children's keys are final first.
func (z *normalizer) canonicalOrder(n *plan.Node) *plan.Node {
	for i, in := range n.Inputs {
		n.Inputs[i] = z.canonicalOrder(in)
	}
	n.Exprs(func(s **plan.Expr) {
		*s = plan.Rewrite(*s, func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.Subquery {
				x.Sub = z.canonicalOrder(x.Sub)
			}
			if y, ok := sortCommutative(x, z.key); ok {
				z.fire(RuleSortCommutative)
				return y
			}
			return x
		})
	})
	if len(n.Preds) > 1 {
		keys := make([]string, len(n.Preds))
		for i, p := range n.Preds {
			keys[i] = z.key(p)
		}
		if !sort.StringsAreSorted(keys) {
			sortByKeys(n.Preds, keys)
			z.fm = nil // not a rule, but memoized texts may show the old order
		}
	}
	if n.Op == plan.OpJoin && n.Join == plan.InnerJoin && len(n.Inputs) > 1 {
		keys := make([]string, len(n.Inputs))
		for i, in := range n.Inputs {
			keys[i] = z.nodeKey(in)
		}
		if !sort.StringsAreSorted(keys) {
			idx := make([]int, len(keys))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
			ins := make([]*plan.Node, len(idx))
			for i, j := range idx {
				ins[i] = n.Inputs[j]
			}
			n.Inputs = ins
			z.fire(RuleSortJoinInputs)
		}
	}
	if n.Op == plan.OpAggregate && len(n.GroupBy) > 1 {
		f := z.formatter()
		keys := make([]string, len(n.GroupBy))
		for i, c := range n.GroupBy {
			keys[i] = f.Col(c)
		}
		if !sort.StringsAreSorted(keys) {
			sortByKeys(n.GroupBy, keys)
			z.fm = nil
		}
	}
	return n
}

// sortByKeys stably sorts xs by the parallel keys, computing each key
// once rather than at every comparison.
func sortByKeys[T any](xs []T, keys []string) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	out := make([]T, len(xs))
	for i, j := range idx {
		out[i] = xs[j]
	}
	copy(xs, out)
}

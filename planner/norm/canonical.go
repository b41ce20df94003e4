package norm

import (
	"sort"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// canonicalOrder sorts what is unordered: conjuncts, inner-join inputs and
// grouping columns, bottom-up so children's keys are final first.
func (z *normalizer) canonicalOrder(n *plan.Node) *plan.Node {
	if z.stopped() {
		return n
	}
	for i, in := range n.Inputs {
		n.Inputs[i] = z.canonicalOrder(in)
	}
	z.eachExpr(n, func(s **plan.Expr) {
		*s = plan.Rewrite(*s, func(x *plan.Expr) *plan.Expr {
			if z.stopped() {
				return x
			}
			if x.Kind == plan.Subquery {
				x.Sub = z.canonicalOrder(x.Sub)
			}
			if y, ok := sortCommutative(x, z.key); ok {
				z.fireLocal(RuleSortCommutative)
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
			z.touched()
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
			z.fireLocal(RuleSortJoinInputs)
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
			z.touched()
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

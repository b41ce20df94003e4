package prove

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate of a determined column": where the grouping
// columns K determine x in the aggregate's input, every row of a group
// holds one value of x, so MIN(x), MAX(x) and ANY_VALUE(x) are x, and x
// joins the grouping columns without splitting a group:
//
//   - agg-determined-value: γ[K; MIN(x) AS m, …](R) ⇒ π[K, x AS m, …](δ(π[K, x, …](R)))
//     where every call is such: the grouping is then a DISTINCT, which
//     distinct-join-semi reads as a semi-join (a join grouped on the
//     keys of some of its inputs). Where a call stays, agg-group-constant
//     compares MIN(x) with x instead.
//
// K determines x when x is in K's closure under the input's equalities
// (a = b in every row) and its tables' NOT NULL keys (a key's columns
// within the closure fix the table's row, so all its columns). An
// all-NULL group gives NULL, which is x too. x compares as identity
// (identityCol): numeric 1.0 and 1.00, or the float zeros, are equal in
// one group but print apart, and MIN could pick the other one.

// aggDeterminedValue applies agg-determined-value to n, or returns nil.
func (p *prover) aggDeterminedValue(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpAggregate || len(n.GroupBy) == 0 || len(n.Aggs) == 0 {
		return nil
	}
	var closure plan.ColSet
	group := slices.Clone(n.GroupBy)
	subst := map[plan.ColumnID]plan.ColumnID{}
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Kind == plan.Agg && (e.Name == "min" || e.Name == "max" || e.Name == "any_value") && e.Filter == nil &&
			len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && e.Args[0].Typ == e.Typ && len(e.Order) == 0 {
			x := e.Args[0].Col
			if closure.Empty() {
				closure = determinedCols(n.Inputs[0], m, plan.MakeColSet(n.GroupBy...))
			}
			if closure.Has(x) && p.identityCol(m, x) {
				subst[a.ID] = x
				if !slices.Contains(group, x) {
					group = append(group, x)
				}
				continue
			}
		}
		// A call left over: agg-group-constant compares MIN(x) with
		// MAX(x) and x where the aggregate stays.
		return nil
	}
	// No call left: the grouping is DISTINCT over the grouping columns,
	// the form distinct-join-semi and dedup-join read.
	keys := make([]plan.ProjItem, len(group))
	for i, g := range group {
		keys[i] = plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)}
	}
	in := &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{{Op: plan.OpProject, Inputs: n.Inputs, Proj: keys}}}
	items := make([]plan.ProjItem, 0, len(n.OutCols()))
	for _, col := range n.OutCols() {
		src := col
		if x, ok := subst[col]; ok {
			src = x
		}
		items = append(items, plan.ProjItem{ID: col, Expr: plan.NewCol(src, m.Col(col).Type)})
	}
	p.ruleOn(ruleAggDeterminedValue, "%d", len(subst))
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{in}, Proj: items}
}

// determinedCols is the closure of cols under the functional dependencies
// n's rows hold: columns equal in every row, and each scanned table's NOT
// NULL keys fixing its other columns (only tables whose columns n
// outputs: the scan's values reach the aggregate unchanged).
func determinedCols(n *plan.Node, m *plan.Metadata, cols plan.ColSet) plan.ColSet {
	props := plan.Derive(n, m)
	out := n.OutColSet()
	s := cols.Copy()
	for changed := true; changed; {
		changed = false
		for _, e := range props.Equiv {
			if e.Intersects(s) && !e.SubsetOf(s) {
				s.UnionWith(e)
				changed = true
			}
		}
		for _, inst := range m.Instances {
			if inst.Table == nil {
				continue
			}
			for _, k := range inst.Table.Keys() {
				ok := true
				for _, o := range k {
					if o >= len(inst.Cols) || !s.Has(inst.Cols[o]) {
						ok = false
						break
					}
				}
				if !ok {
					continue
				}
				for _, c := range inst.Cols {
					if out.Has(c) && !s.Has(c) {
						s.Add(c)
						changed = true
					}
				}
			}
		}
	}
	return s
}

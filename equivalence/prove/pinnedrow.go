package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "constants fixed by equalities" (issue 35, item 2):
//
//   - agg-constant-call: γ[K ≠ ∅](MIN(c)) ⇒ π[c](γ[K]) for a non-NULL
//     constant c (also MAX, ANY_VALUE), or a column the input's filter
//     pins to c: a group has a row, and every row holds c. Without GROUP BY the one row over no input is NULL, so the
//     rule needs K.
//   - distinct-pinned-limit: δ(π[P](X)) ⇒ π[P](X LIMIT 1) when every
//     output of P is a non-NULL constant or a column X's filter pins to
//     one (col = c, = being identity on col's values): X's rows all
//     project to one row, so the DISTINCT keeps one row exactly when X
//     has any, as LIMIT 1 does. X is filters over a scan whose
//     conjuncts are comparisons of columns and constants: none raises an
//     error on a row LIMIT 1 may not read.

// aggConstantCalls reads the MIN, MAX and ANY_VALUE calls of a non-NULL
// constant of grouped aggregate n as that constant, or returns nil.
func (p *prover) aggConstantCalls(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpAggregate || len(n.GroupBy) == 0 {
		return nil
	}
	consts := map[plan.ColumnID]*plan.Expr{}
	var keep []plan.ProjItem
	// A column the input pins is its constant too (as aggregate
	// comparison reads it, output-pinned): MAX(d) under d = 1 is 1.
	pins := aggInputPins(n.Inputs[0], m)
	viaPin := false
	for _, a := range n.Aggs {
		e := pinnedCall(a.Expr, pins)
		if e.Kind == plan.Agg && (e.Name == "min" || e.Name == "max" || e.Name == "any_value") && e.Filter == nil && !e.Star &&
			len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null && e.Args[0].Typ == e.Typ {
			consts[a.ID] = e.Args[0]
			viaPin = viaPin || e != a.Expr
			continue
		}
		keep = append(keep, a)
	}
	if len(consts) == 0 {
		return nil
	}
	c := *n
	c.Aggs = keep
	out := reproject(&c, n.OutCols(), m)
	for i, it := range out.Proj {
		if k := consts[it.ID]; k != nil {
			out.Proj[i].Expr = k.Copy()
		}
	}
	if viaPin {
		p.rule(ruleOutputPinned)
	}
	p.rule(ruleAggConstantCall)
	return out
}

// distinctPinnedLimit rewrites DISTINCT n over a projection of pinned
// values to LIMIT 1 below the projection, or returns nil.
func (p *prover) distinctPinnedLimit(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpDistinct || len(n.Inputs) != 1 || n.Inputs[0].Op != plan.OpProject {
		return nil
	}
	proj := n.Inputs[0]
	x := proj.Inputs[0]
	if !errorFreeFilters(x) {
		return nil
	}
	pins := map[plan.ColumnID]*plan.Expr{}
	for f := x; f.Op == plan.OpFilter; f = f.Inputs[0] {
		for c, e := range pinnedCols(f, m) {
			pins[c] = e
		}
	}
	for _, it := range proj.Proj {
		e := it.Expr
		switch {
		case e.Kind == plan.Const && !e.Null:
		case e.Kind == plan.ColRef && pins[e.Col] != nil:
		default:
			return nil
		}
	}
	// LIMIT 1 as the planner builds it: an integer constant.
	one := &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{x}, Limit: plan.NewConst(catalog.Int, "1")}
	c := *proj
	c.Inputs = []*plan.Node{one}
	p.rule(ruleDistinctPinnedLimit)
	return &c
}

// errorFreeFilters says whether n is filters over a scan whose conjuncts
// compare columns and constants (or test them for NULL), with AND, OR
// and NOT: evaluating them raises no error on any row.
func errorFreeFilters(n *plan.Node) bool {
	for ; n.Op == plan.OpFilter; n = n.Inputs[0] {
		for _, e := range n.Preds {
			if !errorFreeCond(e) {
				return false
			}
		}
	}
	return n.Op == plan.OpScan && n.Table != nil
}

func errorFreeCond(e *plan.Expr) bool {
	switch {
	case e.IsOp(plan.OpAnd) || e.IsOp(plan.OpOr) || e.IsOp(plan.OpNot):
		for _, a := range e.Args {
			if !errorFreeCond(a) {
				return false
			}
		}
		return true
	case (e.IsOp(plan.OpIsNull) || e.IsOp(plan.OpIsNotNull)) && len(e.Args) == 1:
		return e.Args[0].Kind == plan.ColRef || e.Args[0].Kind == plan.Const
	case e.Kind == plan.Op && comparisons[e.Name] && len(e.Args) == 2:
		for _, a := range e.Args {
			if a.Kind != plan.ColRef && a.Kind != plan.Const {
				return false
			}
			if a.Kind == plan.Const && a.Typ != e.Args[0].Typ {
				// A literal of another type may be cast (and fail) per row.
				return false
			}
		}
		return true
	}
	return false
}

// Fragment "simplify", group-on-equal-key: γ[K](R) ⇒ π(R) when R has a
// key within K and the columns R's conditions equate with K's (= being
// identity on both: the two columns are one value in every row): the
// rows of a group agree on K, so on that key, and are one row. As
// group-on-key, the calls are read off the row.

// groupOnEqualKey reads grouped aggregate n off its input's rows when a
// key lies within its grouping columns and the columns equal to them,
// or returns nil.
func (p *prover) groupOnEqualKey(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpAggregate || len(n.GroupBy) == 0 {
		return nil
	}
	props := plan.Derive(n.Inputs[0], m)
	if len(props.Equiv) == 0 {
		return nil
	}
	group := plan.MakeColSet(n.GroupBy...)
	if props.HasKeyWithin(group) {
		return nil // group-on-key's
	}
	closure := group
	for _, class := range props.Equiv {
		if class.Intersects(group) {
			closure = closure.Union(class)
		}
	}
	if !props.HasKeyWithin(closure) {
		return nil
	}
	j := groupOnKey(n, m)
	if j == nil {
		return nil
	}
	p.rule(ruleGroupOnEqualKey)
	return j
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "unnest": a conjunct of a block comparing a value with a
// correlated scalar aggregate subquery,
//
//	x op f((SELECT agg(e) FROM R WHERE r.k1 = o1 AND ... AND p))
//
// is a join with R grouped on the correlation columns,
//
//	JOIN (SELECT r.k1, ..., agg(e) AS t FROM R WHERE p GROUP BY r.k1, ...) g
//	  ON g.k1 = o1 AND ... AND x op f(g.t)
//
// when every step below holds:
//
//   - the correlation is a conjunction of equalities r.k = o between a
//     column of R and an expression of the enclosing block alone, of one
//     type (so equality is transitive across the two); the rest of R
//     reads no enclosing column;
//   - agg is SUM, AVG, MIN or MAX, NULL over no row (COUNT is 0 there: the
//     COUNT bug), and f and the path from the comparison down to the
//     subquery are strict (arithmetic and casts): no matching row makes
//     the comparison NULL;
//   - the comparison is a conjunct of a filter or of an inner join's
//     condition (wherever that node sits: the rewrite is local to it),
//     which keeps TRUE rows only, so NULL drops the row as FALSE does;
//     never under OR, NOT or a non-strict function.
//
// Then for an enclosing row the matching R rows are exactly one group
// (groups are classes of =), whose aggregate is the subquery's value, and
// at most one group joins, so multiplicities stay; with no matching row
// the subquery's NULL drops the row as the missing group does.

// unnest rewrites a filter or an inner join with such a conjunct into
// the join with the grouped leaf, under a projection that keeps n's
// columns.
func (p *prover) unnest(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpFilter && (n.Op != plan.OpJoin || n.Join != plan.InnerJoin) {
		return nil
	}
	if p.subUses == nil {
		p.subUses = map[*plan.Node]int{}
		countSubs(p.a.Root, p.subUses)
		countSubs(p.b.Root, p.subUses)
	}
	for i, e := range n.Preds {
		leaf, preds, name, ok := unnestConjunct(e, p.subUses)
		if !ok {
			continue
		}
		rest := make([]*plan.Expr, 0, len(n.Preds)+len(preds))
		rest = append(rest, n.Preds[:i]...)
		rest = append(rest, preds...)
		rest = append(rest, n.Preds[i+1:]...)
		var joined *plan.Node
		if n.Op == plan.OpFilter {
			join := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{n.Inputs[0], leaf}}
			joined = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{join}, Preds: rest}
		} else {
			joined = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: append(append([]*plan.Node(nil), n.Inputs...), leaf), Preds: rest}
		}
		out := n.OutCols()
		items := make([]plan.ProjItem, len(out))
		for k, c := range out {
			items[k] = plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)}
		}
		p.ruleOn(ruleUnnestScalar, "%s", name)
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{joined}, Proj: items}
	}
	return nil
}

// countSubs counts the occurrences of each subquery plan in n: one read
// twice (a conjunct copied by the planner) is not rewritten, as its
// columns would then name two leaves.
func countSubs(n *plan.Node, uses map[*plan.Node]int) {
	n.WalkExprs(func(x *plan.Expr) {
		if x.Kind == plan.Subquery && x.Sub != nil {
			uses[x.Sub]++
			countSubs(x.Sub, uses)
		}
	})
}

var comparisons = map[string]bool{plan.OpEq: true, plan.OpNe: true, plan.OpLt: true, plan.OpLe: true, plan.OpGt: true, plan.OpGe: true}

// strictPath says whether e is NULL whenever target is: e is target, or
// an arithmetic operator or cast with an argument that is.
func strictPath(e *plan.Expr, target func(*plan.Expr) bool) bool {
	if target(e) {
		return true
	}
	switch {
	case e.Kind == plan.Cast && len(e.Args) == 1:
		return strictPath(e.Args[0], target)
	case e.Kind == plan.Op:
		switch e.Name {
		case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpNeg:
			for _, a := range e.Args {
				if strictPath(a, target) {
					return true
				}
			}
		}
	}
	return false
}

// unnestConjunct reads one conjunct; it returns the grouped leaf and the
// conjuncts replacing it (the comparison first, then the correlation).
func unnestConjunct(e *plan.Expr, uses map[*plan.Node]int) (*plan.Node, []*plan.Expr, string, bool) {
	if e.Kind != plan.Op || !comparisons[e.Name] || len(e.Args) != 2 {
		return nil, nil, "", false
	}
	var sub *plan.Expr
	n := 0
	plan.Walk(e, func(x *plan.Expr) {
		if x.Kind == plan.Subquery {
			n++
			sub = x
		}
	})
	if n != 1 || sub.SubKind != plan.SubScalar || sub.Sub == nil || uses[sub.Sub] != 1 {
		return nil, nil, "", false
	}
	isSub := func(x *plan.Expr) bool { return x == sub }
	if !strictPath(e.Args[0], isSub) && !strictPath(e.Args[1], isSub) {
		return nil, nil, "", false
	}
	q := sub.Sub
	if q.Op != plan.OpProject || len(q.Proj) != 1 || q.Inputs[0].Op != plan.OpAggregate {
		return nil, nil, "", false
	}
	agg := q.Inputs[0]
	if len(agg.GroupBy) != 0 || len(agg.Aggs) != 1 {
		return nil, nil, "", false
	}
	call := agg.Aggs[0].Expr
	if call.Kind != plan.Agg {
		return nil, nil, "", false
	}
	switch call.Name {
	case "sum", "avg", "min", "max":
	default:
		return nil, nil, "", false // COUNT and the rest are not NULL over no row
	}
	aggID := agg.Aggs[0].ID
	f := q.Proj[0].Expr
	if !strictPath(f, func(x *plan.Expr) bool { return x.Kind == plan.ColRef && x.Col == aggID }) {
		return nil, nil, "", false
	}
	// f reads nothing but the aggregate and constants.
	only := true
	plan.Walk(f, func(x *plan.Expr) {
		if (x.Kind == plan.ColRef && x.Col != aggID) || x.Kind == plan.Subquery || x.Kind == plan.Param {
			only = false
		}
	})
	if !only {
		return nil, nil, "", false
	}
	body := agg.Inputs[0]
	inner := allCols(body)
	// The call reads the body's columns only: an argument reading the
	// enclosing row has no value inside the grouped leaf.
	if call.HasSubquery() || (call.Filter != nil && call.Filter.HasSubquery()) || !call.Cols().SubsetOf(inner) {
		return nil, nil, "", false
	}
	var corr []*plan.Expr
	stripped, ok := stripCorrelation(body, inner, &corr)
	if !ok || len(corr) == 0 || stripped.ReadsOuter() {
		return nil, nil, "", false
	}
	var keys []plan.ColumnID
	var joins []*plan.Expr
	seen := plan.ColSet{}
	for _, c := range corr {
		k, o, ok := correlationSides(c, inner)
		if !ok {
			return nil, nil, "", false
		}
		if !seen.Has(k.Col) {
			seen.Add(k.Col)
			keys = append(keys, k.Col)
		}
		joins = append(joins, plan.NewOp(plan.OpEq, c.Typ, k.Copy(), o.Copy()))
	}
	leaf := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{stripped}, GroupBy: keys, Aggs: []plan.ProjItem{{ID: aggID, Expr: call}}}
	cmp := plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.Subquery {
			return f.Copy()
		}
		return x
	})
	return leaf, append([]*plan.Expr{cmp}, joins...), call.Name, true
}

// correlationSides splits a correlation conjunct into the inner column
// and the enclosing expression: k = o, of one type, o reading no inner
// column and holding no subquery.
func correlationSides(c *plan.Expr, inner plan.ColSet) (*plan.Expr, *plan.Expr, bool) {
	if !c.IsOp(plan.OpEq) || len(c.Args) != 2 {
		return nil, nil, false
	}
	for i := 0; i < 2; i++ {
		k, o := c.Args[i], c.Args[1-i]
		if k.Kind != plan.ColRef || !inner.Has(k.Col) || k.Typ != o.Typ {
			continue
		}
		if o.HasSubquery() || o.Cols().Intersects(inner) || o.Cols().Empty() {
			continue
		}
		volatileCall := false
		plan.Walk(o, func(x *plan.Expr) {
			if (x.Kind == plan.Func && volatile[x.Name]) || x.Kind == plan.Param {
				volatileCall = true
			}
		})
		if volatileCall {
			continue
		}
		return k, o, true
	}
	return nil, nil, false
}

// stripCorrelation copies n without the conjuncts of its filters and
// inner joins that read a column outside inner (collected in corr); it
// goes down through filters and inner joins only, whose conjuncts may
// move to the top: every column they read passes through to it.
func stripCorrelation(n *plan.Node, inner plan.ColSet, corr *[]*plan.Expr) (*plan.Node, bool) {
	switch {
	case n.Op == plan.OpFilter, n.Op == plan.OpJoin && n.Join == plan.InnerJoin:
	default:
		return n, true
	}
	c := *n
	c.Preds = nil
	for _, e := range n.Preds {
		if e.Cols().SubsetOf(inner) {
			c.Preds = append(c.Preds, e)
		} else {
			*corr = append(*corr, e)
		}
	}
	c.Inputs = make([]*plan.Node, len(n.Inputs))
	for i, in := range n.Inputs {
		s, ok := stripCorrelation(in, inner, corr)
		if !ok {
			return nil, false
		}
		c.Inputs[i] = s
	}
	if c.Op == plan.OpFilter && len(c.Preds) == 0 {
		return c.Inputs[0], true
	}
	return &c, true
}

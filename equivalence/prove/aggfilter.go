package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate filters": the forms an ORM writes one conditional
// aggregate in (Django's Count(filter=Q), Sum(Case(When)), .filter() then
// .aggregate()), brought to COUNT(*) FILTER (WHERE p) and, without a GROUP
// BY, to a WHERE.
//
//   - agg-filter-where: γ[](R; f(x) FILTER (WHERE p), …) ⇒ γ[](σ[p](R);
//     f(x), …) when every call has the same FILTER. Without GROUP BY both
//     are one row, and each call reads the rows p keeps (TRUE only, as
//     WHERE). With a GROUP BY a group p empties would vanish, so not there.
//   - count-case-filter: COUNT(CASE WHEN p THEN e END) counts the rows
//     where p is TRUE and e is not NULL: COUNT(*) FILTER (WHERE p) when e
//     is never NULL. SUM(CASE WHEN p THEN 1 ELSE 0 END) adds 1 for those
//     rows and 0 for the rest (p FALSE or NULL), so it is the same count
//     over a non-empty group: under a GROUP BY; without one an empty input
//     makes the SUM NULL, so only COALESCE(SUM(…), 0) is the count. SUM of
//     int4 is bigint, as COUNT is; the literals must be 1 and 0 of the
//     integer family (a bigint argument would make the SUM numeric, which
//     the planner types as such, so Typ Int is required of the call).

// aggFilterWhere applies agg-filter-where to aggregate n, or returns nil.
func (p *prover) aggFilterWhere(n *plan.Node) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) != 0 || len(n.Aggs) == 0 {
		return nil
	}
	f := n.Aggs[0].Expr.Filter
	if f == nil || f.HasSubquery() {
		return nil
	}
	aggs := make([]plan.ProjItem, len(n.Aggs))
	for i, a := range n.Aggs {
		if a.Expr.Kind != plan.Agg || a.Expr.Filter == nil || !sameTree(a.Expr.Filter, f) {
			return nil
		}
		c := *a.Expr
		c.Filter = nil
		aggs[i] = plan.ProjItem{ID: a.ID, Expr: &c}
	}
	c := *n
	c.Inputs = []*plan.Node{{Op: plan.OpFilter, Inputs: []*plan.Node{n.Inputs[0]}, Preds: plan.Conjuncts(f.Copy())}}
	c.Aggs = aggs
	p.rule(ruleAggFilterWhere)
	return &c
}

// countCaseFilter applies count-case-filter to aggregate n (a COUNT of a
// CASE anywhere; a SUM of a CASE under a GROUP BY), or to a projection
// over an aggregate without GROUP BY that reads each such SUM only as
// COALESCE(sum, 0). It returns nil where nothing changes.
func (p *prover) countCaseFilter(n *plan.Node, m *plan.Metadata) *plan.Node {
	switch {
	case n.Op == plan.OpAggregate:
		aggs, ok := p.caseCounts(n, m, len(n.GroupBy) > 0, nil)
		if !ok {
			return nil
		}
		c := *n
		c.Aggs = aggs
		return &c
	case n.Op == plan.OpProject && n.Inputs[0].Op == plan.OpAggregate && len(n.Inputs[0].GroupBy) == 0:
		agg := n.Inputs[0]
		// The SUMs every reader of which is COALESCE(sum, 0).
		wrapped := map[plan.ColumnID]bool{}
		for _, a := range agg.Aggs {
			wrapped[a.ID] = true
		}
		for _, it := range n.Proj {
			coalesceZeroReads(it.Expr, wrapped)
		}
		aggs, ok := p.caseCounts(agg, m, false, wrapped)
		if !ok {
			return nil
		}
		changed := map[plan.ColumnID]bool{}
		for i, a := range agg.Aggs {
			if a.Expr.Name == "sum" && aggs[i].Expr.Name == "count" {
				changed[a.ID] = true
			}
		}
		if len(changed) == 0 {
			// Only COUNT(CASE …) calls changed: the projection stays.
			c := *agg
			c.Aggs = aggs
			pc := *n
			pc.Inputs = []*plan.Node{&c}
			return &pc
		}
		c := *agg
		c.Aggs = aggs
		proj := make([]plan.ProjItem, len(n.Proj))
		for i, it := range n.Proj {
			proj[i] = plan.ProjItem{ID: it.ID, Expr: plan.Rewrite(it.Expr.Copy(), func(e *plan.Expr) *plan.Expr {
				if col, ok := coalesceZeroOf(e); ok && changed[col] {
					return plan.NewCol(col, catalog.Int)
				}
				return e
			})}
		}
		pc := *n
		pc.Inputs = []*plan.Node{&c}
		pc.Proj = proj
		return &pc
	}
	return nil
}

// caseCounts returns n's calls with count-case-filter applied, and whether
// any changed. A SUM of a CASE changes where sums says (a GROUP BY is
// there) or where wrapped holds its column.
func (p *prover) caseCounts(n *plan.Node, m *plan.Metadata, sums bool, wrapped map[plan.ColumnID]bool) ([]plan.ProjItem, bool) {
	var notNull plan.ColSet
	derived := false
	out := make([]plan.ProjItem, len(n.Aggs))
	changed := false
	for i, a := range n.Aggs {
		out[i] = a
		e := a.Expr
		if e.Kind != plan.Agg || e.Distinct || e.Filter != nil || e.Star || len(e.Args) != 1 || e.Args[0].Kind != plan.Case {
			continue
		}
		cs := e.Args[0]
		if cs.CaseHasOperand || len(cs.Args) < 2 || len(cs.Args) > 3 || cs.Args[0].HasSubquery() {
			continue
		}
		cond, then := cs.Args[0], cs.Args[1]
		var els *plan.Expr
		if len(cs.Args) == 3 {
			els = cs.Args[2]
		}
		if cs.HasElse != (els != nil) {
			continue
		}
		switch e.Name {
		case "count":
			if els != nil && !(els.Kind == plan.Const && els.Null) {
				continue
			}
			never := then.Kind == plan.Const && !then.Null
			if then.Kind == plan.ColRef {
				if !derived {
					notNull, derived = plan.Derive(n.Inputs[0], m).NotNull, true
				}
				never = notNull.Has(then.Col)
			}
			if !never {
				continue
			}
		case "sum":
			if !(sums || wrapped[a.ID]) || e.Typ != catalog.Int || !intLiteral(then, "1") || els == nil || !intLiteral(els, "0") {
				continue
			}
		default:
			continue
		}
		c := *e
		c.Name, c.Args, c.Star, c.Filter, c.Typ = "count", nil, true, cond.Copy(), catalog.Int
		out[i] = plan.ProjItem{ID: a.ID, Expr: &c}
		p.ruleOn(ruleCountCaseFilter, "%s", e.Name)
		changed = true
	}
	return out, changed
}

// intLiteral says whether e is the integer literal v.
func intLiteral(e *plan.Expr, v string) bool {
	return e.Kind == plan.Const && !e.Null && e.Typ == catalog.Int && e.Value == v
}

// coalesceZeroOf returns the column e reads when e is COALESCE(col, 0).
func coalesceZeroOf(e *plan.Expr) (plan.ColumnID, bool) {
	if e.Kind == plan.Func && e.Name == "coalesce" && len(e.Args) == 2 && e.Args[0].Kind == plan.ColRef && zeroConst(e.Args[1]) {
		return e.Args[0].Col, true
	}
	return 0, false
}

// coalesceZeroReads clears from wrapped each column e reads other than as
// COALESCE(col, 0).
func coalesceZeroReads(e *plan.Expr, wrapped map[plan.ColumnID]bool) {
	if _, ok := coalesceZeroOf(e); ok {
		return
	}
	if e.Kind == plan.ColRef {
		delete(wrapped, e.Col)
		return
	}
	if e.Kind == plan.Subquery {
		// A subquery may read the column as an outer reference.
		for _, c := range e.Cols().Ordered() {
			delete(wrapped, c)
		}
		return
	}
	e.Children(func(s **plan.Expr) { coalesceZeroReads(*s, wrapped) })
}

// sameTree says whether a and b are the same expression, node by node
// (no subquery: their plans are not compared).
func sameTree(a, b *plan.Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Typ != b.Typ || a.Name != b.Name || a.Col != b.Col || a.Value != b.Value || a.Null != b.Null ||
		a.Distinct != b.Distinct || a.Star != b.Star || a.CaseHasOperand != b.CaseHasOperand || a.HasElse != b.HasElse ||
		a.Kind == plan.Subquery || a.Kind == plan.WinFunc || len(a.Args) != len(b.Args) || !sameTree(a.Filter, b.Filter) {
		return false
	}
	for i := range a.Args {
		if !sameTree(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "decorrelate": a projection whose item is a correlated scalar
// subquery aggregating one column of an uncorrelated relation R,
//
//	SELECT ..., (SELECT agg(r.c) FROM R WHERE corr(x, r)) FROM X
//
// is X LEFT JOIN R ON corr, grouped by a key of X (and the other columns
// of X the projection reads, which the key determines). Each X row is one
// group: its matches, or one row of NULLs when there are none, over which
// SUM, AVG, MIN, MAX are NULL and COUNT(r.c) is 0 as the subquery's are.
// COUNT(*) would count the NULL row as 1 — the COUNT = 0 trap — so it is
// not rewritten, nor is an argument other than a plain column of R (an
// expression such as COALESCE(r.c, 0) is not NULL on the padded row).
func (p *prover) decorrelate(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject {
		return nil
	}
	x := n.Inputs[0]
	outer := x.OutColSet()
	var sub *plan.Expr
	count := 0
	for _, it := range n.Proj {
		plan.Walk(it.Expr, func(e *plan.Expr) {
			if e.Kind == plan.Subquery {
				count++
				sub = e
			}
		})
	}
	if count != 1 || sub.SubKind != plan.SubScalar || sub.Sub == nil {
		return nil
	}
	q := sub.Sub
	if q.Op != plan.OpProject || len(q.Proj) != 1 || q.Proj[0].Expr.Kind != plan.ColRef || q.Inputs[0].Op != plan.OpAggregate {
		return nil
	}
	agg := q.Inputs[0]
	if len(agg.GroupBy) != 0 || len(agg.Aggs) != 1 || agg.Aggs[0].ID != q.Proj[0].Expr.Col {
		return nil
	}
	call := agg.Aggs[0].Expr
	switch call.Name {
	case "sum", "avg", "min", "max", "count":
	default:
		return nil
	}
	if call.Kind != plan.Agg || call.Star || call.Filter != nil || len(call.Args) != 1 || call.Args[0].Kind != plan.ColRef {
		return nil
	}
	in := agg.Inputs[0]
	if in.Op != plan.OpFilter {
		return nil
	}
	var corr, local []*plan.Expr
	for _, e := range in.Preds {
		if e.Cols().Intersects(outer) {
			corr = append(corr, e)
		} else {
			local = append(local, e)
		}
	}
	if len(corr) == 0 {
		return nil
	}
	r := in.Inputs[0]
	if len(local) > 0 {
		r = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{r}, Preds: local}
	}
	// R must not read X's columns anywhere, and the argument must be R's.
	correlated := false
	r.WalkExprs(func(e *plan.Expr) {
		plan.WalkDeep(e, func(y *plan.Expr) {
			if y.Kind == plan.ColRef && outer.Has(y.Col) {
				correlated = true
			}
		})
	})
	if correlated || !r.OutColSet().Has(call.Args[0].Col) {
		return nil
	}
	// A key of X, and the columns of X the projection reads besides.
	props := plan.Derive(x, m)
	var key plan.ColSet
	found := false
	for _, k := range props.Keys {
		if !k.Empty() && k.SubsetOf(outer) {
			key, found = k, true
			break
		}
	}
	if !found {
		return nil
	}
	group := key.Copy()
	for _, it := range n.Proj {
		it.Expr.Cols().Ordered()
		for _, c := range it.Expr.Cols().Ordered() {
			if outer.Has(c) {
				group.Add(c)
			}
		}
	}
	join := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{x, r}, Preds: corr}
	grouped := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{join}, GroupBy: group.Ordered(), Aggs: []plan.ProjItem{{ID: agg.Aggs[0].ID, Expr: call}}}
	proj := make([]plan.ProjItem, len(n.Proj))
	for i, it := range n.Proj {
		proj[i] = plan.ProjItem{ID: it.ID, Expr: plan.Rewrite(it.Expr.Copy(), func(e *plan.Expr) *plan.Expr {
			if e.Kind == plan.Subquery {
				return plan.NewCol(agg.Aggs[0].ID, call.Typ)
			}
			return e
		})}
	}
	p.ruleOn(ruleDecorrelateScalar, "%s", call.Name)
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{grouped}, Proj: proj}
}

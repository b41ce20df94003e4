package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
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
//
// Django's Subquery counts come grouped and wrapped (decorrelate-grouped):
//
//	COALESCE((SELECT COUNT(*) FROM R WHERE r.k = x.c GROUP BY r.k), 0)
//
// The correlation pins every grouping column to an outer value, so there
// is at most one group: the subquery is the ungrouped aggregate where R
// has matches and NULL where it has none. For SUM, AVG, MIN, MAX that is
// the ungrouped value anyway; for COUNT, COALESCE(…, 0) makes it the
// ungrouped count, so only the wrapped form is taken, and the wrapper goes
// with the subquery. COUNT(*) is read as COUNT of a NOT NULL column of R,
// which the padded row leaves uncounted.
func (p *prover) decorrelate(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject {
		return nil
	}
	x := n.Inputs[0]
	outer := x.OutColSet()
	ca := correlatedAggregate(n)
	if ca == nil {
		return nil
	}
	r, corr := ca.decorrelatedInput(outer)
	if r == nil {
		return nil
	}
	if ca.grouped && !pinnedByCorrelation(ca.agg.GroupBy, corr, outer) {
		return nil
	}
	call := ca.call
	if ca.star {
		c, ok := notNullCol(r, m)
		if !ok {
			return nil
		}
		cc := *call
		cc.Star, cc.Args = false, []*plan.Expr{plan.NewCol(c, m.Col(c).Type)}
		call = &cc
	}
	group, ok := outerGroup(n, m)
	if !ok {
		return nil
	}
	join := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{x, r}, Preds: corr}
	groupedJoin := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{join}, GroupBy: group.Ordered(), Aggs: []plan.ProjItem{{ID: ca.agg.Aggs[0].ID, Expr: call}}}
	proj := ca.placeAggregate(n.Proj, call)
	// The new join pads R's columns with NULLs: nullable on either side
	// from now on (the sets were read off the plans before this rewrite;
	// more nullable columns only hold rules back).
	padded := allCols(r)
	p.nullA.UnionWith(padded)
	p.nullB.UnionWith(padded)
	if ca.grouped || ca.star {
		p.ruleOn(ruleDecorrelateGrouped, "%s", call.Name)
	} else {
		p.ruleOn(ruleDecorrelateScalar, "%s", call.Name)
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{groupedJoin}, Proj: proj}
}

// A correlatedAgg is the one scalar subquery of a projection that
// decorrelate takes: sub, the COALESCE(sub, 0) around it where the
// projection has one (wrap), its aggregate (agg) with its one call, and
// whether it is grouped or a COUNT(*) read as a count of a column (star).
type correlatedAgg struct {
	sub, wrap     *plan.Expr
	agg           *plan.Node
	call          *plan.Expr
	grouped, star bool
}

// correlatedAggregate reads projection n's one scalar subquery as an
// aggregate decorrelate takes, or returns nil.
func correlatedAggregate(n *plan.Node) *correlatedAgg {
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
	ca := &correlatedAgg{sub: sub}
	for _, it := range n.Proj {
		plan.Walk(it.Expr, func(e *plan.Expr) {
			if e.Kind == plan.Func && e.Name == "coalesce" && len(e.Args) == 2 && e.Args[0] == sub && zeroConst(e.Args[1]) {
				ca.wrap = e
			}
		})
	}
	q := sub.Sub
	if q.Op != plan.OpProject || len(q.Proj) != 1 || q.Proj[0].Expr.Kind != plan.ColRef || q.Inputs[0].Op != plan.OpAggregate {
		return nil
	}
	ca.agg = q.Inputs[0]
	if len(ca.agg.Aggs) != 1 || ca.agg.Aggs[0].ID != q.Proj[0].Expr.Col {
		return nil
	}
	ca.grouped = len(ca.agg.GroupBy) != 0
	call := ca.agg.Aggs[0].Expr
	switch call.Name {
	case "sum", "avg", "min", "max":
	case "count":
		if ca.grouped && ca.wrap == nil {
			return nil
		}
	default:
		return nil
	}
	ca.star = call.Name == "count" && call.Star && !call.Distinct && ca.wrap != nil
	if call.Kind != plan.Agg || call.Filter != nil || (call.Star && !ca.star) || (!ca.star && (len(call.Args) != 1 || call.Args[0].Kind != plan.ColRef)) {
		return nil
	}
	ca.call = call
	return ca
}

// decorrelatedInput splits the filter under the aggregate into the
// conjuncts reading outer columns (corr) and R, the relation with the
// other conjuncts, or returns a nil R when there is no correlation, R
// reads an outer column elsewhere or the call's argument is not R's.
func (ca *correlatedAgg) decorrelatedInput(outer plan.ColSet) (r *plan.Node, corr []*plan.Expr) {
	in := ca.agg.Inputs[0]
	if in.Op != plan.OpFilter {
		return nil, nil
	}
	var local []*plan.Expr
	for _, e := range in.Preds {
		if e.Cols().Intersects(outer) {
			corr = append(corr, e)
		} else {
			local = append(local, e)
		}
	}
	if len(corr) == 0 {
		return nil, nil
	}
	r = in.Inputs[0]
	if len(local) > 0 {
		r = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{r}, Preds: local}
	}
	correlated := false
	r.WalkExprs(func(e *plan.Expr) {
		plan.WalkDeep(e, func(y *plan.Expr) {
			if y.Kind == plan.ColRef && outer.Has(y.Col) {
				correlated = true
			}
		})
	})
	if correlated || (!ca.star && !r.OutColSet().Has(ca.call.Args[0].Col)) {
		return nil, nil
	}
	return r, corr
}

// outerGroup is a key of projection n's input X and the columns of X
// the projection reads besides, or false when X has no key.
func outerGroup(n *plan.Node, m *plan.Metadata) (plan.ColSet, bool) {
	x := n.Inputs[0]
	outer := x.OutColSet()
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
		return plan.ColSet{}, false
	}
	group := key.Copy()
	for _, it := range n.Proj {
		for _, c := range it.Expr.Cols().Ordered() {
			if outer.Has(c) {
				group.Add(c)
			}
		}
	}
	return group, true
}

// placeAggregate is the projection items with the aggregate's column,
// of call's type, in the subquery's place.
func (ca *correlatedAgg) placeAggregate(items []plan.ProjItem, call *plan.Expr) []plan.ProjItem {
	proj := make([]plan.ProjItem, len(items))
	for i, it := range items {
		var placed *plan.Expr // the column that took the subquery's place
		proj[i] = plan.ProjItem{ID: it.ID, Expr: plan.Rewrite(it.Expr.Copy(), func(e *plan.Expr) *plan.Expr {
			if e.Kind == plan.Subquery {
				placed = plan.NewCol(ca.agg.Aggs[0].ID, call.Typ)
				return placed
			}
			// A COUNT over the left join is 0 where R has no match:
			// the wrapper's COALESCE(…, 0) goes with the subquery.
			if ca.wrap != nil && call.Name == "count" && e.Kind == plan.Func && e.Name == "coalesce" &&
				len(e.Args) == 2 && placed != nil && e.Args[0] == placed && zeroConst(e.Args[1]) {
				return placed
			}
			return e
		})}
	}
	return proj
}

// zeroConst says whether e is the integer literal 0.
func zeroConst(e *plan.Expr) bool {
	return e.Kind == plan.Const && !e.Null && e.Typ == catalog.Int && e.Value == "0"
}

// pinnedByCorrelation says whether each grouping column is equated, by a
// conjunct of corr, with a column of the outer query: then a grouped
// aggregate has at most one group (GROUP BY and = agree on which values
// are one: the type's default equality).
func pinnedByCorrelation(group []plan.ColumnID, corr []*plan.Expr, outer plan.ColSet) bool {
	for _, g := range group {
		found := false
		for _, e := range corr {
			if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef || e.Args[0].Typ != e.Args[1].Typ {
				continue
			}
			a, b := e.Args[0].Col, e.Args[1].Col
			if (a == g && outer.Has(b)) || (b == g && outer.Has(a)) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// notNullCol returns a column of r that is never NULL, a key column first
// (the one a join-then-count form counts).
func notNullCol(r *plan.Node, m *plan.Metadata) (plan.ColumnID, bool) {
	props := plan.Derive(r, m)
	for _, k := range props.Keys {
		if k.Len() == 1 && k.SubsetOf(props.NotNull) {
			return k.Ordered()[0], true
		}
	}
	for _, c := range r.OutCols() {
		if props.NotNull.Has(c) {
			return c, true
		}
	}
	return 0, false
}

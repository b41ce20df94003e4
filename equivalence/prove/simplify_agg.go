package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The rewrites of simplify of one aggregate: COUNT over nothing, calls
// blind to duplicates over a deduplication, constant grouping keys,
// grouping on a key.

// simplifyAggregate rewrites aggregate n: COUNTs over nothing, calls
// blind to duplicates over a deduplication, constant grouping keys,
// grouping on a key of the input.
func simplifyAggregate(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	in := n.Inputs[0]
	if v := countOverNothing(n); v != nil {
		return v, ruleCountEmptyZero
	}
	// A deduplication evaluates all its columns on every row: one that
	// may raise (i + 1) keeps it, since the calls need not read it.
	dedup := (in.Op == plan.OpDistinct || (in.Op == plan.OpAggregate && len(in.Aggs) == 0)) && !plan.DefsMayRaise(in, in.OutCols())
	if len(n.GroupBy) > 0 && dupInsensitive(n.Aggs) && dedup {
		c := *n
		c.Inputs = []*plan.Node{in.Inputs[0]}
		return &c, ruleAggOverDistinct
	}
	if len(n.GroupBy) == 0 && len(n.Aggs) > 0 && dupInsensitive(n.Aggs) && dedup {
		c := *n
		c.Inputs = []*plan.Node{in.Inputs[0]}
		return &c, ruleAggOverDistinct
	}
	if len(n.GroupBy) > 1 {
		if p := constGroupKey(n, m, constCols(in)); p != nil {
			return p, ruleConstGroupKey
		}
		if p := constGroupKey(n, m, pinnedCols(in, m)); p != nil {
			return p, rulePinnedGroupKey
		}
	}
	if len(n.GroupBy) > 0 && plan.Derive(in, m).HasKeyWithin(plan.MakeColSet(n.GroupBy...)) {
		if p := groupOnKey(n, m); p != nil {
			return p, ruleGroupOnKey
		}
	}
	return nil, nil
}

// countOverNothing is the one row of zeros of an aggregate without
// grouping whose calls all COUNT no value (a FALSE or NULL filter, an
// always-NULL argument), or nil.
func countOverNothing(n *plan.Node) *plan.Node {
	if len(n.GroupBy) == 0 && len(n.Aggs) > 0 {
		zeros := true
		for _, a := range n.Aggs {
			e := a.Expr
			none := e.Filter != nil && (e.Filter.IsFalse() || (e.Filter.Kind == plan.Const && e.Filter.Null))
			nullArg := !e.Star && len(e.Args) == 1 && alwaysNull(e.Args[0])
			if e.Kind != plan.Agg || e.Name != "count" || !(none || nullArg) {
				zeros = false
			}
		}
		if zeros {
			row := make([]*plan.Expr, len(n.Aggs))
			cols := make([]plan.ColumnID, len(n.Aggs))
			for i, a := range n.Aggs {
				row[i] = plan.NewConst(catalog.Int, "0")
				cols[i] = a.ID
			}
			return &plan.Node{Op: plan.OpValues, Rows: [][]*plan.Expr{row}, Cols: cols}
		}
	}
	return nil
}

// constGroupKey regroups aggregate n without its grouping columns that
// are constant in its input, projecting the constants back, or returns
// nil.
func constGroupKey(n *plan.Node, m *plan.Metadata, consts map[plan.ColumnID]*plan.Expr) *plan.Node {
	var keep []plan.ColumnID
	var dropped []plan.ProjItem
	for _, g := range n.GroupBy {
		if c := consts[g]; c != nil {
			dropped = append(dropped, plan.ProjItem{ID: g, Expr: c.Copy()})
		} else {
			keep = append(keep, g)
		}
	}
	if len(dropped) > 0 && len(keep) > 0 {
		c := *n
		c.GroupBy = keep
		agg := &c
		var proj []plan.ProjItem
		for _, g := range n.GroupBy {
			if consts[g] != nil {
				proj = append(proj, plan.ProjItem{ID: g, Expr: consts[g].Copy()})
			} else {
				proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
			}
		}
		for _, a := range n.Aggs {
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: plan.NewCol(a.ID, m.Col(a.ID).Type)})
		}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{agg}, Proj: proj}
	}
	return nil
}

// groupOnKey reads aggregate n, grouped on a key of its input, off each
// input row (every group is one row), or returns nil when a call cannot
// be read so.
func groupOnKey(n *plan.Node, m *plan.Metadata) *plan.Node {
	if plan.DefsMayRaise(n.Inputs[0], n.GroupBy) {
		// GROUP BY k, i + 1 evaluates i + 1 on every row; the rows read
		// off may leave it unread (and pruned) where it would raise.
		return nil
	}
	var proj []plan.ProjItem
	for _, g := range n.GroupBy {
		proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
	}
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Kind != plan.Agg || e.Filter != nil {
			return nil
		}
		switch {
		case e.Name == "count" && (e.Star || countsRows(e)):
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: plan.NewConst(catalog.Int, "1")})
		case e.Name == "count" && len(e.Args) == 1 && !e.Args[0].HasSubquery():
			// One row: COUNT([DISTINCT] x) is 1 unless x is NULL.
			isNull := plan.NewOp(plan.OpIsNull, catalog.Bool, e.Args[0].Copy())
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: &plan.Expr{Kind: plan.Case, Typ: e.Typ, HasElse: true, Pos: -1,
				Args: []*plan.Expr{isNull, plan.NewConst(e.Typ, "0"), plan.NewConst(e.Typ, "1")}}})
		case (e.Name == "min" || e.Name == "max" || e.Name == "any_value") && len(e.Args) == 1 && e.Args[0].Typ == e.Typ:
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: e.Args[0].Copy()})
		default:
			return nil
		}
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[0]}, Proj: proj}
}

// dupInsensitive says whether every call ignores duplicate input rows.
func dupInsensitive(aggs []plan.ProjItem) bool {
	for _, a := range aggs {
		e := a.Expr
		if e.Kind != plan.Agg {
			return false
		}
		if d, _ := describeAgg(e); !d.dupInsensitive && !e.Distinct {
			return false
		}
	}
	return true
}

// constCols returns the columns a projection on top of n defines as
// non-NULL constants.
func constCols(n *plan.Node) map[plan.ColumnID]*plan.Expr {
	out := map[plan.ColumnID]*plan.Expr{}
	if n.Op == plan.OpProject {
		for _, it := range n.Proj {
			if it.Expr.Kind == plan.Const && !it.Expr.Null {
				out[it.ID] = it.Expr
			}
		}
	}
	return out
}

// pinnedCols returns the columns a filter n pins to a non-NULL constant
// with a conjunct col = c that is identity on their values (an integer,
// a text under a deterministic collation, ...): every row n keeps holds
// c there, so the column is that constant, typed as the column.
func pinnedCols(n *plan.Node, m *plan.Metadata) map[plan.ColumnID]*plan.Expr {
	out := map[plan.ColumnID]*plan.Expr{}
	if n.Op != plan.OpFilter {
		return out
	}
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for k := 0; k < 2; k++ {
			x, c := e.Args[k], e.Args[1-k]
			if x.Kind == plan.ColRef && c.Kind == plan.Const && !c.Null && c.Typ == m.Col(x.Col).Type && m.IdentityEq(x, c) {
				out[x.Col] = c
			}
		}
	}
	return out
}

// alwaysNull says whether e is NULL in every row: NULL, or a strict
// operator or function of something always NULL.
func alwaysNull(e *plan.Expr) bool {
	if e.Kind == plan.Const {
		return e.Null
	}
	strict := (e.Kind == plan.Op && strictOps[e.Name]) || (e.Kind == plan.Func && strictFuncs[e.Name] && e.Filter == nil)
	if !strict {
		return false
	}
	for _, a := range e.Args {
		if alwaysNull(a) {
			return true
		}
	}
	return false
}

// countsRows says whether a COUNT call counts every input row: COUNT(*)
// or COUNT of a non-NULL constant (COUNT(1)).
func countsRows(e *plan.Expr) bool {
	if e.Kind != plan.Agg || e.Name != "count" || e.Distinct || e.Filter != nil {
		return false
	}
	return e.Star || (len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null)
}

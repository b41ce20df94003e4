package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate through a join on a key": an aggregate over the
// inner join of R and S, grouped by columns that hold a key of R, has one
// group per R row with a partner; the group's rows are that R row paired
// with each of its partners in S. So it is R joined with S grouped by
// its join columns:
//
//	γ[K ⊇ key(R)] (R ⋈[R.c = S.f] S)  =  R ⋈[R.c = S.f] γ[S.f] (S)
//
// aggregates over S's columns (COUNT(*) counts the partners) move into
// the inner grouping, and MIN, MAX or ANY_VALUE of an R column, constant
// in each group, is the column. A grouping column of S equated with R's
// join column stands for that column. Conjuncts on one side alone move
// into that side; any other condition, or an aggregate reading both
// sides, leaves the aggregate as it is. An R row whose join column is
// NULL has no partner either way, and S rows grouped under a NULL join
// column match no R row.

// aggThroughJoin rewrites aggregate n as above, or returns nil.
func (p *prover) aggThroughJoin(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) == 0 {
		return nil
	}
	in := n.Inputs[0]
	var preds []*plan.Expr
	for in.Op == plan.OpFilter {
		preds = append(preds, in.Preds...)
		in = in.Inputs[0]
	}
	if in.Op != plan.OpJoin || in.Join != plan.InnerJoin || len(in.Inputs) != 2 {
		return nil
	}
	preds = append(preds, in.Preds...)
	for r := 0; r < 2; r++ {
		if out := aggPushSide(n, in.Inputs[r], in.Inputs[1-r], preds, m); out != nil {
			p.rule(ruleAggPushKey)
			return out
		}
	}
	return nil
}

func aggPushSide(n, R, S *plan.Node, preds []*plan.Expr, m *plan.Metadata) *plan.Node {
	rc, sc := R.OutColSet(), S.OutColSet()
	var rPreds, sPreds, eqs []*plan.Expr
	pairOf := map[plan.ColumnID]plan.ColumnID{} // S join column → R column
	var sGroup []plan.ColumnID
	for _, e := range preds {
		for _, c := range plan.Conjuncts(e) {
			if c.HasSubquery() {
				return nil
			}
			cols := c.Cols()
			switch {
			case cols.SubsetOf(rc):
				rPreds = append(rPreds, c)
			case cols.SubsetOf(sc):
				sPreds = append(sPreds, c)
			case c.IsOp(plan.OpEq) && len(c.Args) == 2 && c.Args[0].Kind == plan.ColRef && c.Args[1].Kind == plan.ColRef:
				x, y := c.Args[0].Col, c.Args[1].Col
				if sc.Has(x) && rc.Has(y) {
					x, y = y, x
				}
				if !rc.Has(x) || !sc.Has(y) || !m.KeyEq(c.Args[0], c.Args[1]) {
					// (Across types, values unequal to each other, '1' and
					// '1.0' in SQLite text, may both equal one value.)
					return nil
				}
				if _, seen := pairOf[y]; !seen {
					sGroup = append(sGroup, y)
				}
				pairOf[y] = x
				eqs = append(eqs, c)
			default:
				return nil
			}
		}
	}
	if len(eqs) == 0 {
		return nil
	}
	var rGroup plan.ColSet
	for _, g := range n.GroupBy {
		switch {
		case rc.Has(g):
			rGroup.Add(g)
		case hasKey(pairOf, g):
			rGroup.Add(pairOf[g])
		default:
			return nil
		}
	}
	if len(rPreds) > 0 {
		R = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{R}, Preds: rPreds}
	}
	if !plan.Derive(R, m).HasKeyWithin(rGroup) {
		return nil
	}
	var inner []plan.ProjItem
	var proj []plan.ProjItem
	for _, g := range n.GroupBy {
		proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
	}
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Kind != plan.Agg || e.HasSubquery() {
			return nil
		}
		cols := e.Cols()
		if cols.SubsetOf(sc) {
			inner = append(inner, a)
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: plan.NewCol(a.ID, m.Col(a.ID).Type)})
			continue
		}
		if (e.Name == "min" || e.Name == "max" || e.Name == "any_value") && e.Filter == nil && len(e.Args) == 1 &&
			e.Args[0].Kind == plan.ColRef && rc.Has(e.Args[0].Col) && e.Args[0].Typ == e.Typ {
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: e.Args[0].Copy()})
			continue
		}
		return nil
	}
	if len(sPreds) > 0 {
		S = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{S}, Preds: sPreds}
	}
	grouped := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{S}, GroupBy: sGroup, Aggs: inner}
	join := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{R, grouped}, Preds: eqs}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{join}, Proj: proj}
}

func hasKey(m map[plan.ColumnID]plan.ColumnID, k plan.ColumnID) bool {
	_, ok := m[k]
	return ok
}

// derivedKeyEquated is keyEquated for a sub-block whose one leaf is not a
// scan (a grouped derived table, say): the leaf's derived keys stand for
// the table's declared ones. Each outer row then has at most one partner,
// so the semi-join keeps the rows an inner join does, once each.
func derivedKeyEquated(sub, outer *block, m *plan.Metadata) bool {
	l := sub.leaves[0]
	own := l.OutColSet()
	var outerCols plan.ColSet
	for _, x := range outer.leaves {
		outerCols.UnionWith(allCols(x))
	}
	var pinned plan.ColSet
	for _, e := range sub.preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for i, x := range e.Args {
			other := e.Args[1-i]
			if x.Kind != plan.ColRef || !own.Has(x.Col) || other.HasSubquery() {
				continue
			}
			oc := other.Cols()
			if m.KeyEq(other, x) && (other.Kind == plan.Const || (!oc.Empty() && oc.SubsetOf(outerCols))) {
				pinned.Add(x.Col)
			}
		}
	}
	return !pinned.Empty() && plan.Derive(l, m).HasKeyWithin(pinned)
}

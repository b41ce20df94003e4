package rewrite

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Order rules: ORDER BY ... LIMIT 1 and MAX/MIN, each way.

// maxSubqueryToLimit: Filter(t, c = (SELECT MAX(c) FROM t WHERE φ)) with
// the same φ on both sides ⇒ Limit 1 (Sort c DESC (Filter(t, φ))), MIN
// with ASC. Sound only when c alone is a key of t (unique and not null):
// otherwise ties give several rows on one side and one on the other.
func maxSubqueryToLimit(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpFilter {
		return false
	}
	scan, preds, ok := singleTable(n)
	if !ok {
		return false
	}
	for i, p := range preds {
		if !p.IsOp(plan.OpEq) || p.Args[0].Kind != plan.ColRef || p.Args[1].Kind != plan.Subquery || p.Args[1].SubKind != plan.SubScalar {
			continue
		}
		c := p.Args[0].Col
		o := ordinalOf(scan, c)
		if o < 0 || !singleColumnKey(scan.Table, o) {
			continue
		}
		sub := p.Args[1].Sub
		if sub.Op == plan.OpProject {
			sub = sub.Inputs[0]
		}
		if sub.Op != plan.OpAggregate || len(sub.GroupBy) > 0 || len(sub.Aggs) != 1 {
			continue
		}
		agg := sub.Aggs[0].Expr
		if (agg.Name != "max" && agg.Name != "min") || agg.Distinct || agg.Filter != nil || len(agg.Args) != 1 || agg.Args[0].Kind != plan.ColRef {
			continue
		}
		subScan, subPreds, ok := singleTable(sub.Inputs[0])
		if !ok || subScan.Table != scan.Table || ordinalOf(subScan, agg.Args[0].Col) != o {
			continue
		}
		rest := append(append([]*plan.Expr(nil), preds[:i]...), preds[i+1:]...)
		if !sameConjuncts(r, rest, remap(subPreds, columnMap(scan, subScan))) {
			continue
		}
		var body *plan.Node = scan
		if len(rest) > 0 {
			body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{scan}, Preds: rest}
		}
		desc := agg.Name == "max"
		sort := &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{body}, Keys: []plan.SortKey{{Expr: plan.NewCol(c, p.Args[0].Typ), Desc: desc, NullsFirst: desc}}}
		*slot = &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{sort}, Limit: plan.NewConst(catalog.Int, "1")}
		return true
	}
	return false
}

// sameConjuncts compares two conjunct lists as sets by canonical text.
func sameConjuncts(r *Ctx, a, b []*plan.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	f := r.formatter(true)
	count := map[string]int{}
	for _, e := range a {
		count[f.Expr(e)]++
	}
	for _, e := range b {
		k := f.Expr(e)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// orderLimitToMax: Project(c)(Limit 1 (Sort c DESC (x))) ⇒
// Project(MAX(c))(Aggregate(x)), ASC with MIN, when c is not NULL in x (or
// NULLs sort last). Equivalent only if x is not empty: over no rows MAX
// returns one NULL row and LIMIT returns none. The assumption is named.
func orderLimitToMax(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpProject || len(n.Proj) != 1 || n.Proj[0].Expr.Kind != plan.ColRef {
		return false
	}
	lim := n.Inputs[0]
	if lim.Op != plan.OpLimit || lim.Offset != nil || lim.Limit == nil || lim.Limit.Kind != plan.Const || lim.Limit.Value != "1" {
		return false
	}
	sort := lim.Inputs[0]
	if sort.Op != plan.OpSort || len(sort.Keys) != 1 || sort.Keys[0].Expr.Kind != plan.ColRef {
		return false
	}
	c := n.Proj[0].Expr.Col
	k := sort.Keys[0]
	if k.Expr.Col != c {
		return false
	}
	x := sort.Inputs[0]
	if !r.props(x).NotNull.Has(c) && k.NullsFirst {
		return false
	}
	if d := r.p.Meta.Domain(c); d.Nondeterministic || d.Type == catalog.Text && d.Base == "citext" {
		// Values a collation calls equal but that differ ('a', 'A'
		// under a case-insensitive one) tie: MAX returns one of them
		// and the LIMIT another (found by the soundness campaign).
		return false
	}
	name := "min"
	if k.Desc {
		name = "max"
	}
	cm := *r.p.Meta.Col(c)
	typ := cm.Type
	dom := r.p.Meta.Domain(c)
	id := r.p.Meta.AddColumn(plan.ColumnMeta{Name: name, Type: typ, Instance: -1, Ordinal: -1, Dom: &dom})
	// The projection's output gets a fresh id: keeping c while defining it
	// as #id, with id := max(#c) reading x's c, would make c its own
	// definition (a cycle every renderer recurses on forever). Readers of
	// the projection's c above n move to the new id.
	out := r.p.Meta.AddColumn(plan.ColumnMeta{Name: cm.Name, Type: typ, Instance: -1, Ordinal: -1, Dom: &dom})
	plan.ReplaceColsOutside(r.p.Root, n, map[plan.ColumnID]*plan.Expr{c: plan.NewCol(out, typ)})
	agg := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{x}, Aggs: []plan.ProjItem{{ID: id, Expr: &plan.Expr{Kind: plan.Agg, Name: name, Typ: typ, Args: []*plan.Expr{plan.NewCol(c, typ)}, Pos: -1}}}}
	n.Inputs[0] = agg
	n.Proj[0] = plan.ProjItem{ID: out, Expr: plan.NewCol(id, typ)}
	if !scalarSubqueryRoot(r.p.Root, n) {
		// At the top, or under IN or EXISTS, the LIMIT over no row is no
		// row and MAX one row of NULL. As a scalar subquery's body both
		// are NULL: no assumption (issue 35).
		r.assume(Assumption{Kind: AssumeNonEmpty, Subject: relationName(x)})
	}
	return true
}

// scalarSubqueryRoot says whether n is the plan of a scalar subquery in
// root (a correlated one included).
func scalarSubqueryRoot(root, n *plan.Node) bool {
	found := false
	var g func(x *plan.Expr)
	g = func(x *plan.Expr) {
		if x.Kind == plan.Subquery && x.Sub != nil {
			found = found || (x.SubKind == plan.SubScalar && x.Sub == n)
			x.Sub.WalkExprs(g)
		}
	}
	root.WalkExprs(g)
	return found
}

// relationName names the rows an assumption is about.
func relationName(x *plan.Node) string {
	if scan, preds, ok := singleTable(x); ok {
		if len(preds) == 0 {
			return scan.Table.Name
		}
		return "the rows of " + scan.Table.Name + " that pass the filter"
	}
	return "the input"
}

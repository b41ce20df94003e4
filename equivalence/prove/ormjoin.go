package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ORM forms of anti-joins and of counts over left joins (issue 35,
// acceptance 4), each a node rewrite of simplify.

// antiJoinFK: R ▷[R.f = P.k] P ⇒ σ[R.f IS NULL](R) when f → P(k) is a
// declared foreign key, every conjunct equates one of its columns with
// the column it references, and P is the referenced table unfiltered
// (Django's filter(author__username__isnull=True) through a LEFT JOIN
// against filter(author__isnull=True)). A row whose f columns are all
// non-NULL has a partner (the foreign key holds) and goes; one with a
// NULL among them matches nothing under = and stays (MATCH SIMPLE: such
// a row is not checked either). Assumed on SQLite, as fk-left-join-inner.
func (p *prover) antiJoinFK(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || n.Join != plan.AntiJoin || len(n.Preds) == 0 || n.Inputs[1].Op != plan.OpScan || n.Inputs[1].Table == nil {
		return nil
	}
	right := n.Inputs[1]
	rightOrd := map[plan.ColumnID]int{}
	for i, c := range right.Cols {
		rightOrd[c] = i
	}
	leftCols := n.Inputs[0].OutColSet()
	inst := -1
	pairs := map[int]int{} // child ordinal -> parent ordinal
	childCol := map[int]*plan.Expr{}
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef || !m.KeyEq(e.Args[0], e.Args[1]) {
			return nil
		}
		l, r := e.Args[0], e.Args[1]
		if _, ok := rightOrd[l.Col]; ok {
			l, r = r, l
		}
		ro, ok := rightOrd[r.Col]
		if !ok || !leftCols.Has(l.Col) {
			return nil
		}
		meta := m.Col(l.Col)
		if meta.Instance < 0 || (inst >= 0 && meta.Instance != inst) {
			return nil
		}
		if _, dup := pairs[meta.Ordinal]; dup {
			return nil
		}
		inst = meta.Instance
		pairs[meta.Ordinal] = ro
		childCol[meta.Ordinal] = l
	}
	if inst < 0 || inst >= len(m.Instances) || m.Instances[inst].Table == nil {
		return nil
	}
	child := m.Instances[inst].Table
	for _, fk := range child.ForeignKeys {
		if !fkBindsPairs(fk, right.Table, pairs) {
			continue
		}
		subj := ""
		var nulls []*plan.Expr
		for k, c := range fk.Columns {
			if k > 0 {
				subj += ", "
			}
			subj += child.Name + "." + child.Columns[c].Name + " references " + right.Table.Name + "." + right.Table.Columns[fk.RefColumns[k]].Name
			nulls = append(nulls, plan.NewOp(plan.OpIsNull, catalog.Bool, childCol[c].Copy()))
		}
		if !p.opts.TrustForeignKeys {
			p.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
		}
		p.ruleOn(ruleAntiJoinFK, "%s", subj)
		pred := nulls[0]
		for _, x := range nulls[1:] {
			pred = plan.NewOp(plan.OpOr, catalog.Bool, pred, x)
		}
		return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n.Inputs[0]}, Preds: []*plan.Expr{pred}}
	}
	return nil
}

// havingCountZero: σ[COUNT(r.c) = 0](γ[K](X ⟕[q] R; COUNT(r.c))) ⇒
// π[K, 0](X ▷[q] R) when K is columns of X holding a key of X and r.c is
// never NULL in R (Django's annotate(n=Count(...)).filter(n=0) against
// ~Exists()). Each group is one row of X; its count is 0 exactly when
// the row has no partner (the padded row's NULL is not counted, a
// partner's c is).
func havingCountZero(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpFilter || len(n.Preds) != 1 || n.Inputs[0].Op != plan.OpAggregate {
		return nil
	}
	agg := n.Inputs[0]
	if len(agg.Aggs) != 1 || len(agg.GroupBy) == 0 || agg.Inputs[0].Op != plan.OpJoin || agg.Inputs[0].Join != plan.LeftJoin || len(agg.Inputs[0].Inputs) != 2 {
		return nil
	}
	e := n.Preds[0]
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
		return nil
	}
	col, zero := e.Args[0], e.Args[1]
	if zeroConst(col) {
		col, zero = zero, col
	}
	if col.Kind != plan.ColRef || col.Col != agg.Aggs[0].ID || !zeroConst(zero) {
		return nil
	}
	call := agg.Aggs[0].Expr
	if call.Kind != plan.Agg || call.Name != "count" || call.Star || call.Filter != nil || len(call.Args) != 1 || call.Args[0].Kind != plan.ColRef {
		return nil
	}
	j := agg.Inputs[0]
	x, r := j.Inputs[0], j.Inputs[1]
	for _, q := range j.Preds {
		if q.HasSubquery() {
			return nil
		}
	}
	if !plan.Derive(r, m).NotNull.Has(call.Args[0].Col) {
		return nil
	}
	group := plan.MakeColSet(agg.GroupBy...)
	if !group.SubsetOf(x.OutColSet()) {
		return nil
	}
	keyed := false
	for _, k := range plan.Derive(x, m).Keys {
		if k.SubsetOf(group) {
			keyed = true
		}
	}
	if !keyed {
		return nil
	}
	anti := &plan.Node{Op: plan.OpJoin, Join: plan.AntiJoin, Inputs: []*plan.Node{x, r}, Preds: j.Preds}
	proj := make([]plan.ProjItem, 0, len(agg.GroupBy)+1)
	for _, g := range agg.GroupBy {
		proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
	}
	proj = append(proj, plan.ProjItem{ID: agg.Aggs[0].ID, Expr: plan.NewConst(catalog.Int, "0")})
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{anti}, Proj: proj}
}

// leftJoinAggFilter: γ[K](X ⟕[q] R; f(r.c) FILTER (WHERE p(R)), …) ⇒
// γ[K](X ⟕[q] σ[p](R); f(r.c), …) when K is columns of X, every call has
// the same FILTER p reading R alone and skips a NULL argument, a column
// of R (COUNT(c), SUM, MIN, MAX, AVG, DISTINCT or not). Django's
// Count('comment', filter=Q(comment__approved=True)) against a filtered
// Subquery count. A row of X keeps its partners' c where p holds: with
// the FILTER, from all its partners (or the padded row, whose c is
// NULL); without, from the partners that pass p, or the padded row
// where none does. Either way the calls see the same non-NULL values.
func leftJoinAggFilter(n *plan.Node) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.Aggs) == 0 || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin || len(n.Inputs[0].Inputs) != 2 {
		return nil
	}
	j := n.Inputs[0]
	x, r := j.Inputs[0], j.Inputs[1]
	rcols := allCols(r)
	if !plan.MakeColSet(n.GroupBy...).SubsetOf(x.OutColSet()) {
		return nil
	}
	f := n.Aggs[0].Expr.Filter
	if f == nil || f.HasSubquery() || !f.Cols().SubsetOf(r.OutColSet()) {
		return nil
	}
	aggs := make([]plan.ProjItem, len(n.Aggs))
	for i, a := range n.Aggs {
		e := a.Expr
		switch e.Name {
		case "count", "sum", "min", "max", "avg":
		default:
			return nil
		}
		if e.Kind != plan.Agg || e.Star || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef || !rcols.Has(e.Args[0].Col) || !sameTree(e.Filter, f) {
			return nil
		}
		c := *e
		c.Filter = nil
		aggs[i] = plan.ProjItem{ID: a.ID, Expr: &c}
	}
	nj := *j
	nj.Inputs = []*plan.Node{x, {Op: plan.OpFilter, Inputs: []*plan.Node{r}, Preds: plan.Conjuncts(f.Copy())}}
	c := *n
	c.Inputs = []*plan.Node{&nj}
	c.Aggs = aggs
	return &c
}

// countDistinctValues: γ[](δ(π[x](σ[x IS NOT NULL ∧ …](R))); COUNT(*)) ⇒
// γ[](σ[…](R); COUNT(DISTINCT x)) (Django's
// filter(x__isnull=False).values('x').distinct().count() against
// aggregate(Count('x', distinct=True))): both count the distinct
// non-NULL values of x, DISTINCT and COUNT(DISTINCT) telling values apart
// by one equality. The IS NOT NULL conjunct goes (COUNT skips NULLs); x
// NOT NULL in the input needs none.
func countDistinctValues(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) != 0 || len(n.Aggs) != 1 || !countsRows(n.Aggs[0].Expr) || n.Inputs[0].Op != plan.OpDistinct {
		return nil
	}
	proj := n.Inputs[0].Inputs[0]
	if proj.Op != plan.OpProject || len(proj.Proj) != 1 || proj.Proj[0].Expr.Kind != plan.ColRef {
		return nil
	}
	x := proj.Proj[0].Expr
	in := proj.Inputs[0]
	guarded := plan.Derive(in, m).NotNull.Has(x.Col)
	if in.Op == plan.OpFilter {
		var rest []*plan.Expr
		for _, e := range in.Preds {
			if e.IsOp(plan.OpIsNotNull) && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && e.Args[0].Col == x.Col {
				guarded = true
				continue
			}
			rest = append(rest, e)
		}
		if guarded && len(rest) != len(in.Preds) {
			if len(rest) == 0 {
				in = in.Inputs[0]
			} else {
				f := *in
				f.Preds = rest
				in = &f
			}
		}
	}
	if !guarded {
		return nil
	}
	call := &plan.Expr{Kind: plan.Agg, Name: "count", Typ: n.Aggs[0].Expr.Typ, Distinct: true, Args: []*plan.Expr{x.Copy()}, Pos: -1}
	c := *n
	c.Inputs = []*plan.Node{in}
	c.Aggs = []plan.ProjItem{{ID: n.Aggs[0].ID, Expr: call}}
	return &c
}

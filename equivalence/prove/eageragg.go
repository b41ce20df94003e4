package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "eager aggregation": a join of two groupings on their whole
// grouping keys pairs a group of R with the group of S of equal keys, and
// the rows of R ⋈ S with those keys are the group's rows of R times those
// of S. So outputs read off the pair are the aggregate over the join,
// grouped by R's keys:
//
//	π[k, a.c * b.n](γ[k; f(x) c](R) ⋈[k = j] γ[j; COUNT(*) n](S))  ⇒  γ[k; f(x)](R ⋈[k = j] S)
//
// where f scales with repetition (aggDesc.scales: COUNT, SUM: each R row
// counted n times), and a duplicate-insensitive call alone (MIN(x)) is
// that call over the join; a grouping column of either side is a key
// (S's read as R's paired one). Conditions: an inner join whose
// conjuncts equate R's and S's grouping columns one to one, with = as
// identity on both (so the groups of k are those of k and j together);
// types exact: SUM of an exact type only, whose result type times bigint
// is itself (SUM(integer) is bigint, of bigint numeric, COUNT bigint),
// so a SUM of those products (numeric) is not this form; PostgreSQL;
// no DISTINCT or FILTER in the calls. A group of R whose key is NULL
// finds no partner either way. Overflow of the product is assumed away,
// as for the fragment "arithmetic".

// eagerAgg rewrites projection n as above, or returns nil.
func (p *prover) eagerAgg(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject || m == nil || m.Dialect != catalog.Postgres || len(n.Inputs) != 1 {
		return nil
	}
	j := n.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.InnerJoin || len(j.Inputs) != 2 || len(j.Preds) == 0 {
		return nil
	}
	a, b := j.Inputs[0], j.Inputs[1]
	if a.Op != plan.OpAggregate || b.Op != plan.OpAggregate || len(a.GroupBy) == 0 || len(b.GroupBy) == 0 ||
		len(a.Inputs) != 1 || len(b.Inputs) != 1 {
		return nil
	}
	ka, kb := plan.MakeColSet(a.GroupBy...), plan.MakeColSet(b.GroupBy...)
	pair := map[plan.ColumnID]plan.ColumnID{} // either side's key → the other's
	for _, e := range j.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
			return nil
		}
		x, y := e.Args[0].Col, e.Args[1].Col
		if kb.Has(x) {
			x, y = y, x
		}
		if !ka.Has(x) || !kb.Has(y) || !m.KeyEq(e.Args[0], e.Args[1]) || !m.ColIdentityEq(x, x) || !m.ColIdentityEq(y, y) {
			return nil
		}
		if _, dup := pair[x]; dup {
			return nil
		}
		if _, dup := pair[y]; dup {
			return nil
		}
		pair[x], pair[y] = y, x
	}
	if len(pair) != ka.Len()+kb.Len() {
		return nil
	}
	calls := map[plan.ColumnID]*plan.Expr{}
	side := map[plan.ColumnID]int{}
	for s, g := range []*plan.Node{a, b} {
		for _, it := range g.Aggs {
			calls[it.ID], side[it.ID] = it.Expr, s
		}
	}
	var proj []plan.ProjItem
	var aggs []plan.ProjItem
	for _, it := range n.Proj {
		e := it.Expr
		switch {
		case e.Kind == plan.ColRef && ka.Has(e.Col):
			proj = append(proj, it)
		case e.Kind == plan.ColRef && kb.Has(e.Col):
			x := pair[e.Col]
			proj = append(proj, plan.ProjItem{ID: it.ID, Expr: plan.NewCol(x, m.Col(x).Type)})
		default:
			f := eagerCall(e, calls, side, m)
			if f == nil {
				return nil
			}
			aggs = append(aggs, plan.ProjItem{ID: it.ID, Expr: f})
			proj = append(proj, plan.ProjItem{ID: it.ID, Expr: plan.NewCol(it.ID, e.Typ)})
		}
	}
	if len(aggs) == 0 {
		return nil
	}
	join := &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{a.Inputs[0], b.Inputs[0]}, Preds: j.Preds}
	grouped := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{join}, GroupBy: a.GroupBy, Aggs: aggs}
	p.rule(ruleEagerAggJoin)
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{grouped}, Proj: proj}
}

// eagerCall reads output e of the projection as a call over the join: a
// duplicate-insensitive call of one side, or a call that scales with
// repetition times the other side's COUNT(*), of e's type; nil otherwise.
func eagerCall(e *plan.Expr, calls map[plan.ColumnID]*plan.Expr, side map[plan.ColumnID]int, m *plan.Metadata) *plan.Expr {
	plain := func(f *plan.Expr) (aggDesc, bool) {
		if f == nil || f.Kind != plan.Agg || f.Distinct || f.Filter != nil || len(f.Order) > 0 || plan.Volatile(f) != "" {
			return aggDesc{}, false
		}
		d, ok := aggDescs[f.Name]
		return d, ok
	}
	if e.Kind == plan.ColRef {
		f := calls[e.Col]
		d, ok := plain(f)
		if !ok || !d.dupInsensitive || f.Typ != e.Typ || len(f.Args) != 1 || !m.IdentityEq(f.Args[0], f.Args[0]) {
			return nil
		}
		return f.Copy()
	}
	if !e.IsOp(plan.OpMul) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
		return nil
	}
	for i := 0; i < 2; i++ {
		f, n := calls[e.Args[i].Col], calls[e.Args[1-i].Col]
		if f == nil || n == nil || side[e.Args[i].Col] == side[e.Args[1-i].Col] {
			return nil
		}
		dn, ok := plain(n)
		if !ok || !dn.countsRows || !n.Star {
			continue
		}
		d, ok := plain(f)
		if !ok || !d.scales || f.Typ != e.Typ || d.result == nil {
			continue
		}
		arg := "int8"
		if !f.Star {
			if len(f.Args) != 1 {
				continue
			}
			arg = pgExactType(m, f.Args[0])
		}
		// The product's type is the call's: its result times bigint.
		if r := d.result(arg); r != "int8" && r != "numeric" {
			continue
		}
		return f.Copy()
	}
	return nil
}

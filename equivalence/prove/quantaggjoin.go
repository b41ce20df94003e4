package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The rewrite of fragment "quantified aggregates" (quantagg.go reads the
// condition).

// quantAgg rewrites an inner join with an input γ[](S) (no GROUP BY, S
// uncorrelated) whose columns only the join's condition reads, where that
// condition is x op ANY (S) or x op ALL (S) by the cases above, into the
// semi-join R ⋉[x op y] S or the anti-join R ▷[(x op' y) IS NOT FALSE] S.
func (p *prover) quantAgg(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) < 2 {
		return nil
	}
	for gi, g := range n.Inputs {
		if g.Op != plan.OpAggregate || len(g.GroupBy) != 0 || len(g.Inputs) != 1 || g.ReadsOuter() {
			continue
		}
		if j := p.quantAggOn(n, gi, m); j != nil {
			return j
		}
	}
	return nil
}

func (p *prover) quantAggOn(n *plan.Node, gi int, m *plan.Metadata) *plan.Node {
	g := n.Inputs[gi]
	roles, y, ok := readRoles(g)
	if !ok {
		return nil
	}
	var cond, rest []*plan.Expr
	reads := 0
	for _, e := range n.Preds {
		r := countReads(e, roles)
		if r == 0 {
			rest = append(rest, e)
			continue
		}
		if e.HasSubquery() {
			return nil
		}
		reads += r
		cond = append(cond, e)
	}
	if len(cond) == 0 || !p.readOnlyBy(g, roles, reads) || !p.otherQuantified(g) {
		return nil
	}
	f := &qform{roles: roles}
	whole := plan.And(cond)
	var table []bool
	cases := qcases()
	for _, s := range cases {
		t, ok := f.eval(whole, s)
		if !ok {
			return nil
		}
		table = append(table, t == tvTrue)
	}
	if !f.hasCmp {
		return nil
	}
	ext := roles[f.m]
	greater := f.op == plan.OpGt || f.op == plan.OpGe
	all := greater == (ext == roleMax)
	for i, s := range cases {
		if table[i] != quantTarget(all, s) {
			return nil
		}
	}
	// Every column of x belongs to the other inputs.
	others := make([]*plan.Node, 0, len(n.Inputs)-1)
	others = append(append(others, n.Inputs[:gi]...), n.Inputs[gi+1:]...)
	var left *plan.Node
	switch {
	case len(others) > 1:
		left = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: others, Preds: rest}
	case len(rest) > 0:
		left = &plan.Node{Op: plan.OpFilter, Inputs: others, Preds: rest}
	default:
		left = others[0]
	}
	yc := plan.NewCol(f.m, y.Typ)
	sub := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{g.Inputs[0]}, Proj: []plan.ProjItem{{ID: f.m, Expr: y.Copy()}}}
	if all {
		c := plan.NewOp(plan.OpIsNotFalse, catalog.Bool, plan.NewOp(negatedComparison[f.op], catalog.Bool, f.x.Copy(), yc))
		p.ruleOn(ruleAllExtremeCountGuard, "%s", m.Col(f.m).Name)
		return &plan.Node{Op: plan.OpJoin, Join: plan.AntiJoin, Inputs: []*plan.Node{left, sub}, Preds: []*plan.Expr{c}}
	}
	c := plan.NewOp(f.op, catalog.Bool, f.x.Copy(), yc)
	p.ruleOn(ruleAnyExtremeAggregate, "%s", m.Col(f.m).Name)
	return &plan.Node{Op: plan.OpJoin, Join: plan.SemiJoin, Inputs: []*plan.Node{left, sub}, Preds: []*plan.Expr{c}}
}

// countReads counts the references in e to the columns of roles.
func countReads(e *plan.Expr, roles map[plan.ColumnID]aggRole) int {
	k := 0
	plan.WalkDeep(e, func(x *plan.Expr) {
		if x.Kind == plan.ColRef {
			if _, ok := roles[x.Col]; ok {
				k++
			}
		}
	})
	return k
}

// readOnlyBy says whether the plan holding aggregate g reads g's columns
// exactly reads times in all (the condition's reads): none is output,
// grouped on, fed to a set operation or read elsewhere.
func (p *prover) readOnlyBy(g *plan.Node, roles map[plan.ColumnID]aggRole, reads int) bool {
	for _, root := range []*plan.Node{p.a.Root, p.b.Root} {
		if !holds(root, g) {
			continue
		}
		total, leak := 0, false
		var visit func(n *plan.Node)
		visit = func(n *plan.Node) {
			for _, c := range n.OutCols() {
				if _, ok := roles[c]; ok {
					leak = true
				}
			}
			n.WalkNodes(func(x *plan.Node) {
				for _, c := range x.GroupBy {
					if _, ok := roles[c]; ok {
						leak = true
					}
				}
				for _, cs := range x.SetCols {
					for _, c := range cs {
						if _, ok := roles[c]; ok {
							leak = true
						}
					}
				}
				x.Exprs(func(s **plan.Expr) {
					plan.Walk(*s, func(e *plan.Expr) {
						if e.Kind == plan.ColRef {
							if _, ok := roles[e.Col]; ok {
								total++
							}
						}
						if e.Sub != nil {
							visit(e.Sub)
						}
					})
				})
			})
		}
		visit(root)
		return !leak && total == reads
	}
	return false
}

// holds says whether g is a node of the plan below root, subqueries
// included.
func holds(root, g *plan.Node) bool {
	found := false
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x == g {
				found = true
			}
			x.Exprs(func(s **plan.Expr) {
				plan.Walk(*s, func(e *plan.Expr) {
					if e.Sub != nil && !found {
						visit(e.Sub)
					}
				})
			})
		})
	}
	visit(root)
	return found
}

// otherQuantified says whether the plan not holding g has a quantified
// comparison (ANY, ALL, or a semi- or anti-join already read from one):
// elsewhere the aggregate join is left for the rules comparing it with a
// scalar subquery.
func (p *prover) otherQuantified(g *plan.Node) bool {
	other := p.b.Root
	if !holds(p.a.Root, g) {
		other = p.a.Root
	}
	found := false
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x.Op == plan.OpJoin && (x.Join == plan.SemiJoin || x.Join == plan.AntiJoin) {
				found = true
			}
			x.Exprs(func(s **plan.Expr) {
				plan.Walk(*s, func(e *plan.Expr) {
					if e.Kind == plan.Subquery && (e.SubKind == plan.SubAny || e.SubKind == plan.SubAll) {
						found = true
					}
					if e.Sub != nil && !found {
						visit(e.Sub)
					}
				})
			})
		})
	}
	visit(other)
	return found
}

package gmntrain

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The equivalent rewrites of the table in synth.go: each keeps the query's
// result (as a bag, or as a list when the plan is ordered).

// mirror swaps a comparison's sides (a < b is b > a); negation gives the
// comparison whose NOT it is (a < b is NOT a >= b).
var mirror = map[string]string{plan.OpLt: plan.OpGt, plan.OpGt: plan.OpLt, plan.OpLe: plan.OpGe, plan.OpGe: plan.OpLe}
var negation = map[string]string{plan.OpLt: plan.OpGe, plan.OpGe: plan.OpLt, plan.OpLe: plan.OpGt, plan.OpGt: plan.OpLe}

func isCmp(e *plan.Expr) bool {
	_, ok := mirror[e.Name]
	return e.Kind == plan.Op && ok && len(e.Args) == 2
}

// flipComparison: a > b ⇒ b < a.
func (r *rewriter) flipComparison() bool {
	s := r.pickExpr(func(s exprSite) bool { return isCmp(*s.slot) })
	if s == nil {
		return false
	}
	e := *s.slot
	e.Name = mirror[e.Name]
	e.Args[0], e.Args[1] = e.Args[1], e.Args[0]
	return true
}

// negateComparison: a > b ⇒ NOT (a <= b). Equal under three-valued logic:
// both are NULL when an operand is.
func (r *rewriter) negateComparison() bool {
	s := r.pickExpr(func(s exprSite) bool { return isCmp(*s.slot) })
	if s == nil {
		return false
	}
	e := *s.slot
	e.Name = negation[e.Name]
	*s.slot = plan.NewOp(plan.OpNot, catalog.Bool, e)
	return true
}

// splitFilter: Filter(x, p, q) ⇒ Filter(Filter(x, q), p).
func (r *rewriter) splitFilter() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpFilter && len(n.Preds) >= 2 })
	if s == nil {
		return false
	}
	n := *s
	k := 1 + r.rng.IntN(len(n.Preds)-1)
	inner := &plan.Node{Op: plan.OpFilter, Inputs: n.Inputs, Preds: n.Preds[k:]}
	n.Preds = n.Preds[:k:k]
	n.Inputs = []*plan.Node{inner}
	return true
}

func (r *rewriter) identityProject(n *plan.Node) *plan.Node {
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}}
	for _, c := range n.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, r.p.Meta.Col(c).Type)})
	}
	return out
}

// wrapProject: x ⇒ Project(x, all of x's columns), a derived table
// SELECT * FROM (x).
func (r *rewriter) wrapProject() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op != plan.OpProject })
	if s == nil {
		return false
	}
	*s = r.identityProject(*s)
	return true
}

// joinPredsToFilter: InnerJoin(a, b, p) ⇒ Filter(InnerJoin(a, b), p).
func (r *rewriter) joinPredsToFilter() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpJoin && n.Join == plan.InnerJoin && len(n.Preds) > 0 })
	if s == nil {
		return false
	}
	n := *s
	*s = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n}, Preds: n.Preds}
	n.Preds = nil
	return true
}

func (r *rewriter) hasOuterJoin() bool {
	for _, s := range r.nodes {
		if n := *s; n.Op == plan.OpJoin && n.Join != plan.InnerJoin && n.Join != plan.SemiJoin && n.Join != plan.AntiJoin {
			return true
		}
	}
	return false
}

// countStar: count(c) ⇒ count(*) for a declared NOT NULL base column c
// when no outer join can make it NULL.
func (r *rewriter) countStar() bool {
	if r.hasOuterJoin() {
		return false
	}
	s := r.pickExpr(func(s exprSite) bool {
		e := *s.slot
		if e.Kind != plan.Agg || e.Name != "count" || e.Star || e.Distinct || e.Filter != nil || len(e.Args) != 1 {
			return false
		}
		a := e.Args[0]
		return a.Kind == plan.ColRef && r.p.Meta.Col(a.Col).Instance >= 0 && r.p.Meta.Col(a.Col).NotNull
	})
	if s == nil {
		return false
	}
	e := *s.slot
	e.Args, e.Star = nil, true
	return true
}

// topRelational returns the slot of the first Project, Aggregate or SetOp
// below the root's Sort/Limit chain.
func (r *rewriter) topRelational() **plan.Node {
	s := &r.p.Root
	for (*s).Op == plan.OpSort || (*s).Op == plan.OpLimit {
		s = &(*s).Inputs[0]
	}
	return s
}

// redundantDistinct: x ⇒ Distinct(x) when a key of x lies within its
// output columns (rows are already distinct).
func (r *rewriter) redundantDistinct() bool {
	s := r.topRelational()
	n := *s
	if n.Op == plan.OpDistinct || !plan.Derive(n, r.p.Meta).HasKeyWithin(n.OutColSet()) {
		return false
	}
	*s = &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}
	return true
}

// orderUnordered: x ⇒ Sort(x, first column) when the query's order is
// undefined and no LIMIT depends on it.
func (r *rewriter) orderUnordered() bool {
	root := r.p.Root
	if r.p.Ordered || root.Op == plan.OpSort || root.Op == plan.OpLimit {
		return false
	}
	cols := root.OutCols()
	if len(cols) == 0 {
		return false
	}
	c := cols[r.rng.IntN(len(cols))]
	desc := r.rng.IntN(2) == 0
	r.p.Root = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{root},
		Keys: []plan.SortKey{{Expr: plan.NewCol(c, r.p.Meta.Col(c).Type), Desc: desc, NullsFirst: desc}}}
	return true
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "disjunction as a union": a duplicate-free query whose filter
// holds a disjunction d₁ OR … OR d_k is, as a set, the UNION of the query
// with each dᵢ in its place: WHERE keeps a row when the disjunction is
// TRUE, which is when some dᵢ is TRUE (three-valued OR), and a query
// without duplicate rows equals its DISTINCT. It is read so only against
// a UNION (without ALL) of k branches.

// disjunctionAsUnion rewrites n (a filter, or a projection over one) as
// above for k disjuncts, or returns nil.
func disjunctionAsUnion(n *plan.Node, k int) *plan.Node {
	top, f := n, n
	if f.Op == plan.OpProject && len(f.Inputs) == 1 {
		f = f.Inputs[0]
	}
	if f.Op != plan.OpFilter || len(f.Inputs) != 1 || k < 2 {
		return nil
	}
	for i, e := range f.Preds {
		ds := disjuncts(e)
		if len(ds) != k {
			continue
		}
		outs := top.OutCols()
		u := &plan.Node{Op: plan.OpSetOp, Set: plan.Union, Cols: outs}
		for _, d := range ds {
			preds := append(append(append([]*plan.Expr(nil), f.Preds[:i]...), d), f.Preds[i+1:]...)
			br := &plan.Node{Op: plan.OpFilter, Inputs: f.Inputs, Preds: preds}
			if top != f {
				pr := *top
				pr.Inputs = []*plan.Node{br}
				br = &pr
			}
			u.Inputs = append(u.Inputs, br)
			u.SetCols = append(u.SetCols, outs)
		}
		return u
	}
	return nil
}

// disjuncts flattens nested ORs.
func disjuncts(e *plan.Expr) []*plan.Expr {
	if !e.IsOp(plan.OpOr) {
		return []*plan.Expr{e}
	}
	var out []*plan.Expr
	for _, a := range e.Args {
		out = append(out, disjuncts(a)...)
	}
	return out
}

// unionOfDisjuncts proves a set UNION a equal to b, not a set operation,
// through b's disjunction (see above); b must be duplicate-free.
func (p *prover) unionOfDisjuncts(a, b *plan.Node, m *plan.Metadata, pos bool, swap bool) (bool, error) {
	if a.Op != plan.OpSetOp || a.Set != plan.Union || a.All || b.Op == plan.OpSetOp || !dupFree(b, m) {
		return false, nil
	}
	u := disjunctionAsUnion(b, len(a.Inputs))
	if u == nil {
		return false, nil
	}
	return p.setOpRewritten(a, u, pos, swap, ruleUnionOfDisjuncts)
}

// setOpRewritten compares the set operation a with u, the other side
// rewritten as a set operation, in the caller's order of the sides
// (swap: u stands first), and on success names r; a failed
// comparison leaves no trace.
func (p *prover) setOpRewritten(a, u *plan.Node, pos, swap bool, r *Rule) (bool, error) {
	k := p.mark()
	var ok bool
	var err error
	if swap {
		ok, err = p.setOp(u, a, pos)
	} else {
		ok, err = p.setOp(a, u, pos)
	}
	if err != nil || !ok {
		p.undo(k)
		return false, err
	}
	p.rule(r)
	return true, nil
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// leftJoinSelfKey reads a left join's right input back from the left:
//
//	π(X ⟕[t2.key ≐ t3.key] T t3) ⇒ π(X) with t3's columns read from t2
//
// where t2 is an occurrence of table T inside X and the condition equates
// (= or IS NOT DISTINCT FROM) each column of a key of T, NOT NULL, of t3
// with the same column of t2. A row of X with t2's row holds its key, so
// t3 finds exactly that row again; a row where t2 was null-extended has
// a NULL key, which no row of T has, so t3 is null-extended too: t3's
// columns are t2's either way, and each row of X is kept once. It returns
// nil when n is not such a projection.
func (p *prover) leftJoinSelfKey(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject || len(n.Inputs) != 1 || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return nil
	}
	j := n.Inputs[0]
	if len(j.Inputs) != 2 || len(j.Preds) == 0 {
		return nil
	}
	x, r := j.Inputs[0], j.Inputs[1]
	if r.Op != plan.OpScan || r.Table == nil {
		return nil
	}
	ord := map[plan.ColumnID]int{}
	for i, c := range r.Cols {
		ord[c] = i
	}
	partner := map[int]plan.ColumnID{} // ordinal of T ⇒ the left column equated with it
	for _, e := range j.Preds {
		if !(e.IsOp(plan.OpEq) || e.IsOp(plan.OpNotDistinc)) || len(e.Args) != 2 {
			return nil
		}
		a, b := e.Args[0], e.Args[1]
		if a.Kind != plan.ColRef || b.Kind != plan.ColRef {
			return nil
		}
		if _, ok := ord[a.Col]; !ok {
			a, b = b, a
		}
		o, ok := ord[a.Col]
		if _, both := ord[b.Col]; !ok || both {
			return nil
		}
		if prev, seen := partner[o]; seen && prev != b.Col {
			return nil
		}
		partner[o] = b.Col
	}
	t2 := findScan(x, func(s *plan.Node) bool {
		if s.Table != r.Table {
			return false
		}
		for o, c := range partner {
			if o >= len(s.Cols) || s.Cols[o] != c {
				return false
			}
		}
		return true
	})
	if t2 == nil || !coversKey(r.Table.Keys(), partner) {
		return nil
	}
	xOut := x.OutColSet()
	for _, c := range partner {
		if !xOut.Has(c) {
			return nil
		}
	}
	sub := map[plan.ColumnID]plan.ColumnID{}
	for c, o := range ord {
		if o < len(t2.Cols) && xOut.Has(t2.Cols[o]) {
			sub[c] = t2.Cols[o]
		}
	}
	right := r.OutColSet()
	c := *n
	c.Inputs = []*plan.Node{x}
	c.Proj = make([]plan.ProjItem, len(n.Proj))
	for i, it := range n.Proj {
		ok := true
		e := plan.Rewrite(it.Expr.Copy(), func(y *plan.Expr) *plan.Expr {
			if y.Kind == plan.ColRef && right.Has(y.Col) {
				to, found := sub[y.Col]
				if !found {
					ok = false
					return y
				}
				return plan.NewCol(to, y.Typ)
			}
			return y
		})
		if !ok || containsSubquery(it.Expr) && it.Expr.Cols().Intersects(right) {
			return nil
		}
		c.Proj[i] = plan.ProjItem{ID: it.ID, Expr: e}
	}
	p.ruleOn(ruleLeftJoinSelfKey, "%s", r.Table.Name)
	return &c
}

// coversKey says whether the ordinals of partner hold one of keys.
func coversKey(keys [][]int, partner map[int]plan.ColumnID) bool {
	for _, k := range keys {
		all := true
		for _, o := range k {
			if _, ok := partner[o]; !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// findScan returns the scan under n (subqueries aside) that match
// accepts, or nil.
func findScan(n *plan.Node, match func(*plan.Node) bool) *plan.Node {
	if n.Op == plan.OpScan {
		if match(n) {
			return n
		}
		return nil
	}
	for _, in := range n.Inputs {
		if s := findScan(in, match); s != nil {
			return s
		}
	}
	return nil
}

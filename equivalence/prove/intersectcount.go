package prove

import (
	"math/big"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "INTERSECT as a count": over X whose conjuncts include
// x IN (c₁, …, c_k) (or x = c₁ OR … OR x = c_k), k constants no two of
// which are equal,
//
//	SELECT G FROM X GROUP BY G HAVING COUNT(DISTINCT x) = k
//	  =  SELECT G FROM X WHERE x = c₁  INTERSECT … INTERSECT  SELECT G FROM X WHERE x = c_k
//
// (as sets, all of G selected): within a group the non-NULL distinct
// values of x lie among the cᵢ, so there are k of them exactly when each
// cᵢ is some row's x; GROUP BY and INTERSECT both compare G with NULLs
// not distinct. x must compare exactly (not char(n), citext or collated)
// and the constants be of its kind: texts by their bytes, numbers by
// value. A branch keeps the IN conjunct, which x = cᵢ implies.

// intersectAsCount rewrites n, a projection of all grouping columns of
// such a grouping, as the INTERSECT of k branches, or returns nil.
func intersectAsCount(n *plan.Node, k int, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject || len(n.Inputs) != 1 || k < 2 {
		return nil
	}
	f := n.Inputs[0]
	if f.Op != plan.OpFilter || len(f.Preds) != 1 || len(f.Inputs) != 1 || f.Inputs[0].Op != plan.OpAggregate {
		return nil
	}
	agg := f.Inputs[0]
	if len(agg.GroupBy) == 0 || len(agg.Inputs) != 1 {
		return nil
	}
	// The projection selects each grouping column once, nothing else.
	groups := plan.MakeColSet(agg.GroupBy...)
	var seen plan.ColSet
	for _, it := range n.Proj {
		if it.Expr.Kind != plan.ColRef || !groups.Has(it.Expr.Col) || seen.Has(it.Expr.Col) {
			return nil
		}
		seen.Add(it.Expr.Col)
	}
	if seen.Len() != groups.Len() {
		return nil
	}
	// HAVING COUNT(DISTINCT x) = k.
	h := f.Preds[0]
	if !h.IsOp(plan.OpEq) || len(h.Args) != 2 {
		return nil
	}
	cnt, kc := h.Args[0], h.Args[1]
	if cnt.Kind != plan.ColRef {
		cnt, kc = kc, cnt
	}
	if cnt.Kind != plan.ColRef || kc.Kind != plan.Const || kc.Null || kc.Typ != catalog.Int || strings.TrimSpace(kc.Value) != itoa(k) {
		return nil
	}
	var x *plan.Expr
	for _, a := range agg.Aggs {
		if a.ID == cnt.Col {
			e := a.Expr
			if e.Kind == plan.Agg && e.Name == "count" && e.Distinct && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef && (e.Filter == nil || e.Filter.IsTrue()) {
				x = e.Args[0]
			}
		}
	}
	if x == nil || loose(m, x.Col) || (x.Typ != catalog.Text && !isNum(x.Typ)) {
		return nil
	}
	in := agg.Inputs[0]
	if !isBlockNode(in) {
		return nil
	}
	blk := newBlock(nil)
	blk.flatten(in)
	if blk.bad || blk.def(x.Col) != nil {
		return nil
	}
	var consts []*plan.Expr
	for _, p := range blk.preds {
		for _, c := range plan.Conjuncts(p) {
			if cs := inListOf(c, x.Col); len(cs) == k && pairwiseUnequal(cs, x.Typ) {
				consts = cs
			}
		}
	}
	if consts == nil {
		return nil
	}
	outs := n.OutCols()
	u := &plan.Node{Op: plan.OpSetOp, Set: plan.Intersect, Cols: outs}
	for _, c := range consts {
		br := &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: []*plan.Expr{plan.NewOp(plan.OpEq, catalog.Bool, x.Copy(), c.Copy())}}
		pr := *n
		pr.Inputs = []*plan.Node{br}
		u.Inputs = append(u.Inputs, &pr)
		u.SetCols = append(u.SetCols, outs)
	}
	return u
}

func itoa(k int) string { return big.NewInt(int64(k)).String() }

// inListOf returns the constants of x IN (c, …) or x = c OR …, else nil.
func inListOf(e *plan.Expr, x plan.ColumnID) []*plan.Expr {
	if e.IsOp("in") && len(e.Args) >= 2 && e.Args[0].Kind == plan.ColRef && e.Args[0].Col == x {
		for _, c := range e.Args[1:] {
			if c.Kind != plan.Const || c.Null {
				return nil
			}
		}
		return e.Args[1:]
	}
	var out []*plan.Expr
	for _, d := range disjuncts(e) {
		if !d.IsOp(plan.OpEq) || len(d.Args) != 2 {
			return nil
		}
		a, c := d.Args[0], d.Args[1]
		if a.Kind != plan.ColRef {
			a, c = c, a
		}
		if a.Kind != plan.ColRef || a.Col != x || c.Kind != plan.Const || c.Null {
			return nil
		}
		out = append(out, c)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// pairwiseUnequal: constants of x's kind, no two equal (texts by bytes,
// numbers by value).
func pairwiseUnequal(cs []*plan.Expr, t catalog.Type) bool {
	seen := map[string]bool{}
	for _, c := range cs {
		var k string
		switch {
		case t == catalog.Text && c.Typ == catalog.Text && c.Value == strings.TrimRight(c.Value, " "):
			k = c.Value
		case isNum(t) && isNum(c.Typ):
			r, ok := new(big.Rat).SetString(strings.TrimSpace(c.Value))
			if !ok {
				return false
			}
			k = r.RatString()
		default:
			return false
		}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

// intersectOfCount proves a set INTERSECT a equal to b, not a set
// operation, through b's count (see above).
func (p *prover) intersectOfCount(a, b *plan.Node, m *plan.Metadata, pos, swap bool) (bool, error) {
	if a.Op != plan.OpSetOp || a.Set != plan.Intersect || a.All || b.Op == plan.OpSetOp {
		return false, nil
	}
	u := intersectAsCount(b, len(a.Inputs), m)
	if u == nil {
		return false, nil
	}
	return p.setOpRewritten(a, u, pos, swap, ruleIntersectCount)
}

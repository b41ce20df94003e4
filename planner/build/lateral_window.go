package build

import (
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Windows and LIMITs read the rows of one outer row r together, so x
// pushed below them must keep each r's rows apart: a partition by x's
// columns does (x's rows distinct, as for a grouping).
//
//	x ⋈ ω[f() OVER (PARTITION BY p ORDER BY o)](t)
//	    ⇒ ω[f() OVER (PARTITION BY x.., p ORDER BY o)](x ⋈ t)
//	x ⋈ limit[n offset m](sort[o](t))
//	    ⇒ π[x.., t..](σ[m < rn ≤ m + n](ω[row_number() OVER (PARTITION BY x.. ORDER BY o) AS rn](x ⋈ t)))
//
// Over the rows of r, row_number numbers them in o's order as the sort
// hands them to LIMIT, which keeps positions m + 1 to m + n; where o ties
// rows either picks any of them (the executor calls such a result
// nondeterministic both ways).

// pushWindow pushes x below a window, each call partitioned by x too.
func (p *lateralPusher) pushWindow(t *plan.Node) (*plan.Node, bool) {
	if !p.distinct {
		return nil, false
	}
	in, ok := p.push(t.Inputs[0])
	if !ok {
		return nil, false
	}
	out := &plan.Node{Op: plan.OpWindow, Inputs: []*plan.Node{in}}
	for _, it := range t.Proj {
		if it.Expr.Kind != plan.WinFunc {
			return nil, false
		}
		w := it.Expr.Copy()
		w.Partition = append(p.partition(), w.Partition...)
		out.Proj = append(out.Proj, plan.ProjItem{ID: it.ID, Expr: w})
	}
	return out, true
}

// pushLimit pushes x below a LIMIT (over a sort or not) of constant,
// non-negative bounds, as a row_number per outer row.
func (p *lateralPusher) pushLimit(t *plan.Node) (*plan.Node, bool) {
	if !p.distinct {
		return nil, false
	}
	limit, hasLimit, ok := constBound(t.Limit)
	if !ok {
		return nil, false
	}
	offset, _, ok := constBound(t.Offset)
	if !ok || hasLimit && offset > 1<<62-limit {
		return nil, false
	}
	below := t.Inputs[0]
	var keys []plan.SortKey
	if below.Op == plan.OpSort {
		for _, k := range below.Keys {
			keys = append(keys, plan.SortKey{Expr: k.Expr.Copy(), Desc: k.Desc, NullsFirst: k.NullsFirst})
		}
		below = below.Inputs[0]
	} else {
		// A sort further down still orders what LIMIT keeps.
		for n := below; len(n.Inputs) == 1; n = n.Inputs[0] {
			if n.Op == plan.OpSort {
				return nil, false
			}
		}
	}
	in, ok := p.push(below)
	if !ok {
		return nil, false
	}
	rn := p.b.newColumn("row_number", catalog.Int)
	win := &plan.Node{Op: plan.OpWindow, Inputs: []*plan.Node{in}, Proj: []plan.ProjItem{{ID: rn,
		Expr: &plan.Expr{Kind: plan.WinFunc, Name: "row_number", Typ: catalog.Int, Pos: -1, Partition: p.partition(), Order: keys}}}}
	col := plan.NewCol(rn, catalog.Int)
	var cond []*plan.Expr
	if offset > 0 {
		cond = append(cond, plan.NewOp(plan.OpGt, catalog.Bool, col, plan.NewConst(catalog.Int, strconv.FormatInt(offset, 10))))
	}
	if hasLimit {
		cond = append(cond, plan.NewOp(plan.OpLe, catalog.Bool, col.Copy(), plan.NewConst(catalog.Int, strconv.FormatInt(offset+limit, 10))))
	}
	var kept *plan.Node = win
	if len(cond) > 0 {
		kept = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{win}, Preds: cond}
	}
	// rn goes: a DISTINCT above would tell rows apart by it.
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{kept}}
	for _, c := range in.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, p.b.typeOf(c))})
	}
	return out, true
}

// partition is x's columns as window partition keys.
func (p *lateralPusher) partition() []*plan.Expr {
	var out []*plan.Expr
	for _, c := range p.x.OutCols() {
		out = append(out, plan.NewCol(c, p.b.typeOf(c)))
	}
	return out
}

// constBound reads a LIMIT or OFFSET bound: its value, whether there is
// one (nil: none), and ok false unless it is absent or a non-negative
// integer constant (a NULL LIMIT is none in PostgreSQL, a negative one an
// error; neither is taken).
func constBound(e *plan.Expr) (int64, bool, bool) {
	if e == nil {
		return 0, false, true
	}
	if e.Kind != plan.Const || e.Null || e.Typ != catalog.Int {
		return 0, false, false
	}
	v, err := strconv.ParseInt(e.Value, 10, 64)
	if err != nil || v < 0 {
		return 0, false, false
	}
	return v, true, true
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", self-join-key-subset: an inner join of rows of a
// table with the whole table on a key finds each row again,
//
//	X ⋈[x.c ≐ t.c, …] T t ⇒ X' (t's columns read from x's)
//
// where X is filters, sorts, limits and projections over one scan x of
// T's table (each row of X is one row of the table, its columns as
// stored: CockroachDB's lookup join back to the table after a limited
// index scan, crdb-xform-32), T is a plain scan of that table, and every
// conjunct compares a column of x with the same column of t: by IS NOT
// DISTINCT FROM, or by = on a column never NULL whose = is identity. A
// row compares equal to itself on each, and those conjuncts cover a key
// of T: the row itself is its one partner. X' is X whose scan also puts
// out t's columns, as copies of x's, carried up through its projections.
// Only under a sort that ties no rows (sortedAlreadyJoin): the join
// may put its rows out in another order than X. Not SQLite, whose keys
// may compare values of different kinds.

// selfJoinSubset rewrites inner join n as above, or returns nil, with
// sub mapping each column of t to x's. On the reference's side X' is X
// itself and the caller records sub as aliases (the reference's columns
// are the ones the comparison pairs, as a self-join on a key does); on
// the candidate's, X' puts the copies out. It records nothing: its
// callers do, when they use it.
func (p *prover) selfJoinSubset(n *plan.Node, m *plan.Metadata) (*plan.Node, map[plan.ColumnID]plan.ColumnID) {
	if m == nil || p.opts.SQLite || n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) != 2 || len(n.Preds) == 0 {
		return nil, nil
	}
	for side := 0; side < 2; side++ {
		x, t := n.Inputs[side], n.Inputs[1-side]
		if t.Op != plan.OpScan || t.Table == nil {
			continue
		}
		scan := subsetScan(x)
		if scan == nil || scan.Table != t.Table || len(scan.Cols) != len(t.Cols) {
			continue
		}
		xs, ok := p.selfKeyConjuncts(n.Preds, scan, t, m)
		if !ok || !chainPasses(x, xs) {
			continue
		}
		sub := map[plan.ColumnID]plan.ColumnID{}
		for i, c := range t.Cols {
			sub[c] = scan.Cols[i]
		}
		if p.a != nil && m == p.a.Meta {
			return x, sub
		}
		return addCopies(x, scan, t, m), sub
	}
	return nil, nil
}

// subsetScan returns the scan under x when x is filters, sorts, limits
// and projections over it, or nil.
func subsetScan(x *plan.Node) *plan.Node {
	for {
		switch x.Op {
		case plan.OpScan:
			return x
		case plan.OpFilter, plan.OpSort, plan.OpLimit, plan.OpProject:
			if len(x.Inputs) != 1 {
				return nil
			}
			x = x.Inputs[0]
		default:
			return nil
		}
	}
}

// chainPasses says whether each projection of x above its scan passes
// the columns cols on unchanged.
func chainPasses(x *plan.Node, cols plan.ColSet) bool {
	for ; x.Op != plan.OpScan; x = x.Inputs[0] {
		if x.Op == plan.OpProject && !passesCols(x, cols) {
			return false
		}
	}
	return true
}

// selfKeyConjuncts says whether every conjunct of preds compares a
// column of scan, as X puts it out, with the same column of t, each
// true of a row with itself, and those cover a key of t; it returns
// scan's columns they read.
func (p *prover) selfKeyConjuncts(preds []*plan.Expr, scan, t *plan.Node, m *plan.Metadata) (plan.ColSet, bool) {
	ordX, ordT := map[plan.ColumnID]int{}, map[plan.ColumnID]int{}
	for i := range scan.Cols {
		ordX[scan.Cols[i]], ordT[t.Cols[i]] = i, i
	}
	tp := plan.Derive(t, m)
	var bound, xs plan.ColSet
	for _, e := range preds {
		eq := e.IsOp(plan.OpEq)
		if !(eq || e.IsOp(plan.OpNotDistinc)) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
			return xs, false
		}
		a, b := e.Args[0].Col, e.Args[1].Col
		if _, ok := ordT[a]; ok {
			a, b = b, a
		}
		oa, okA := ordX[a]
		ob, okB := ordT[b]
		if !okA || !okB || oa != ob {
			return xs, false
		}
		if eq && (!tp.NotNull.Has(b) || !m.ColIdentityEq(a, b)) {
			return xs, false // NULL = NULL is not TRUE; a loose = may not be reflexive as read
		}
		bound.Add(b)
		xs.Add(a)
	}
	return xs, tp.HasKeyWithin(bound)
}

// addCopies returns x with scan replaced by a projection that also puts
// out t's columns as copies of scan's, and each projection above it
// passing them on. The key columns the conjuncts read reach x's output
// unchanged (they are x's outputs, and IDs name one column).
func addCopies(x, scan, t *plan.Node, m *plan.Metadata) *plan.Node {
	if x == scan {
		items := make([]plan.ProjItem, 0, 2*len(scan.Cols))
		for _, c := range scan.Cols {
			items = append(items, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
		}
		for i, c := range t.Cols {
			items = append(items, plan.ProjItem{ID: c, Expr: plan.NewCol(scan.Cols[i], m.Col(scan.Cols[i]).Type)})
		}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{scan}, Proj: items}
	}
	c := *x
	c.Inputs = []*plan.Node{addCopies(x.Inputs[0], scan, t, m)}
	if c.Op == plan.OpProject {
		c.Proj = append([]plan.ProjItem(nil), x.Proj...)
		for i, tc := range t.Cols {
			c.Proj = append(c.Proj, plan.ProjItem{ID: tc, Expr: plan.NewCol(tc, m.Col(scan.Cols[i]).Type)})
		}
	}
	return &c
}

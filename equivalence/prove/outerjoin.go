package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", outer joins that lose their outer rows or their
// unread side:
//
//   - self-outer-join-total: T t1 ⟕[t1.c = t2.c ...] T t2 ⇒ T t1 ⋈ T t2
//     when each conjunct equates one NOT NULL column of the table with
//     itself across the two occurrences and t2 reads the whole table:
//     every t1 row is a row of T, so it is its own partner and no row is
//     padded with NULLs. A FULL JOIN loses the padded rows of each side
//     whose rows all find themselves on the other side: it becomes a LEFT
//     JOIN (the other side preserved) or an inner join.
//   - left-join-unread: π(R ⟕[S.key = e(R) ...] S) ⇒ π(R) when the
//     projection reads no column of S and the condition equates a key of
//     S with expressions of R: each R row has at most one partner, so
//     the join keeps R's rows, once each (bag semantics).

// scanOf returns the scan below n when n is a scan, or filters and
// projections over one: every row of n comes from one row of the scanned
// table, whose columns n passes through keep their IDs.
func scanOf(n *plan.Node) *plan.Node {
	for (n.Op == plan.OpFilter || n.Op == plan.OpProject && passesIDs(n)) && len(n.Inputs) == 1 {
		n = n.Inputs[0]
	}
	if n.Op == plan.OpScan && n.Table != nil {
		return n
	}
	return nil
}

// passesIDs says whether projection n defines no column its input
// produces other than by passing it through.
func passesIDs(n *plan.Node) bool {
	in := n.Inputs[0].OutColSet()
	for _, it := range n.Proj {
		if in.Has(it.ID) && !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
			return false
		}
	}
	return true
}

// wholeScanOf returns the scan below n when n is a scan or projections
// over one: n has a row for every row of the table.
func wholeScanOf(n *plan.Node) *plan.Node {
	for n.Op == plan.OpProject && passesIDs(n) && len(n.Inputs) == 1 {
		n = n.Inputs[0]
	}
	if n.Op == plan.OpScan && n.Table != nil {
		return n
	}
	return nil
}

// selfPartnered says whether every row of x finds itself in y under the
// conjuncts preds: y is a whole scan of the table whose rows x holds,
// and each conjunct equates a column of x with the same column of y,
// a column declared NOT NULL whose = is reflexive (a float only on
// PostgreSQL, where NaN = NaN; never an unknown type).
func selfPartnered(x, y *plan.Node, preds []*plan.Expr, m *plan.Metadata) bool {
	xs, ys := scanOf(x), wholeScanOf(y)
	if xs == nil || ys == nil || ys.Table != xs.Table || len(preds) == 0 {
		return false
	}
	xOrd, yOrd := map[plan.ColumnID]int{}, map[plan.ColumnID]int{}
	for i, c := range xs.Cols {
		xOrd[c] = i
	}
	for i, c := range ys.Cols {
		yOrd[c] = i
	}
	for _, e := range preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
			return false
		}
		l, r := e.Args[0].Col, e.Args[1].Col
		if _, ok := yOrd[l]; ok {
			l, r = r, l
		}
		lo, okl := xOrd[l]
		ro, okr := yOrd[r]
		if !okl || !okr || lo != ro {
			return false
		}
		meta := m.Col(l)
		if !meta.NotNull || meta.Type == catalog.Float && m.Dialect != catalog.Postgres || meta.Type == catalog.Unknown {
			return false
		}
		if coll, nondet := m.Collation(l); nondet || coll != "" {
			return false
		}
	}
	return true
}

// selfOuterJoin rewrites a left or full join of a table with itself on
// its own NOT NULL columns (selfPartnered), or returns nil.
func (p *prover) selfOuterJoin(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || len(n.Inputs) != 2 || (n.Join != plan.LeftJoin && n.Join != plan.FullJoin) {
		return nil
	}
	l, r := n.Inputs[0], n.Inputs[1]
	leftFound := selfPartnered(l, r, n.Preds, m)
	rightFound := n.Join == plan.FullJoin && selfPartnered(r, l, n.Preds, m)
	j := *n
	switch {
	case n.Join == plan.LeftJoin && leftFound, n.Join == plan.FullJoin && leftFound && rightFound:
		j.Join = plan.InnerJoin
	case n.Join == plan.FullJoin && leftFound:
		// Only the right side's rows can go unmatched: r ⟕ l.
		j.Join = plan.LeftJoin
		j.Inputs = []*plan.Node{r, l}
	case n.Join == plan.FullJoin && rightFound:
		j.Join = plan.LeftJoin
	default:
		return nil
	}
	p.ruleOn(ruleSelfOuterJoinTotal, "%s", scanOf(r).Table.Name)
	return &j
}

// leftJoinUnread drops the right input of a left join below projection
// n when n reads none of its columns and the condition gives each left
// row at most one partner; or returns nil.
func (p *prover) leftJoinUnread(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpProject || len(n.Inputs) != 1 || n.Inputs[0].Op != plan.OpJoin || n.Inputs[0].Join != plan.LeftJoin {
		return nil
	}
	j := n.Inputs[0]
	right := allCols(j.Inputs[1])
	for _, it := range n.Proj {
		if it.Expr.Cols().Intersects(right) || right.Has(it.ID) {
			return nil
		}
	}
	in, preds := onInputs(j)
	rightOut := in[1].OutColSet()
	leftOut := in[0].OutColSet()
	var bound plan.ColSet
	for _, e := range preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for k := 0; k < 2; k++ {
			x, y := e.Args[k], e.Args[1-k]
			if x.Kind != plan.ColRef || !rightOut.Has(x.Col) || plan.Volatile(y) != "" {
				continue
			}
			if ys := y.Cols(); ys.SubsetOf(leftOut) && !containsSubquery(y) {
				bound.Add(x.Col)
			}
		}
	}
	if !plan.Derive(in[1], m).HasKeyWithin(bound) {
		return nil
	}
	c := *n
	c.Inputs = []*plan.Node{j.Inputs[0]}
	p.rule(ruleLeftJoinUnread)
	return &c
}

func containsSubquery(e *plan.Expr) bool {
	found := false
	plan.Walk(e, func(x *plan.Expr) {
		if x.Kind == plan.Subquery {
			found = true
		}
	})
	return found
}

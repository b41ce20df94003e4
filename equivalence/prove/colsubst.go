package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "equal columns": a conjunct list holds exactly when all its
// conjuncts are TRUE, and then a conjunct c1 = c2 of two columns makes
// them one value. So in the other conjuncts each column of a class of
// columns equated so reads as one representative of the class,
//
//	k = x AND k + y > 5  ⇒  k = x AND x + y > 5
//
// keeping the equalities themselves: where one is not TRUE the list is
// not TRUE either way. Both plans pick the same representative (the
// member whose reference column is least), so equal conjuncts key alike.
// Only types whose equal values are one value are read so (integers that
// hold only integers, dates, booleans), as pins does for constants.

// equalColumns returns, for each column of cs's column classes, the
// column it reads as (nil map: none).
func equalColumns(cs []*plan.Expr, col func(plan.ColumnID) (plan.ColumnID, bool), ints func(*plan.Expr) bool, nondet func(plan.ColumnID) bool) map[plan.ColumnID]plan.ColumnID {
	parent := map[plan.ColumnID]plan.ColumnID{}
	var find func(c plan.ColumnID) plan.ColumnID
	find = func(c plan.ColumnID) plan.ColumnID {
		p, ok := parent[c]
		if !ok || p == c {
			return c
		}
		r := find(p)
		parent[c] = r
		return r
	}
	for _, c := range cs {
		a, b, ok := equatedColumns(c, ints)
		if !ok {
			continue
		}
		ra, oka := col(a.Col)
		rb, okb := col(b.Col)
		if !oka || !okb || (nondet != nil && (nondet(ra) || nondet(rb))) {
			continue
		}
		if _, ok := parent[a.Col]; !ok {
			parent[a.Col] = a.Col
		}
		if _, ok := parent[b.Col]; !ok {
			parent[b.Col] = b.Col
		}
		parent[find(a.Col)] = find(b.Col)
	}
	if len(parent) == 0 {
		return nil
	}
	// The representative of a class: the member of least reference column.
	best := map[plan.ColumnID]plan.ColumnID{}
	for c := range parent {
		r := find(c)
		cur, ok := best[r]
		rc, _ := col(c)
		rcur, _ := col(cur)
		if !ok || rc < rcur || (rc == rcur && c < cur) {
			best[r] = c
		}
	}
	out := map[plan.ColumnID]plan.ColumnID{}
	for c := range parent {
		if rep := best[find(c)]; rep != c {
			out[c] = rep
		}
	}
	return out
}

// equatedColumns reads c as col1 = col2 of one type whose equal values
// are one value.
func equatedColumns(c *plan.Expr, ints func(*plan.Expr) bool) (a, b *plan.Expr, ok bool) {
	if !c.IsOp(plan.OpEq) || len(c.Args) != 2 {
		return nil, nil, false
	}
	a, b = c.Args[0], c.Args[1]
	if a.Kind != plan.ColRef || b.Kind != plan.ColRef || a.Typ != b.Typ || a.Col == b.Col {
		return nil, nil, false
	}
	switch a.Typ {
	case catalog.Int:
		return a, b, ints == nil || (ints(a) && ints(b))
	case catalog.Date, catalog.Bool:
		// In SQLite (ints set) such a column may hold any value.
		return a, b, ints == nil
	}
	return nil, nil, false
}

// substituteEqual rewrites e (a private copy) reading each column of
// rep as its representative; an equality of two columns of one class
// stays as it is. changed says whether e changed.
func substituteEqual(e *plan.Expr, rep map[plan.ColumnID]plan.ColumnID) (*plan.Expr, bool) {
	if len(rep) == 0 {
		return e, false
	}
	if e.IsOp(plan.OpEq) && len(e.Args) == 2 && e.Args[0].Kind == plan.ColRef && e.Args[1].Kind == plan.ColRef {
		_, ina := rep[e.Args[0].Col]
		_, inb := rep[e.Args[1].Col]
		ra, rb := e.Args[0].Col, e.Args[1].Col
		if ina {
			ra = rep[ra]
		}
		if inb {
			rb = rep[rb]
		}
		if (ina || inb) && ra == rb {
			return e, false
		}
	}
	changed := false
	out := plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.ColRef {
			if r, ok := rep[x.Col]; ok {
				changed = true
				return plan.NewCol(r, x.Typ)
			}
		}
		return x
	})
	return out, changed
}

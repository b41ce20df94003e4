package build

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// GROUPING SETS, ROLLUP and CUBE are planned as what they mean: a UNION
// ALL with one branch per grouping set, each an ordinary Aggregate over
// its own copy of the input, projecting NULL for the grouping columns the
// set leaves out and the GROUPING() bitmask as a constant. Every branch
// is a plain plan, so normalization, canonical text and the executor need
// no new operator, and the rules that hold for plain aggregates (pushing
// filters below, keys, null rejection) stay sound: no rule sees a
// grouping column that may be NULL on some rows and not on others.

// maxGroupingSets is PostgreSQL's limit on the sets one GROUP BY expands to.
const maxGroupingSets = 4096

// groupingSetsOf expands one GROUP BY item into its grouping sets, each a
// list of expressions. A plain expression is the single set (e).
func (b *builder) groupingSetsOf(n *pg.Node) ([][]*pg.Node, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
			// A parenthesized list inside a grouping-set construct.
			return [][]*pg.Node{r.Args}, nil
		}
		return [][]*pg.Node{{n}}, nil
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]*pg.Node{{}}, nil
	case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
		return [][]*pg.Node{gs.Content}, nil
	case pg.GroupingSetKind_GROUPING_SET_ROLLUP, pg.GroupingSetKind_GROUPING_SET_CUBE:
		elems := make([][]*pg.Node, len(gs.Content))
		for i, c := range gs.Content {
			if r := c.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
				elems[i] = r.Args
			} else {
				elems[i] = []*pg.Node{c}
			}
		}
		var out [][]*pg.Node
		if gs.Kind == pg.GroupingSetKind_GROUPING_SET_ROLLUP {
			for k := len(elems); k >= 0; k-- {
				var set []*pg.Node
				for _, e := range elems[:k] {
					set = append(set, e...)
				}
				out = append(out, set)
			}
			return out, nil
		}
		if len(elems) > 12 {
			return nil, b.errf(gs.Location, "CUBE is limited to 12 elements")
		}
		for mask := (1 << len(elems)) - 1; mask >= 0; mask-- {
			var set []*pg.Node
			for i, e := range elems {
				if mask&(1<<(len(elems)-1-i)) != 0 {
					set = append(set, e...)
				}
			}
			out = append(out, set)
		}
		return out, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]*pg.Node
		for _, c := range gs.Content {
			sets, err := b.groupingSetsOf(c)
			if err != nil {
				return nil, err
			}
			out = append(out, sets...)
			if len(out) > maxGroupingSets {
				return nil, b.errf(gs.Location, "too many grouping sets present (maximum %d)", maxGroupingSets)
			}
		}
		return out, nil
	}
	return nil, b.unsupported(gs.Location, "grouping set kind "+gs.Kind.String())
}

// groupingClause expands a GROUP BY clause: the grouping expressions (each
// once) and the grouping sets as indices into them, the cross product of
// the items' sets. toExpr builds one grouping expression. sets is nil for
// a plain GROUP BY.
func (b *builder) groupingClause(sel *pg.SelectStmt, toExpr func(*pg.Node) (*plan.Expr, error)) (exprs []*plan.Expr, sets [][]int, err error) {
	index := func(n *pg.Node) (int, error) {
		e, err := toExpr(n)
		if err != nil {
			return 0, err
		}
		for i, x := range exprs {
			if exprEqual(x, e) {
				return i, nil
			}
		}
		exprs = append(exprs, e)
		return len(exprs) - 1, nil
	}
	hasSets := false
	for _, gn := range sel.GroupClause {
		if gn.GetGroupingSet() != nil {
			hasSets = true
		}
	}
	if hasSets && b.schema.Dialect == catalog.SQLite {
		return nil, nil, b.errf(-1, "SQLite has no GROUPING SETS, ROLLUP or CUBE")
	}
	if !hasSets {
		for _, gn := range sel.GroupClause {
			if _, err := index(gn); err != nil {
				return nil, nil, err
			}
		}
		return exprs, nil, nil
	}
	sets = [][]int{{}}
	for _, gn := range sel.GroupClause {
		item, err := b.groupingSetsOf(gn)
		if err != nil {
			return nil, nil, err
		}
		if len(sets)*len(item) > maxGroupingSets {
			return nil, nil, b.errf(-1, "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
		var next [][]int
		for _, s := range sets {
			for _, t := range item {
				u := append([]int(nil), s...)
				for _, n := range t {
					i, err := index(n)
					if err != nil {
						return nil, nil, err
					}
					u = append(u, i)
				}
				next = append(next, u)
			}
		}
		sets = next
	}
	if sel.GroupDistinct {
		var kept [][]int
		seen := map[string]bool{}
		for _, s := range sets {
			k := setKey(s, len(exprs))
			if !seen[k] {
				seen[k] = true
				kept = append(kept, s)
			}
		}
		sets = kept
	}
	return exprs, sets, nil
}

// setKey identifies a grouping set regardless of order and repetition.
func setKey(s []int, n int) string {
	in := make([]byte, n)
	for _, i := range s {
		in[i] = 1
	}
	return string(in)
}

// groupingFunc builds GROUPING(args) as an aggregate call; the lowering
// of grouping sets turns it into each branch's constant.
func (b *builder) groupingFunc(g *pg.GroupingFunc, sc *scope, st *aggState) (*plan.Expr, error) {
	if b.schema.Dialect == catalog.SQLite {
		return nil, b.errf(g.Location, "no such function: grouping")
	}
	if st == nil {
		return nil, b.errf(g.Location, "grouping operations are not allowed here")
	}
	if len(g.Args) > 31 {
		return nil, b.errf(g.Location, "GROUPING must have fewer than 32 arguments")
	}
	args, err := b.exprs(g.Args, sc, nil)
	if err != nil {
		return nil, err
	}
	a := &plan.Expr{Kind: plan.Agg, Name: "grouping", Args: args, Typ: catalog.Int, Pos: g.Location}
	st.aggs = append(st.aggs, a)
	return a, nil
}

// lowerGroupingSets replaces agg, an Aggregate grouping by all of
// groupCols (one per grouping expression, in exprs's order), by one
// branch per set as described at the top of this file. It returns the
// replacement and the columns that take the place of agg's outputs.
func (b *builder) lowerGroupingSets(agg *plan.Node, exprs []*plan.Expr, groupCols []plan.ColumnID, sets [][]int) (*plan.Node, map[plan.ColumnID]*plan.Expr, error) {
	if sets == nil {
		sets = [][]int{make([]int, len(exprs))}
		for i := range exprs {
			sets[0][i] = i
		}
	}
	input := agg.Inputs[0]
	if len(sets) > 1 {
		if err := b.spend(countNodes(input) * (len(sets) - 1)); err != nil {
			return nil, nil, err
		}
	}
	// Each GROUPING() argument must be one of the grouping expressions.
	argIdx := map[*plan.Expr][]int{}
	for _, a := range agg.Aggs {
		if a.Expr.Name != "grouping" {
			continue
		}
		for _, arg := range a.Expr.Args {
			found := -1
			for i, e := range exprs {
				if exprEqual(e, arg) || (arg.Kind == plan.ColRef && arg.Col == groupCols[i]) {
					found = i
					break
				}
			}
			if found < 0 {
				return nil, nil, b.errf(arg.Pos, "arguments to GROUPING must be grouping expressions of the associated query level")
			}
			argIdx[a.Expr] = append(argIdx[a.Expr], found)
		}
	}
	var branches []*plan.Node
	for si, set := range sets {
		in, m := input, map[plan.ColumnID]plan.ColumnID{}
		if si > 0 {
			in, m = b.cloneFresh(input)
		}
		col := func(c plan.ColumnID) plan.ColumnID {
			if d, ok := m[c]; ok {
				return d
			}
			return c
		}
		grouped := map[int]bool{}
		var groupSet plan.ColSet
		for _, i := range set {
			grouped[i] = true
			groupSet.Add(groupCols[i])
		}
		a := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{in}}
		p := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{a}}
		for _, c := range agg.GroupBy {
			if groupSet.Has(c) {
				a.GroupBy = append(a.GroupBy, col(c))
				p.Proj = append(p.Proj, plan.ProjItem{ID: col(c), Expr: plan.NewCol(col(c), b.typeOf(c))})
				continue
			}
			id := b.newColumn(b.meta.Col(c).Name, b.typeOf(c))
			p.Proj = append(p.Proj, plan.ProjItem{ID: id, Expr: plan.NewNull(b.typeOf(c))})
		}
		for _, it := range agg.Aggs {
			id := b.newColumn(it.Expr.Name, it.Expr.Typ)
			if it.Expr.Name == "grouping" {
				mask := 0
				for _, i := range argIdx[it.Expr] {
					mask <<= 1
					if !grouped[i] {
						mask |= 1
					}
				}
				p.Proj = append(p.Proj, plan.ProjItem{ID: id, Expr: plan.NewConst(catalog.Int, strconv.Itoa(mask))})
				continue
			}
			if it.Expr.Name == "any_value" && len(sets) > 1 {
				// A column of a table whose key is grouped: PostgreSQL
				// allows it only when the key is in every grouping set.
				c := it.Expr.Args[0].Col
				if !b.dependsOnGroup(c, groupSet) {
					return nil, nil, b.errf(it.Expr.Args[0].Pos, "column %q must appear in the GROUP BY clause or be used in an aggregate function", b.meta.Col(c).Name)
				}
			}
			e := it.Expr
			if si > 0 {
				e = b.cloneExpr(e, m)
			}
			a.Aggs = append(a.Aggs, plan.ProjItem{ID: id, Expr: e})
			p.Proj = append(p.Proj, plan.ProjItem{ID: id, Expr: plan.NewCol(id, it.Expr.Typ)})
		}
		branches = append(branches, p)
	}
	old := agg.OutCols()
	repl := map[plan.ColumnID]*plan.Expr{}
	if len(branches) == 1 {
		for i, it := range branches[0].Proj {
			repl[old[i]] = plan.NewCol(it.ID, b.typeOf(old[i]))
		}
		return branches[0], repl, nil
	}
	u := &plan.Node{Op: plan.OpSetOp, Set: plan.Union, All: true, Inputs: branches}
	for _, br := range branches {
		u.SetCols = append(u.SetCols, br.OutCols())
	}
	for _, c := range old {
		id := b.newColumn(b.meta.Col(c).Name, b.typeOf(c))
		u.Cols = append(u.Cols, id)
		repl[c] = plan.NewCol(id, b.typeOf(c))
	}
	return u, repl, nil
}

// replaceInExpr replaces references to the mapped columns in e, inside
// its subqueries too.
func replaceInExpr(e *plan.Expr, m map[plan.ColumnID]*plan.Expr) *plan.Expr {
	return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if x.Kind == plan.Subquery {
			plan.ReplaceColsOutside(x.Sub, nil, m)
		}
		if x.Kind == plan.ColRef {
			if r, ok := m[x.Col]; ok {
				return r.Copy()
			}
		}
		return x
	})
}

func countNodes(n *plan.Node) int {
	k := 0
	n.WalkNodes(func(*plan.Node) { k++ })
	n.WalkExprs(func(*plan.Expr) { k++ })
	return k
}

package pgcatalog

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// seriesTable is the system table of integers 1..seriesMax that
// set-returning functions are rewritten to read (rewrite.go).
const seriesTable = "pgequiv_series"

// srf is a set-returning function seen as a row count and the value of
// row n (1-based, a node that reads n through the column ref given).
type srf struct {
	length func() *pg.Node
	value  func(n *pg.Node) *pg.Node
}

// srfOf describes a call of a modelled set-returning function, or nil.
func (r *rewriter) srfOf(node *pg.Node) *srf {
	fc := node.GetFuncCall()
	if fc == nil || fc.Over != nil || fc.AggStar {
		return nil
	}
	args := fc.Args
	switch funcName(fc) {
	case "unnest":
		if len(args) != 1 {
			return nil
		}
		return arraySRF(args[0])
	case expandArray:
		if len(args) != 1 {
			return nil
		}
		return arraySRF(args[0])
	case expandArrayN:
		if len(args) != 1 {
			return nil
		}
		a := args[0]
		return &srf{length: func() *pg.Node { return fn("pgcat_array_length", a) },
			value: func(n *pg.Node) *pg.Node { return n }}
	case "pg_partition_ancestors":
		if len(args) != 1 {
			return nil
		}
		return arraySRF(fn("pgcat_partition_ancestors", args[0]))
	case "generate_subscripts":
		if len(args) != 2 {
			return nil
		}
		if c := args[1].GetAConst(); c == nil || c.GetIval().GetIval() != 1 {
			r.fail("generate_subscripts of a dimension other than 1 is not modelled")
			return nil
		}
		a := args[0]
		return &srf{length: func() *pg.Node { return fn("pgcat_array_length", a) },
			value: func(n *pg.Node) *pg.Node { return fn("pgcat_subscript_at", a, n) }}
	case "generate_series":
		if len(args) != 2 {
			r.fail("generate_series with a step is not modelled")
			return nil
		}
		lo, hi := args[0], args[1]
		return &srf{length: func() *pg.Node { return fn("pgcat_series_length", lo, hi) },
			value: func(n *pg.Node) *pg.Node {
				return pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("-")},
					pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("+")}, lo, n, -1), num(1), -1)
			}}
	}
	return nil
}

func arraySRF(a *pg.Node) *srf {
	at := "pgcat_array_at_text"
	if intElems(a) {
		at = "pgcat_array_at"
	}
	return &srf{length: func() *pg.Node { return fn("pgcat_array_length", a) },
		value: func(n *pg.Node) *pg.Node { return fn(at, a, n) }}
}

// seriesSource is "pg_catalog.pgequiv_series AS alias".
func seriesSource(alias string) *pg.Node {
	return pg.MakeFullRangeVarNode("pg_catalog", seriesTable, alias, -1)
}

// withinLength is "n BETWEEN 1 AND greatest(lengths...)".
func withinLength(n *pg.Node, lengths []*pg.Node) *pg.Node {
	hi := lengths[0]
	if len(lengths) > 1 {
		hi = &pg.Node{Node: &pg.Node_MinMaxExpr{MinMaxExpr: &pg.MinMaxExpr{Op: pg.MinMaxOp_IS_GREATEST, Args: lengths}}}
	}
	return pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_BETWEEN, []*pg.Node{pg.MakeStrNode("BETWEEN")}, n,
		pg.MakeListNode([]*pg.Node{num(1), hi}), -1)
}

func and(a, b *pg.Node) *pg.Node {
	if a == nil {
		return b
	}
	return pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{a, b}, -1)
}

// targetSRFs rewrites the set-returning functions at the top of a
// SELECT's target list into a join with the series table.
func (r *rewriter) targetSRFs(sel *pg.SelectStmt) {
	var found []*srf
	var targets []*pg.ResTarget
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if rt == nil || rt.Val == nil {
			continue
		}
		if f := r.srfOf(rt.Val); f != nil {
			found = append(found, f)
			targets = append(targets, rt)
		}
	}
	if len(found) == 0 {
		return
	}
	if len(sel.GroupClause) > 0 || sel.DistinctClause != nil || sel.HavingClause != nil {
		r.fail("set-returning functions with GROUP BY or DISTINCT are not modelled")
		return
	}
	r.srfs++
	alias := "_srf" + strconv.Itoa(r.srfs)
	n := col(alias, "n")
	var lengths []*pg.Node
	for k, f := range found {
		lengths = append(lengths, f.length())
		name := targets[k].Name
		if name == "" {
			name = funcName(targets[k].Val.GetFuncCall())
		}
		v := f.value(n)
		if len(found) > 1 {
			// Zipped: past its own length a set gives NULL.
			v = pg.MakeCaseExprNode(nil, []*pg.Node{pg.MakeCaseWhenNode(
				pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("<=")}, n, f.length(), -1), v, -1)}, -1)
		}
		targets[k].Val, targets[k].Name = v, name
	}
	sel.FromClause = append(sel.FromClause, seriesSource(alias))
	sel.WhereClause = and(sel.WhereClause, withinLength(n, lengths))
}

// fromSRFs rewrites each set-returning function in FROM into a lateral
// subquery over the series table.
func (r *rewriter) fromSRFs(sel *pg.SelectStmt) {
	for k, item := range sel.FromClause {
		sel.FromClause[k] = r.fromItem(item)
	}
}

func (r *rewriter) fromItem(item *pg.Node) *pg.Node {
	if j := item.GetJoinExpr(); j != nil {
		j.Larg, j.Rarg = r.fromItem(j.Larg), r.fromItem(j.Rarg)
		return item
	}
	rf := item.GetRangeFunction()
	if rf == nil {
		return item
	}
	if len(rf.Functions) != 1 || rf.IsRowsfrom || len(rf.Coldeflist) > 0 {
		r.fail("ROWS FROM or a column definition list is not modelled")
		return item
	}
	call := rf.Functions[0].GetList().GetItems()[0]
	f := r.srfOf(call)
	if f == nil {
		if r.err == nil {
			r.fail("function %s in FROM is not modelled", funcName(call.GetFuncCall()))
		}
		return item
	}
	r.srfs++
	alias := "_srf" + strconv.Itoa(r.srfs)
	n := col(alias, "n")
	name := funcName(call.GetFuncCall())
	out := &pg.Alias{Aliasname: name}
	if rf.Alias != nil {
		out.Aliasname = rf.Alias.Aliasname
		out.Colnames = rf.Alias.Colnames
		if len(out.Colnames) == 0 {
			// A scalar function's one column takes the alias's name.
			out.Colnames = []*pg.Node{pg.MakeStrNode(out.Aliasname)}
		}
	} else {
		out.Colnames = []*pg.Node{pg.MakeStrNode(name)}
	}
	targets := []*pg.Node{pg.MakeResTargetNodeWithVal(f.value(n), -1)}
	if rf.Ordinality {
		targets = append(targets, pg.MakeResTargetNodeWithVal(n, -1))
		if len(out.Colnames) < 2 {
			out.Colnames = append(out.Colnames, pg.MakeStrNode("ordinality"))
		}
	}
	sub := &pg.SelectStmt{TargetList: targets, FromClause: []*pg.Node{seriesSource(alias)},
		WhereClause: withinLength(n, []*pg.Node{f.length()})}
	return &pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
		Lateral:  true,
		Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sub}},
		Alias:    out,
	}}}
}

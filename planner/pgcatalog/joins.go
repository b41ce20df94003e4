package pgcatalog

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// The planner keeps a FROM list as a chain of cross joins under one
// filter (it models judged queries as written), and the executor joins
// by nested loops: pgjdbc's getImportedKeys joins nine catalog relations
// with commas (FROM pg_namespace pkn, pg_class pkc, pg_attribute pka,
// ...), whose cross product is billions of rows even over a small
// schema. A catalog query's comma list is therefore rewritten into a
// left-deep chain of inner joins, each WHERE conjunct moved into the ON
// of the join where the last relation it names enters:
//
//	FROM a, b, c WHERE a.x = b.y AND c.z = 1 AND p
//	  ⇒ FROM a JOIN b ON a.x = b.y JOIN c ON c.z = 1 WHERE p
//
// For inner joins an ON condition filters exactly as the same condition
// in WHERE does, so the answer is unchanged. A conjunct stays in WHERE
// when it names a column without its relation's alias (which relation
// it reads is not known here) or holds a subquery.

// joinCommaLists rewrites every SELECT's comma list under m.
func joinCommaLists(m proto.Message) {
	eachSelect(m.ProtoReflect(), joinCommaList)
}

func joinCommaList(sel *pg.SelectStmt) {
	if len(sel.FromClause) < 2 || sel.WhereClause == nil {
		return
	}
	pos := map[string]int{} // alias -> index of its FROM item
	for k, item := range sel.FromClause {
		names, ok := fromAliases(item)
		if !ok {
			return
		}
		for _, n := range names {
			if _, dup := pos[n]; dup {
				return // an ambiguous alias: leave the query as written
			}
			pos[n] = k
		}
	}
	quals := make([][]*pg.Node, len(sel.FromClause))
	var rest []*pg.Node
	for _, c := range conjuncts(sel.WhereClause) {
		at, ok := conjunctStep(c, pos)
		if !ok || at < 0 {
			rest = append(rest, c)
			continue
		}
		at = max(at, 1) // the first item's own conditions join it to the second
		quals[at] = append(quals[at], c)
	}
	left := sel.FromClause[0]
	for k := 1; k < len(sel.FromClause); k++ {
		left = &pg.Node{Node: &pg.Node_JoinExpr{JoinExpr: &pg.JoinExpr{
			Jointype: pg.JoinType_JOIN_INNER, Larg: left, Rarg: sel.FromClause[k], Quals: andAll(quals[k]),
		}}}
	}
	sel.FromClause = []*pg.Node{left}
	sel.WhereClause = nil
	if len(rest) > 0 {
		sel.WhereClause = andAll(rest)
	}
}

// fromAliases are the names a FROM item's columns are qualified by.
func fromAliases(item *pg.Node) ([]string, bool) {
	switch v := item.Node.(type) {
	case *pg.Node_RangeVar:
		if v.RangeVar.Alias != nil {
			return []string{v.RangeVar.Alias.Aliasname}, true
		}
		return []string{v.RangeVar.Relname}, true
	case *pg.Node_RangeSubselect:
		if v.RangeSubselect.Alias != nil {
			return []string{v.RangeSubselect.Alias.Aliasname}, true
		}
	case *pg.Node_RangeFunction:
		if v.RangeFunction.Alias != nil {
			return []string{v.RangeFunction.Alias.Aliasname}, true
		}
	case *pg.Node_JoinExpr:
		if v.JoinExpr.Alias != nil {
			return []string{v.JoinExpr.Alias.Aliasname}, true
		}
		l, ok := fromAliases(v.JoinExpr.Larg)
		if !ok {
			return nil, false
		}
		r, ok := fromAliases(v.JoinExpr.Rarg)
		return append(l, r...), ok
	}
	return nil, false
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(n *pg.Node) []*pg.Node {
	if b := n.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
		var out []*pg.Node
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg.Node{n}
}

// conjunctStep is the index of the last FROM item a conjunct reads (-1
// when it reads none: a constant or the enclosing query's columns),
// or false when where it belongs is not known.
func conjunctStep(c *pg.Node, pos map[string]int) (int, bool) {
	at, ok := -1, true
	each(c.ProtoReflect(), func(n *pg.Node) {
		switch v := n.Node.(type) {
		case *pg.Node_SubLink:
			ok = false
		case *pg.Node_ColumnRef:
			f := v.ColumnRef.Fields
			if len(f) < 2 || f[len(f)-1].GetAStar() != nil {
				ok = false
				return
			}
			if k, in := pos[f[len(f)-2].GetString_().GetSval()]; in {
				at = max(at, k)
			}
		}
	})
	return at, ok
}

// andAll is the conjunction of cs: TRUE when there are none.
func andAll(cs []*pg.Node) *pg.Node {
	switch len(cs) {
	case 0:
		return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: true}}}}}
	case 1:
		return cs[0]
	}
	return pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, cs, -1)
}

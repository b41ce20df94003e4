package build

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// finishOrderLimit applies ORDER BY and LIMIT to a relation whose columns
// can only be referenced by output name or ordinal (set operations,
// VALUES).
func (b *builder) finishOrderLimit(sel *pg.SelectStmt, rel *relation, sc *scope) (*relation, error) {
	if len(sel.SortClause) > 0 {
		osc := &scope{parent: sc.parent, ctes: sc.ctes}
		for i, c := range rel.cols {
			osc.cols = append(osc.cols, scopeCol{name: rel.names[i], id: c, typ: b.typeOf(c)})
		}
		var keys []plan.SortKey
		for _, sn := range sel.SortClause {
			sb := sn.GetSortBy()
			var e *plan.Expr
			if i, ok := ordinalRef(sb.Node); ok {
				if i < 1 || i > len(rel.cols) {
					return nil, b.errf(sb.Location, "ORDER BY position %d is not in select list", i)
				}
				e = plan.NewCol(rel.cols[i-1], b.typeOf(rel.cols[i-1]))
			} else {
				var err error
				if e, err = b.expr(sb.Node, osc, nil); err != nil {
					return nil, err
				}
			}
			k, err := b.sortKey(sb, e)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		rel.node = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{rel.node}, Keys: keys}
		rel.ordered = true
	}
	return b.applyLimit(sel, rel, sc)
}

func (b *builder) applyLimit(sel *pg.SelectStmt, rel *relation, sc *scope) (*relation, error) {
	if b.schema.Dialect == catalog.SQLite && sel.LimitCount == nil && sel.LimitOffset != nil {
		return nil, b.sqliteErr(-1, "near \"OFFSET\": syntax error: OFFSET without LIMIT")
	}
	if sel.LimitCount == nil && sel.LimitOffset == nil {
		return rel, nil
	}
	if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, b.unsupported(-1, "FETCH ... WITH TIES")
	}
	n := &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{rel.node}}
	var err error
	if sel.LimitCount != nil {
		if c := sel.LimitCount.GetAConst(); c == nil || !c.Isnull { // LIMIT NULL / ALL means none
			if n.Limit, err = b.expr(sel.LimitCount, sc, nil); err != nil {
				return nil, err
			}
		}
	}
	if sel.LimitOffset != nil {
		if n.Offset, err = b.expr(sel.LimitOffset, sc, nil); err != nil {
			return nil, err
		}
	}
	n.Limit = b.limitLiteral(sel.LimitCount, n.Limit)
	n.Offset = b.limitLiteral(sel.LimitOffset, n.Offset)
	typeParam(n.Limit, catalog.Int)
	typeParam(n.Offset, catalog.Int)
	if n.Limit == nil && n.Offset == nil {
		return rel, nil
	}
	rel.node = n
	return rel, nil
}

func (b *builder) sortKey(sb *pg.SortBy, e *plan.Expr) (plan.SortKey, error) {
	k := plan.SortKey{Expr: e}
	switch sb.SortbyDir {
	case pg.SortByDir_SORTBY_DESC:
		k.Desc = true
	case pg.SortByDir_SORTBY_USING:
		return k, b.unsupported(sb.Location, "ORDER BY USING")
	}
	// PostgreSQL sorts NULLs as larger than any value; SQLite as smaller.
	k.NullsFirst = k.Desc
	if b.schema.Dialect == catalog.SQLite {
		k.NullsFirst = !k.Desc
	}
	switch sb.SortbyNulls {
	case pg.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	}
	return k, nil
}

func ordinalRef(n *pg.Node) (int, bool) {
	if c := n.GetAConst(); c != nil {
		if iv, ok := c.Val.(*pg.A_Const_Ival); ok {
			return int(iv.Ival.Ival), true
		}
	}
	return 0, false
}

// singleName returns the name of an unqualified column reference.
func singleName(n *pg.Node) (string, bool) {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		if s := cr.Fields[0].GetString_(); s != nil {
			return s.Sval, true
		}
	}
	return "", false
}

// limitLiteral reads a quoted literal bound as the engine does:
// PostgreSQL gives an untyped literal the bound's type, bigint, so LIMIT
// '2' is LIMIT 2 (int8in: blanks around an optionally signed run of
// digits); SQLite converts text with numeric affinity. A literal the
// engine refuses stays as written ('2.5' in PostgreSQL, 'x' in both).
func (b *builder) limitLiteral(src *pg.Node, e *plan.Expr) *plan.Expr {
	if src == nil || e == nil {
		return e
	}
	c := src.GetAConst()
	if c == nil {
		return e
	}
	sv, ok := c.Val.(*pg.A_Const_Sval)
	if !ok {
		return e
	}
	text := strings.Trim(sv.Sval.Sval, " \t\n\r\v\f")
	if b.schema.Dialect == catalog.SQLite {
		// SQLite reads '2.0' as 2 too; a fractional value is refused.
		if i := strings.IndexByte(text, '.'); i > 0 && strings.Trim(text[i+1:], "0") == "" {
			text = text[:i]
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || text == "" || text[0] == '+' && b.schema.Dialect == catalog.SQLite {
		return e
	}
	out := plan.NewConst(catalog.Int, strconv.FormatInt(n, 10))
	out.Pos = e.Pos
	return out
}

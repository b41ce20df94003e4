package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// SQLite's reading of a SELECT where PostgreSQL's parser gives another
// (issue 33, item 13): the FROM list joins left to right, WHERE may name
// a result column's alias, and DISTINCT may be ordered by a column it
// does not return.

// sqliteLeftDeep returns SQLite's FROM list as one left-deep join when a
// later item is a join whose spine (its left operands, down to the
// first table) outer-joins, or joins NATURAL or with USING. SQLite joins
// the items left to right: in FROM a, b LEFT JOIN c ON p, the left
// operand of the LEFT JOIN is a × b, so p may read a; and in FROM a, b
// RIGHT JOIN c, an empty a still leaves c's rows. PostgreSQL binds the
// comma loosest: a × (b LEFT JOIN c). A parenthesized join, (b LEFT JOIN
// c ON p), is one unit in both, and the list is left as written where
// the join's first table follows a parenthesis (or is a subquery, whose
// text position the parse tree does not keep). The parse tree may be
// cached, so the spine is copied, never changed.
func (b *builder) sqliteLeftDeep(from []*pg.Node) []*pg.Node {
	if b.schema.Dialect != catalog.SQLite || len(from) < 2 {
		return from
	}
	regraft := false
	for _, item := range from[1:] {
		regraft = regraft || b.sqliteSpineJoins(item)
	}
	if !regraft {
		return from
	}
	acc := from[0]
	for _, item := range from[1:] {
		if !b.sqliteSpineJoins(item) {
			acc = crossJoinNode(acc, item)
			continue
		}
		root := proto.Clone(item).(*pg.Node)
		j := root.GetJoinExpr()
		for j.Larg.GetJoinExpr() != nil {
			j = j.Larg.GetJoinExpr()
		}
		j.Larg = crossJoinNode(acc, j.Larg)
		acc = root
	}
	return []*pg.Node{acc}
}

// sqliteSpineJoins reports whether item is a join whose spine holds an
// outer, NATURAL or USING join and whose first table is a plain table
// reference not opened by a parenthesis.
func (b *builder) sqliteSpineJoins(item *pg.Node) bool {
	j := item.GetJoinExpr()
	if j == nil || j.Alias != nil {
		return false
	}
	special := false
	for {
		special = special || j.Jointype != pg.JoinType_JOIN_INNER || j.IsNatural || len(j.UsingClause) > 0
		if j.Alias != nil {
			return false
		}
		l := j.Larg.GetJoinExpr()
		if l == nil {
			break
		}
		j = l
	}
	rv := j.Larg.GetRangeVar()
	if !special || rv == nil || rv.Location < 0 || int(rv.Location) > len(b.text) {
		return false
	}
	before := strings.TrimRight(b.text[:rv.Location], " \t\r\n\f")
	return strings.HasSuffix(before, ",")
}

func crossJoinNode(l, r *pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_JoinExpr{JoinExpr: &pg.JoinExpr{Jointype: pg.JoinType_JOIN_INNER, Larg: l, Rarg: r}}}
}

// sqliteWhereAliases builds WHERE as SQLite reads it: a name that is no
// column of the FROM clause may name a result column's alias, which
// stands for the result column's expression (SELECT a + 1 AS z FROM t
// WHERE z > 2 filters on a + 1); a column of that name wins, and the
// alias wins over the enclosing queries' columns, also in subqueries of
// the WHERE. Only where the WHERE names an alias that no FROM column
// has are the result columns built first (for their expressions only:
// the select list is built again, in its place, afterwards). An alias
// of an aggregate or window call is refused, as SQLite refuses it.
func (b *builder) sqliteWhereAliases(sel *pg.SelectStmt, node *plan.Node, sc *scope) (*plan.Node, error) {
	if b.schema.Dialect != catalog.SQLite || !b.whereNamesAlias(sel, sc) {
		return b.whereClause(sel.WhereClause, node, sc)
	}
	targets, err := b.selectList(sel.TargetList, sc, &aggState{})
	if err != nil {
		return nil, err
	}
	saved := sc.aliases
	sc.aliases = targets
	defer func() { sc.aliases = saved }()
	w, err := b.expr(sel.WhereClause, sc, nil)
	if err != nil {
		return nil, err
	}
	misuse := ""
	plan.Walk(w, func(x *plan.Expr) {
		if x.Kind == plan.Agg || x.Kind == plan.WinFunc {
			misuse = x.Name
		}
	})
	if misuse != "" {
		return nil, b.sqliteErr(-1, "misuse of aliased aggregate or window function %s()", misuse)
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{node}, Preds: []*plan.Expr{w}}, nil
}

// whereNamesAlias reports whether sel's WHERE (its subqueries included)
// holds an unqualified name that is a result column's alias and no
// column of the FROM clause.
func (b *builder) whereNamesAlias(sel *pg.SelectStmt, sc *scope) bool {
	aliases := map[string]bool{}
	for _, n := range sel.TargetList {
		if rt := n.GetResTarget(); rt != nil && rt.Name != "" && findCol(b, sc.cols, rt.Name) < 0 {
			aliases[strings.ToLower(rt.Name)] = true
		}
	}
	if len(aliases) == 0 {
		return false
	}
	found := false
	walkColumnRefs(sel.WhereClause.ProtoReflect(), func(cr *pg.ColumnRef) {
		if len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil && aliases[strings.ToLower(cr.Fields[0].GetString_().GetSval())] {
			found = true
		}
	})
	return found
}

// walkColumnRefs calls f on every ColumnRef under m.
func walkColumnRefs(m protoreflect.Message, f func(*pg.ColumnRef)) {
	if cr, ok := m.Interface().(*pg.ColumnRef); ok {
		f(cr)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkColumnRefs(l.Get(i).Message(), f)
			}
		case !fd.IsMap():
			walkColumnRefs(v.Message(), f)
		}
		return true
	})
}

// sqliteDistinctOrder returns the ORDER BY items of a SELECT DISTINCT as
// SQLite runs them. SQLite accepts an ORDER BY key that is no result
// column (PostgreSQL refuses it); the key is then read from some row of
// each group of equal results, which one being the engine's choice, so
// the rows come back in an order the query does not decide: the result
// is the distinct rows, unordered. Under LIMIT or OFFSET, which rows
// come back is the engine's choice too: the planner does not model it.
func (b *builder) sqliteDistinctOrder(sel *pg.SelectStmt, orders []orderItem, targets []target) ([]orderItem, error) {
	if b.schema.Dialect != catalog.SQLite || len(sel.DistinctClause) == 0 {
		return orders, nil
	}
	for _, o := range orders {
		if o.target >= 0 {
			continue
		}
		selected := false
		for _, t := range targets {
			selected = selected || exprEqual(t.expr, o.expr)
		}
		if selected {
			continue
		}
		if sel.LimitCount != nil || sel.LimitOffset != nil {
			return nil, b.unsupported(o.sb.Location, "SELECT DISTINCT ordered by a column it does not return, under LIMIT or OFFSET (SQLite chooses the rows)")
		}
		return nil, nil
	}
	return orders, nil
}

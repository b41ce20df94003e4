package spidereval

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Spider's hardness levels, from its evaluation.py.
const (
	Easy  = "easy"
	Med   = "medium"
	Hard  = "hard"
	Extra = "extra"
)

// Hardness classifies a gold query as Spider's evaluation.py does
// (eval_hardness: count_component1, count_component2, count_others),
// reading the query's parse tree instead of Spider's own parse. Its
// quirks are kept because the levels are only comparable if they are
// the same: a NOT condition in WHERE counts as an aggregate (has_agg
// reads the cond unit's not_op), and every AND/OR of HAVING counts as
// one too (has_agg reads the first letter of the connector). Only the
// outermost query's clauses count; a set operation's right side and
// subqueries in conditions count once each as nesting. An error means
// the query does not parse.
func Hardness(sql string) (string, error) {
	tree, err := pg.Parse(crossJoinsWithoutOn(sqliteToPG(sql)))
	if err != nil {
		return "", fmt.Errorf("hardness: %w", err)
	}
	if len(tree.Stmts) != 1 {
		return "", fmt.Errorf("hardness: want one statement, got %d", len(tree.Stmts))
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil {
		return "", fmt.Errorf("hardness: not a SELECT")
	}
	c1, c2, others := counts(sel)
	switch {
	case c1 <= 1 && others == 0 && c2 == 0:
		return Easy, nil
	case (others <= 2 && c1 <= 1 && c2 == 0) || (c1 <= 2 && others < 2 && c2 == 0):
		return Med, nil
	case (others > 2 && c1 <= 2 && c2 == 0) || (2 < c1 && c1 <= 3 && others <= 2 && c2 == 0) || (c1 <= 1 && others == 0 && c2 <= 1):
		return Hard, nil
	}
	return Extra, nil
}

// cond is one condition unit of Spider's flat condition lists.
type cond struct {
	node   *pg.Node
	not    bool
	like   bool
	nested int // subqueries among its operands
}

// conds flattens an AND/OR tree into Spider's [cond, conj, cond, ...]
// form, returning the units and the connectors between them.
func conds(n *pg.Node) ([]cond, []string) {
	if n == nil {
		return nil, nil
	}
	if b := n.GetBoolExpr(); b != nil && b.Boolop != pg.BoolExprType_NOT_EXPR {
		conj := "and"
		if b.Boolop == pg.BoolExprType_OR_EXPR {
			conj = "or"
		}
		var units []cond
		var conjs []string
		for i, a := range b.Args {
			if i > 0 {
				conjs = append(conjs, conj)
			}
			u, c := conds(a)
			units = append(units, u...)
			conjs = append(conjs, c...)
		}
		return units, conjs
	}
	c := cond{node: n}
	inner := n
	if b := n.GetBoolExpr(); b != nil && len(b.Args) == 1 {
		c.not = true
		inner = b.Args[0]
	}
	if a := inner.GetAExpr(); a != nil {
		switch a.Kind {
		case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
			c.like = true
			c.not = c.not || opName(a) == "!~~" || opName(a) == "!~~*"
		case pg.A_Expr_Kind_AEXPR_IN:
			c.not = c.not || opName(a) == "<>"
		case pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			c.not = true
		}
	}
	c.nested = countSubLinks(inner)
	return []cond{c}, nil
}

func opName(a *pg.A_Expr) string {
	if len(a.Name) == 0 {
		return ""
	}
	return a.Name[len(a.Name)-1].GetString_().GetSval()
}

// countSubLinks counts the subqueries in an expression, not looking into
// them.
func countSubLinks(n *pg.Node) int {
	count := 0
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg.SubLink); ok {
			count++
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(proto.Message(n).ProtoReflect())
	return count
}

var aggNames = map[string]bool{"count": true, "max": true, "min": true, "sum": true, "avg": true}

func isAgg(n *pg.Node) bool {
	f := n.GetFuncCall()
	if f == nil || len(f.Funcname) == 0 {
		return false
	}
	return aggNames[strings.ToLower(f.Funcname[len(f.Funcname)-1].GetString_().GetSval())]
}

// aggUnits counts the aggregates of a Spider val_unit: the expression
// itself, or the two operands of one arithmetic operator.
func aggUnits(n *pg.Node) int {
	if isAgg(n) {
		return 1
	}
	if a := n.GetAExpr(); a != nil && a.Kind == pg.A_Expr_Kind_AEXPR_OP && a.Lexpr != nil {
		c := 0
		if isAgg(a.Lexpr) {
			c++
		}
		if a.Rexpr != nil && isAgg(a.Rexpr) {
			c++
		}
		return c
	}
	return 0
}

// counts returns count_component1, count_component2 and count_others.
func counts(sel *pg.SelectStmt) (c1, c2, others int) {
	if sel.Op != pg.SetOperation_SET_OPERATION_UNDEFINED && sel.Op != pg.SetOperation_SETOP_NONE {
		// Spider parses A op B op C as A with (B op C) nested once; the
		// trailing ORDER BY/LIMIT belong to the nested side.
		main := sel.Larg
		for main.Op != pg.SetOperation_SETOP_NONE && main.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
			main = main.Larg
		}
		c1, c2, others = counts(main)
		return c1, c2 + 1, others
	}
	var from []cond
	var fromConj []string
	tables := 0
	var walkFrom func(n *pg.Node)
	walkFrom = func(n *pg.Node) {
		if j := n.GetJoinExpr(); j != nil {
			walkFrom(j.Larg)
			walkFrom(j.Rarg)
			if j.Quals != nil {
				u, c := conds(j.Quals)
				if len(from) > 0 {
					fromConj = append(fromConj, "and")
				}
				from = append(from, u...)
				fromConj = append(fromConj, c...)
			}
			return
		}
		tables++
	}
	for _, n := range sel.FromClause {
		walkFrom(n)
	}
	where, whereConj := conds(sel.WhereClause)
	having, havingConj := conds(sel.HavingClause)

	if len(where) > 0 {
		c1++
	}
	if len(sel.GroupClause) > 0 {
		c1++
	}
	if len(sel.SortClause) > 0 {
		c1++
	}
	if sel.LimitCount != nil {
		c1++
	}
	if tables > 0 {
		c1 += tables - 1
	}
	for _, cj := range append(append(append([]string(nil), fromConj...), whereConj...), havingConj...) {
		if cj == "or" {
			c1++
		}
	}
	for _, u := range append(append(append([]cond(nil), from...), where...), having...) {
		if u.like {
			c1++
		}
		c2 += u.nested
	}

	agg := 0
	for _, t := range sel.TargetList {
		// A select unit has one aggregate slot, read before its val_unit:
		// max(a) - min(a) counts once.
		if rt := t.GetResTarget(); rt != nil && rt.Val != nil && aggUnits(rt.Val) > 0 {
			if a := rt.Val.GetAExpr(); a == nil || isAgg(a.Lexpr) {
				agg++
			}
		}
	}
	for _, u := range where {
		if u.not {
			agg++
		}
	}
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb != nil && sb.Node != nil {
			agg += aggUnits(sb.Node)
		}
	}
	for _, u := range having {
		if u.not {
			agg++
		}
	}
	agg += len(havingConj)
	if agg > 1 {
		others++
	}
	if len(sel.TargetList) > 1 {
		others++
	}
	if len(where) > 1 {
		others++
	}
	if len(sel.GroupClause) > 1 {
		others++
	}
	return c1, c2, others
}

// sqliteToPG makes the SQLite spellings Spider's gold queries use
// parseable by pg_query: backtick identifiers and ==. Only the clause
// structure is read, so nothing else needs translating.
func sqliteToPG(sql string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				if c == '`' {
					c = '"'
				}
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '`':
			quote = c
			c = '"'
		case c == '=' && i+1 < len(sql) && sql[i+1] == '=':
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

// crossJoinsWithoutOn spells a [INNER] JOIN that has no ON or USING, which
// SQLite takes as a cross join and PostgreSQL's grammar refuses, as
// CROSS JOIN. Spider's parser reads such a join as one more table unit
// with no condition, which a cross join is too. sql is PostgreSQL-quoted
// (sqliteToPG's output).
func crossJoinsWithoutOn(sql string) string {
	toks := wordTokens(sql)
	var out strings.Builder
	last := 0
	for i, t := range toks {
		if t.word != "JOIN" || t.depth < 0 {
			continue
		}
		if i > 0 {
			switch toks[i-1].word {
			case "LEFT", "RIGHT", "FULL", "OUTER", "CROSS", "NATURAL":
				continue
			}
		}
		if joinHasCondition(toks[i+1:], t.depth) {
			continue
		}
		start := t.start
		if i > 0 && toks[i-1].word == "INNER" {
			start = toks[i-1].start
		}
		out.WriteString(sql[last:start])
		out.WriteString("CROSS JOIN")
		last = t.end
	}
	if last == 0 {
		return sql
	}
	out.WriteString(sql[last:])
	return out.String()
}

// joinHasCondition reports whether the join whose right side starts at
// toks has an ON or USING at its parenthesis depth before the clause or
// the next join ends it.
func joinHasCondition(toks []wordToken, depth int) bool {
	for _, t := range toks {
		if t.depth < depth {
			return false
		}
		if t.depth > depth {
			continue
		}
		switch t.word {
		case "ON", "USING":
			return true
		case "JOIN", ",", "WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "INTERSECT", "EXCEPT", ";",
			"LEFT", "RIGHT", "FULL", "INNER", "CROSS", "NATURAL", "WINDOW":
			return false
		}
	}
	return false
}

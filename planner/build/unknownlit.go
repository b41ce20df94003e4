package build

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL gives a quoted literal no type until its context does
// ("unknown"), and CASE, COALESCE, GREATEST and LEAST resolve their
// result type from the inputs that have one: the literals among them are
// then read as that type, at parse time ("UNION, CASE and related
// constructs" in the manual). So COALESCE(n, '0') over an integer n is
// an integer with a 0 where n is NULL, CASE ... THEN '05' ELSE n END
// yields 5, and a literal beside a uuid column is a uuid, printed in
// uuid's canonical spelling. Kept as text, the literal would print as
// written and tell such pairs apart where the engine returns the same
// values (a wrong not_equivalent), or fail to raise where the engine
// cannot read it ('5.0' beside an integer).

// resolveLiterals types the untyped quoted literals among args (built
// from nodes, one each) as the first typed input's type, as PostgreSQL
// does; a cast it cannot model is the error typeCast gives for it.
// Literals beside string types, or among inputs none of which is typed,
// stay text (PostgreSQL's fallback).
func (b *builder) resolveLiterals(nodes []*pg.Node, args []*plan.Expr, sc *scope, st *aggState) error {
	if b.schema.Dialect != catalog.Postgres || len(nodes) != len(args) {
		return nil
	}
	target := ""
	for i, a := range args {
		if untypedLiteral(nodes[i], a) || a.Kind == plan.Const && a.Null {
			continue
		}
		if target = b.exactType(a); target == "" {
			target = familyTypeName(a.Typ)
			if c := b.declaredColumn(a); c != nil && target == "" && c.Enum == nil && c.Domain == "" {
				// A type the plan does not name (inet, int4range): its
				// reading of the literal is not modelled.
				target = CanonicalType(c.TypeSQL, true)
				if target == "" {
					target = strings.ToLower(c.TypeSQL)
				}
			}
		}
		break
	}
	switch target {
	case "", "text", "varchar", "bpchar", "name", "char", "unknown":
		return nil
	case "int2", "int4", "int8", "numeric", "float4", "float8", "bool", "date", "time", "timestamp", "uuid":
	default:
		// The literal's reading in that type (inet's 10.0.0.1/32,
		// int4range's [1,2]) is not modelled: it would be kept as
		// written, which the engine does not print.
		for i, a := range args {
			if untypedLiteral(nodes[i], a) {
				return b.unsupported(nodes[i].GetAConst().GetLocation(), "a quoted literal read as "+target+" beside a typed input")
			}
		}
		return nil
	}
	for i, a := range args {
		if !untypedLiteral(nodes[i], a) {
			continue
		}
		tc := &pg.TypeCast{Arg: nodes[i], TypeName: &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(target)}, Location: -1},
			Location: nodes[i].GetAConst().GetLocation()}
		e, err := b.typeCast(tc, sc, st)
		if err != nil {
			return err
		}
		args[i] = e
	}
	return nil
}

// textLiteral says e is a quoted literal as the plan holds it (a
// non-NULL text constant): untyped unless a cast made it text.
func textLiteral(e *plan.Expr) bool {
	return e != nil && e.Kind == plan.Const && !e.Null && e.Typ == catalog.Text
}

// untypedLiteral says e, built from n, is a quoted literal with no
// type written: 'x', not 'x'::text.
func untypedLiteral(n *pg.Node, e *plan.Expr) bool {
	c := n.GetAConst()
	return c != nil && c.GetSval() != nil && textLiteral(e)
}

// familyTypeName is the PostgreSQL type a value of family t is read as
// when no exact type is known: "" where the family has no one name.
func familyTypeName(t catalog.Type) string {
	switch t {
	case catalog.Int:
		return "int8"
	case catalog.Numeric:
		return "numeric"
	case catalog.Float:
		return "float8"
	case catalog.Bool:
		return "bool"
	case catalog.Date:
		return "date"
	case catalog.Timestamp:
		return "timestamp"
	case catalog.Interval:
		return "interval"
	}
	return ""
}

// declaredColumn is the table column e reads, nil if e reads none.
func (b *builder) declaredColumn(e *plan.Expr) *catalog.Column {
	if e == nil || e.Kind != plan.ColRef || b.meta == nil || int(e.Col) < 0 || int(e.Col) >= len(b.meta.Columns) {
		return nil
	}
	m := b.meta.Col(e.Col)
	if m.Instance < 0 || m.Instance >= len(b.meta.Instances) {
		return nil
	}
	t := b.meta.Instances[m.Instance].Table
	if t == nil || m.Ordinal < 0 || m.Ordinal >= len(t.Columns) {
		return nil
	}
	return &t.Columns[m.Ordinal]
}

// A set operation's column and a VALUES column resolve their type the
// same way (SELECT '05' UNION ALL SELECT 5 returns 5 and 5): the plan
// does not coerce such a literal, so where a quoted literal meets a
// typed input that does not read it as text the query is not judged.

// stringExact says whether an exact type reads a quoted literal as the
// text it is ("" where the plan does not say).
func stringExact(t string) bool {
	switch t {
	case "", "text", "varchar", "bpchar", "name", "char":
		return true
	}
	return false
}

// literalMeetsType reports whether lit, an untyped quoted literal, and
// other, an input of the same column, make PostgreSQL read lit as
// another type than text.
func (b *builder) literalMeetsType(other *plan.Expr, otherType catalog.Type) bool {
	if other != nil && other.Kind == plan.Const && (other.Null || other.Typ == catalog.Text) {
		return false // NULL or another untyped literal
	}
	if c := b.declaredColumn(other); c != nil {
		ex := CanonicalType(c.TypeSQL, true)
		switch {
		case c.Enum != nil:
			return false // an enum label reads as written
		case ex == "" && c.Domain != "":
			return c.Type != catalog.Text
		case ex == "":
			return true // a type the plan does not name (inet, int4range)
		case ex == "uuid":
			return false // the executor reads such a literal as a uuid (exec's asTyped)
		}
		return !stringExact(ex)
	}
	switch otherType {
	case catalog.Text:
		return other != nil && !stringExact(b.exactType(other))
	case catalog.Null, catalog.Unknown:
		return false
	}
	return true
}

// checkSetOpLiterals refuses, in PostgreSQL, a set operation whose
// column has an untyped quoted literal on one side and a typed input on
// the other.
func (b *builder) checkSetOpLiterals(l, r *relation) error {
	if b.schema.Dialect != catalog.Postgres {
		return nil
	}
	for i := range l.cols {
		dl, dr := definingExpr(l.node, l.cols[i], 0), definingExpr(r.node, r.cols[i], 0)
		if textLiteral(dl) && b.literalMeetsType(dr, b.typeOf(r.cols[i])) || textLiteral(dr) && b.literalMeetsType(dl, b.typeOf(l.cols[i])) {
			return b.unsupported(-1, "a set operation reading a quoted literal as its other branch's type (column "+l.names[i]+")")
		}
	}
	return nil
}

// checkValuesLiterals is checkSetOpLiterals for the rows of a VALUES.
func (b *builder) checkValuesLiterals(rows [][]*plan.Expr) error {
	if b.schema.Dialect != catalog.Postgres || len(rows) < 2 {
		return nil
	}
	for i := range rows[0] {
		lit, typed := false, false
		for _, row := range rows {
			if i >= len(row) {
				continue
			}
			switch e := row[i]; {
			case textLiteral(e):
				lit = true
			case b.literalMeetsType(e, e.Typ):
				typed = true
			}
		}
		if lit && typed {
			return b.unsupported(-1, fmt.Sprintf("a VALUES column reading a quoted literal as another row's type (column%d)", i+1))
		}
	}
	return nil
}

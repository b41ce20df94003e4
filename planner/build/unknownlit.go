package build

import (
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
		}
		break
	}
	switch target {
	case "", "text", "varchar", "bpchar", "name", "char", "unknown":
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

// untypedLiteral says e, built from n, is a quoted literal with no
// type written: 'x', not 'x'::text.
func untypedLiteral(n *pg.Node, e *plan.Expr) bool {
	c := n.GetAConst()
	return c != nil && c.GetSval() != nil && e.Kind == plan.Const && !e.Null && e.Typ == catalog.Text
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

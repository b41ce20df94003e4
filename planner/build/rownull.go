package build

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// rowNullTest builds ROW(f1, …, fn) IS [NOT] NULL as PostgreSQL reads
// it: true when every field is [not] null, so for the row (1, NULL) both
// IS NULL and IS NOT NULL are false and IS NOT NULL is not NOT (IS NULL):
//
//	ROW(a, b) IS NULL     ⇒ a IS NULL AND b IS NULL
//	ROW(a, b) IS NOT NULL ⇒ a IS NOT NULL AND b IS NOT NULL
//
// A field that is itself a row constructor is tested as one value (never
// null) by PostgreSQL; that form and the empty row are refused rather
// than modelled.
func (b *builder) rowNullTest(row *plan.Expr, op string, loc int32) (*plan.Expr, error) {
	if len(row.Args) == 0 {
		return nil, b.unsupported(loc, "IS NULL on an empty row")
	}
	tests := make([]*plan.Expr, len(row.Args))
	for i, f := range row.Args {
		if f.Kind == plan.Tuple {
			return nil, b.unsupported(loc, "IS NULL on a row with a row-valued field")
		}
		tests[i] = plan.NewOp(op, catalog.Bool, f)
	}
	if len(tests) == 1 {
		return tests[0], nil
	}
	e := plan.NewOp(plan.OpAnd, catalog.Bool, tests...)
	e.Pos = loc
	return e, nil
}

// wholeRow reads n, in PostgreSQL, as a whole-row reference when it is a
// bare name that no column answers to but a FROM item does (t IS NULL):
// the row of that item's columns, every one of them (those USING merged
// away too). Names resolve level by level, a column before a FROM item,
// as PostgreSQL does; nil when n is not such a reference.
func (b *builder) wholeRow(n *pg.Node, sc *scope) *plan.Expr {
	cr := n.GetColumnRef()
	if b.schema.Dialect != catalog.Postgres || cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return nil
	}
	name := cr.Fields[0].GetString_().GetSval()
	for s := sc; s != nil; s = s.parent {
		var fields []*plan.Expr
		for _, c := range s.cols {
			if !c.hidden && b.nameEq(c.name, name) {
				return nil
			}
			if c.qual != "" && b.nameEq(c.qual, name) {
				f := plan.NewCol(c.id, c.typ)
				f.Pos = cr.Location
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			if s != sc {
				sc.correlated = true
			}
			return &plan.Expr{Kind: plan.Tuple, Args: fields, Typ: catalog.Unknown, Pos: cr.Location}
		}
	}
	return nil
}

package build

import (
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

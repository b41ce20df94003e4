package norm

import (
	"math/big"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Constants: rules that read a constant where the plan computes one, and
// arithmetic that returns its operand unchanged.

// arithIdentity: x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0 ⇒ x, on
// PostgreSQL only and only where PostgreSQL returns exactly x, with x's
// type, for every x (NULL included):
//
//   - integers: any of the forms with the integer literal 1 or 0 (no
//     overflow, integer division by 1 is exact);
//   - numeric: x * 1, 1 * x, x + 0, 0 + x, x - 0 with a literal of scale 0
//     (the result's scale is x's: 1.0 would widen it, and x / 1 computes
//     a quotient of at least 16 significant digits, 5 / 1 = 5.0000000000000000);
//   - double precision (declared float8 columns only: a real operand would
//     be widened to float8 and print differently): x * 1, 1 * x, x / 1,
//     x - 0 with any literal of that value; never + 0, since -0 + 0 is 0.
//
// floatExact says whether a Float-typed x is a float8 value; it is only
// asked about such x.
func arithIdentity(e *plan.Expr, floatExact func(*plan.Expr) bool) (*plan.Expr, bool) {
	if e.Kind != plan.Op || len(e.Args) != 2 {
		return e, false
	}
	l, r := e.Args[0], e.Args[1]
	try := func(x, c *plan.Expr, want string) bool {
		if x.Typ != e.Typ || c.Kind != plan.Const || c.Null || x.Kind == plan.Const {
			return false
		}
		switch e.Typ {
		case catalog.Int:
			return c.Typ == catalog.Int && c.Value == want
		case catalog.Numeric:
			return (c.Typ == catalog.Int || c.Typ == catalog.Numeric) && c.Value == want
		case catalog.Float:
			if want == "0" && e.Name == plan.OpAdd {
				return false
			}
			v, ok := new(big.Rat).SetString(c.Value)
			return ok && c.Typ.IsNumeric() && wantValue(v, want) && floatExact(x)
		}
		return false
	}
	switch e.Name {
	case plan.OpMul:
		if try(l, r, "1") {
			return l, true
		}
		if try(r, l, "1") {
			return r, true
		}
	case plan.OpAdd:
		if try(l, r, "0") {
			return l, true
		}
		if try(r, l, "0") {
			return r, true
		}
	case plan.OpSub:
		if try(l, r, "0") {
			return l, true
		}
	case plan.OpDiv:
		if e.Typ != catalog.Numeric && try(l, r, "1") {
			return l, true
		}
	}
	return e, false
}

// wantValue says whether v is the value of want ("0" or "1").
func wantValue(v *big.Rat, want string) bool {
	w, _ := new(big.Rat).SetString(want)
	return v.Cmp(w) == 0
}

// floatExact says whether e, a Float-typed expression, is a double
// precision value: columns declared double precision or float8,
// constants, and + - * / and negation of those.
func (z *normalizer) floatExact(e *plan.Expr) bool {
	ok := true
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.ColRef:
			if z.p.Meta == nil {
				ok = false
				return
			}
			base := z.p.Meta.Domain(x.Col).Base
			if base != "double precision" && base != "float8" {
				ok = false
			}
		case plan.Const:
		case plan.Op:
			switch x.Name {
			case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpNeg:
			default:
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok && e.Typ == catalog.Float
}

// postgres says whether the plan is in the PostgreSQL dialect.
func (z *normalizer) postgres() bool {
	return z.p.Meta != nil && z.p.Meta.Dialect == catalog.Postgres
}

// inlineValuesRow: VALUES (c1, ..., ck) with one row of constants ⇒
// Project(c1, ..., ck) over the empty row VALUES (), each constant
// defining the column it filled; remove-passthrough-project then puts the
// constants where the columns are read (outside an outer join's
// null-extended side). A constant whose type is not its column's stays.
func inlineValuesRow(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpValues || len(n.Rows) != 1 || len(n.Cols) == 0 || len(n.Rows[0]) != len(n.Cols) || !z.postgres() {
		return n, false
	}
	items := make([]plan.ProjItem, len(n.Cols))
	for i, c := range n.Cols {
		v := n.Rows[0][i]
		if v.Kind != plan.Const || v.Typ != z.p.Meta.Col(c).Type {
			return n, false
		}
		items[i] = plan.ProjItem{ID: c, Expr: v.Copy()}
	}
	// n becomes the projection in place: the plan's readers of its
	// columns, which remove-passthrough-project rewrites from the root,
	// then see the projection's definitions.
	one := &plan.Node{Op: plan.OpValues, Rows: [][]*plan.Expr{{}}}
	*n = plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{one}, Proj: items}
	return n, true
}

// pruneValuesColumns: a VALUES column read nowhere in the plan drops out
// of the list, with its entry in every row (each row stays: the row
// count is kept). A column whose entries may fail or vary (anything but
// a constant or a column reference) stays.
func pruneValuesColumns(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpValues || len(n.Cols) == 0 || f.keepCols {
		return n, false
	}
	read := z.colsReadOutside(n)
	var keep []int
	for i, c := range n.Cols {
		if read.Has(c) {
			keep = append(keep, i)
			continue
		}
		for _, row := range n.Rows {
			if i >= len(row) || row[i].Kind != plan.Const && row[i].Kind != plan.ColRef {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == len(n.Cols) {
		return n, false
	}
	c := *n
	c.Cols = make([]plan.ColumnID, 0, len(keep))
	c.Rows = make([][]*plan.Expr, len(n.Rows))
	for _, i := range keep {
		c.Cols = append(c.Cols, n.Cols[i])
	}
	for r, row := range n.Rows {
		c.Rows[r] = make([]*plan.Expr, 0, len(keep))
		for _, i := range keep {
			c.Rows[r] = append(c.Rows[r], row[i])
		}
	}
	return &c, true
}

// selfEquality: x = x ⇒ TRUE in the predicates of a filter or join, on
// PostgreSQL, where x is a column the inputs never hold NULL in (their
// derived NOT NULL columns: an outer join below has already taken away
// those of its null-extended side) of a scalar type whose = is
// reflexive: integers, numeric and floating point (NaN = NaN there),
// text (any collation), booleans. A row value's = is not (ROW(NULL) =
// ROW(NULL) is NULL), nor is it defined on json. x IS NOT DISTINCT FROM
// x ⇒ TRUE for such a column x, NULL or not.
func selfEquality(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter && n.Op != plan.OpJoin || !z.postgres() {
		return n, false
	}
	var notNull plan.ColSet
	computed := false
	changed := false
	for i, p := range n.Preds {
		n.Preds[i] = plan.Rewrite(p, func(x *plan.Expr) *plan.Expr {
			if !x.IsOp(plan.OpEq) && !x.IsOp(plan.OpNotDistinc) || len(x.Args) != 2 {
				return x
			}
			a, b := x.Args[0], x.Args[1]
			if a.Kind != plan.ColRef || b.Kind != plan.ColRef || a.Col != b.Col {
				return x
			}
			switch z.p.Meta.Col(a.Col).Type {
			case catalog.Int, catalog.Numeric, catalog.Float, catalog.Text, catalog.Bool:
			default:
				return x
			}
			if !computed && x.IsOp(plan.OpEq) {
				for _, in := range n.Inputs {
					notNull.UnionWith(plan.Derive(in, z.p.Meta).NotNull)
				}
				computed = true
			}
			if x.IsOp(plan.OpEq) && !notNull.Has(a.Col) {
				return x
			}
			changed = true
			return plan.NewBool(true)
		})
	}
	return n, changed
}

// boolEqualsConst: b = TRUE ⇒ b and b = FALSE ⇒ NOT b for a boolean b,
// on PostgreSQL: equal under three-valued logic (a NULL b gives NULL on
// both sides).
func boolEqualsConst(e *plan.Expr) (*plan.Expr, bool) {
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
		return e, false
	}
	for k := 0; k < 2; k++ {
		b, c := e.Args[k], e.Args[1-k]
		if b.Typ != catalog.Bool || b.Kind == plan.Const || c.Kind != plan.Const || c.Null || c.Typ != catalog.Bool {
			continue
		}
		switch {
		case c.IsTrue():
			return b, true
		case c.IsFalse():
			return plan.NewOp(plan.OpNot, catalog.Bool, b), true
		}
	}
	return e, false
}

// pruneUnionAllColumns: a UNION ALL column read nowhere in the plan drops
// out of the operation and of each branch's list (the branches still
// compute it): UNION ALL keeps every row of every branch, whatever its
// columns, so the bag of the remaining columns is the same.
func pruneUnionAllColumns(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool) {
	if n.Op != plan.OpSetOp || n.Set != plan.Union || !n.All || f.keepCols || len(n.Cols) == 0 {
		return n, false
	}
	read := z.colsReadOutside(n)
	var keep []int
	for i, c := range n.Cols {
		if read.Has(c) {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(n.Cols) {
		return n, false
	}
	for _, sc := range n.SetCols {
		if len(sc) != len(n.Cols) {
			return n, false
		}
	}
	cols := make([]plan.ColumnID, 0, len(keep))
	setCols := make([][]plan.ColumnID, len(n.SetCols))
	for _, i := range keep {
		cols = append(cols, n.Cols[i])
		for b := range n.SetCols {
			setCols[b] = append(setCols[b], n.SetCols[b][i])
		}
	}
	for b := range setCols {
		if setCols[b] == nil {
			setCols[b] = []plan.ColumnID{}
		}
	}
	n.Cols, n.SetCols = cols, setCols
	return n, true
}

// contradictoryEqualities: x = c1 AND x = c2 ⇒ FALSE among a filter's or
// an inner join's conjuncts, for two different literals c1 and c2 on
// each of which = is identity on values (an integer, a text under a
// deterministic collation, ...): x would hold two values.
func contradictoryEqualities(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpFilter && !(n.Op == plan.OpJoin && n.Join == plan.InnerJoin) || z.p.Meta == nil {
		return n, false
	}
	pinned := map[plan.ColumnID]*plan.Expr{}
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for k := 0; k < 2; k++ {
			x, c := e.Args[k], e.Args[1-k]
			if x.Kind != plan.ColRef || c.Kind != plan.Const || c.Null || c.Typ != x.Typ || !z.p.Meta.IdentityEq(x, c) {
				continue
			}
			if !canonicalText(c) {
				continue // a spelling of a value not read: may equal any other
			}
			if prev, ok := pinned[x.Col]; ok && prev.Typ == c.Typ && prev.Value != c.Value {
				n.Preds = []*plan.Expr{plan.NewBool(false)}
				return n, true
			}
			pinned[x.Col] = c
		}
	}
	return n, false
}

package prove

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "empty results" (issue 35, item 1): what makes a relation
// empty beyond contradictions, and what an empty result equals.
//
//   - empty-any-types: two whole results that return no row are the same
//     result whatever their column types (an untyped NULL column of an
//     empty candidate against a typed reference column): there is no value
//     to print. Only at the top: inside a plan a column's type still
//     decides how the expressions above it compute. A query that raises
//     an error is no empty result; Equivalent refuses those first.
//   - empty-check-false: a table with a valid CHECK (false) has no row (a
//     row is legal when the check is TRUE or NULL; false is neither). A
//     scan is the table's own rows: its children are separate scans.
//   - agg-over-empty: an aggregate without GROUP BY over an empty input
//     is one row: 0 for COUNT, NULL for the calls whose value over no row
//     is NULL.

// emptyAnyTypes proves the whole results a and b equal when both are
// empty and their column types differ (with equal types rel's empty-both
// does it). The caller checked the column counts and errors.
func (p *prover) emptyAnyTypes(a, b *plan.Node) bool {
	ao, bo := a.OutCols(), b.OutCols()
	differ := false
	for i := range ao {
		if p.a.Meta.Col(ao[i]).Type != p.b.Meta.Col(bo[i]).Type {
			differ = true
		}
	}
	if !differ {
		return false
	}
	k := p.mark()
	if p.empty(p.simplify(a, p.a.Meta), true) && p.empty(p.simplify(b, p.b.Meta), false) {
		p.rule(ruleEmptyAnyTypes)
		return true
	}
	p.undo(k)
	return false
}

// checkFalse reports whether t declares CHECK (false) (a partitioned
// table's "no rows of its own" reads so too).
func checkFalse(t *catalog.Table) bool {
	if t == nil {
		return false
	}
	for _, c := range t.Checks {
		e := strings.ToLower(strings.TrimSpace(c.Expr))
		for strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") {
			e = strings.TrimSpace(e[1 : len(e)-1])
		}
		if e == "false" {
			return true
		}
	}
	return false
}

// emptyAggValue is the value of a call over no row: "0" for the counts,
// NULL (null set) for the calls that return NULL there; ok is false for
// any other call (a custom or ordered-set aggregate, SQLite's total,
// whose value there is 0.0).
func emptyAggValue(e *plan.Expr) (zero, ok bool) {
	if e == nil || e.Kind != plan.Agg {
		return false, false
	}
	switch strings.ToLower(e.Name) {
	case "count", "regr_count":
		return true, true
	case "sum", "avg", "min", "max", "bool_and", "bool_or", "every",
		"array_agg", "string_agg", "group_concat", "json_agg", "jsonb_agg",
		"json_object_agg", "jsonb_object_agg", "bit_and", "bit_or", "bit_xor",
		"stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp":
		return false, true
	}
	return false, false
}

// aggOverEmpty rewrites an aggregate without GROUP BY whose input is
// proved empty into its one row of constants, or returns nil.
func (p *prover) aggOverEmpty(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.GroupBy) > 0 || len(n.Aggs) == 0 || p.aggNotEmpty[n] {
		return nil
	}
	row := make([]*plan.Expr, len(n.Aggs))
	cols := make([]plan.ColumnID, len(n.Aggs))
	for i, a := range n.Aggs {
		zero, ok := emptyAggValue(a.Expr)
		if !ok {
			return nil
		}
		if zero {
			row[i] = plan.NewConst(catalog.Int, "0")
		} else {
			row[i] = plan.NewNull(m.Col(a.ID).Type)
		}
		cols[i] = a.ID
	}
	k := p.mark()
	if !p.empty(p.simplify(n.Inputs[0], m), m == p.a.Meta) {
		p.undo(k)
		// simplify meets a node many times: remember the answer (a
		// fact of the node, whatever the search does next).
		if p.aggNotEmpty == nil {
			p.aggNotEmpty = map[*plan.Node]bool{}
		}
		p.aggNotEmpty[n] = true
		return nil
	}
	p.rule(ruleAggOverEmpty)
	return &plan.Node{Op: plan.OpValues, Rows: [][]*plan.Expr{row}, Cols: cols}
}

// nullColumnsAnyType proves the whole results a and b equal when both
// are (or fold to) rows of constants, row by row alike, where every
// column whose types differ is NULL in every row on both sides (SELECT
// SUM(x) FROM t WHERE false against SELECT NULL): a NULL prints alike
// whatever its type. Only at the top, as emptyAnyTypes.
func (p *prover) nullColumnsAnyType(a, b *plan.Node) bool {
	ao, bo := a.OutCols(), b.OutCols()
	differ := false
	for i := range ao {
		if p.a.Meta.Col(ao[i]).Type != p.b.Meta.Col(bo[i]).Type {
			differ = true
		}
	}
	if !differ {
		// Equal types: rel's own comparison decides.
		return false
	}
	k := p.mark()
	sa, sb := p.valuesOf(a, p.a.Meta), p.valuesOf(b, p.b.Meta)
	if sa == nil || sb == nil || sa.Op != plan.OpValues || sb.Op != plan.OpValues || len(sa.Rows) != len(sb.Rows) || len(sa.Cols) != len(sb.Cols) {
		p.undo(k)
		return false
	}
	differ = false
	for j := range sa.Cols {
		typesDiffer := p.a.Meta.Col(sa.Cols[j]).Type != p.b.Meta.Col(sb.Cols[j]).Type
		differ = differ || typesDiffer
		for i := range sa.Rows {
			if len(sa.Rows[i]) != len(sa.Cols) || len(sb.Rows[i]) != len(sb.Cols) {
				p.undo(k)
				return false
			}
			x, y := sa.Rows[i][j], sb.Rows[i][j]
			if typesDiffer {
				if x.Kind != plan.Const || !x.Null || y.Kind != plan.Const || !y.Null {
					p.undo(k)
					return false
				}
				continue
			}
			kx, okx := exprKeySub(x, p.colA, p.subA)
			ky, oky := exprKeySub(y, p.colB, p.subB)
			if !okx || !oky || kx != ky {
				p.undo(k)
				return false
			}
		}
	}
	if !differ {
		// Equal types: rel's own comparison decides.
		p.undo(k)
		return false
	}
	p.rule(ruleNullAnyType)
	return true
}

// valuesOf is n simplified to constant rows: VALUES, or a projection
// over an input that simplifies to VALUES, folded (project-values); nil
// otherwise.
func (p *prover) valuesOf(n *plan.Node, m *plan.Metadata) *plan.Node {
	n = p.simplify(n, m)
	if n.Op == plan.OpValues {
		return n
	}
	if n.Op != plan.OpProject || len(n.Inputs) != 1 {
		return nil
	}
	in := p.simplify(n.Inputs[0], m)
	if in.Op != plan.OpValues {
		return nil
	}
	c := *n
	c.Inputs = []*plan.Node{in}
	v := projectValues(&c, m)
	if v != nil {
		p.rule(ruleProjectValues)
	}
	return v
}

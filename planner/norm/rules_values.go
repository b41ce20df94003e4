package norm

import (
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// pushProjectIntoValues: Project(… VALUES (r1), (r2) …; e(c)) ⇒
// Project(… VALUES (r1, e(r1)), (r2, e(r2)) …; c'), on PostgreSQL: a
// projected expression that reads only the columns of one VALUES list
// below becomes a new column of that list, computed in each row (the
// fold rules then make each entry a literal, and prune-values-columns
// drops a column no longer read). The VALUES list is reached through
// filters, sorts, inner joins and the preserved (left) input of left,
// semi and anti joins only, where each of its rows reaches the
// projection unchanged or not at all; the entries e reads must be
// literals of one exact type (the value VALUES gives the column), and e
// in each row must fold to a literal by the constant rules, which keep
// e's exact type and never fold what raises: so each row holds the
// value e had there, computed once per VALUES row instead of once per
// output row, and no row raises an error the projection would not have
// raised (a row a filter drops is computed now too).
func pushProjectIntoValues(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpProject || len(n.Inputs) != 1 || !z.postgres() {
		return n, false
	}
	var lists []*plan.Node
	var reach func(x *plan.Node)
	reach = func(x *plan.Node) {
		switch x.Op {
		case plan.OpValues:
			if len(x.Cols) > 0 && len(x.Rows) > 0 {
				lists = append(lists, x)
			}
		case plan.OpFilter, plan.OpSort:
			reach(x.Inputs[0])
		case plan.OpJoin:
			switch x.Join {
			case plan.InnerJoin:
				for _, in := range x.Inputs {
					reach(in)
				}
			case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
				reach(x.Inputs[0])
			}
		}
	}
	reach(n.Inputs[0])
	if len(lists) == 0 {
		return n, false
	}
	var changed []*plan.Node
	for i := range n.Proj {
		it := &n.Proj[i]
		if it.Expr.Kind == plan.ColRef || it.Expr.Kind == plan.Const {
			continue
		}
		cols := it.Expr.Cols()
		if cols.Empty() {
			continue
		}
		for _, v := range lists {
			entries, ok := valuesEntries(z.p.Meta, v, it.Expr, cols)
			if !ok {
				continue
			}
			dom := z.p.Meta.Domain(it.ID)
			id := z.p.Meta.AddColumn(plan.ColumnMeta{Name: z.p.Meta.Col(it.ID).Name, Type: it.Expr.Typ, Instance: -1, Ordinal: -1, Dom: &dom})
			v.Cols = append(v.Cols, id)
			for r := range v.Rows {
				v.Rows[r] = append(v.Rows[r], entries[r])
			}
			it.Expr = plan.NewCol(id, it.Expr.Typ)
			changed = append(changed, v)
			break
		}
	}
	if len(changed) == 0 {
		return n, false
	}
	z.touched()
	for _, v := range changed {
		dropUnreadValuesColumns(z, v)
	}
	return n, true
}

// dropUnreadValuesColumns drops the columns of v read nowhere in the
// plan whose entries all evaluate (literals, casts of literals that
// read as values): the columns the moved expressions read, which
// prune-values-columns keeps where an entry is a cast, as it may fail.
func dropUnreadValuesColumns(z *normalizer, v *plan.Node) {
	read := z.colsReadOutside(v)
	var keep []int
	for i, c := range v.Cols {
		if read.Has(c) {
			keep = append(keep, i)
			continue
		}
		for _, row := range v.Rows {
			if _, err := exec.EvalConst(row[i]); err != nil {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == len(v.Cols) || len(keep) == 0 {
		return
	}
	cols := make([]plan.ColumnID, 0, len(keep))
	for _, i := range keep {
		cols = append(cols, v.Cols[i])
	}
	for r, row := range v.Rows {
		kept := make([]*plan.Expr, 0, len(keep))
		for _, i := range keep {
			kept = append(kept, row[i])
		}
		v.Rows[r] = kept
	}
	v.Cols = cols
}

// valuesEntries is e computed in each row of the VALUES list v, whose
// columns hold every column e reads: e with the row's entries in place
// of the columns, folded by the constant rules (fold-constants and the
// executor's, which keep e's exact type and leave what may raise). ok is
// false where e reads another column or a column whose entries are not
// literals of one exact type, or where an entry does not fold to a
// literal.
func valuesEntries(meta *plan.Metadata, v *plan.Node, e *plan.Expr, cols plan.ColSet) ([]*plan.Expr, bool) {
	at := map[plan.ColumnID]int{}
	for i, c := range v.Cols {
		at[c] = i
	}
	for _, c := range cols.Ordered() {
		i, in := at[c]
		if !in {
			return nil, false
		}
		// Each entry a literal of the column's type and of one exact
		// type (evalOperand: int4 integers), so that it is the value
		// PostgreSQL's VALUES gives the column in that row: VALUES (1),
		// (2.5) makes 1 a numeric there (1 / 2 would be 0.5, not 0), and
		// VALUES (1), (5000000000) an int8.
		for _, row := range v.Rows {
			if len(row) != len(v.Cols) || row[i].Typ != meta.Col(c).Type || !evalOperand(row[i]) {
				return nil, false
			}
		}
	}
	out := make([]*plan.Expr, len(v.Rows))
	for r, row := range v.Rows {
		x := plan.Rewrite(e.Copy(), func(y *plan.Expr) *plan.Expr {
			if y.Kind == plan.ColRef {
				return row[at[y.Col]].Copy()
			}
			return foldLiteral(y)
		})
		if !literal(x) {
			return nil, false
		}
		out[r] = x
	}
	return out, true
}

// foldLiteral applies the folding rules of literals to e, whose
// operands are folded already, until none fires.
func foldLiteral(e *plan.Expr) *plan.Expr {
	folds := []func(*plan.Expr) (*plan.Expr, bool){foldConstants, foldConstRegex, foldConstJSONB, foldConstDatetime, foldConstIntOps}
	for range 8 {
		fired := false
		for _, f := range folds {
			if y, ok := f(e); ok {
				e, fired = y, true
				break
			}
		}
		if !fired {
			return e
		}
	}
	return e
}

// literal says e is a non-NULL literal: a constant, or a cast of a text
// literal to jsonb or interval.
func literal(e *plan.Expr) bool {
	return e.Kind == plan.Const && !e.Null || jsonbLiteral(e) || intervalLiteral(e)
}

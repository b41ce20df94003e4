package build

import (
	pg "github.com/pganalyze/pg_query_go/v5"
)

// sqliteCompoundOrder rebuilds a compound SELECT as SQLite reads it.
// PostgreSQL's grammar (which pg_query parses) binds INTERSECT tighter
// than UNION and EXCEPT, so A UNION ALL B INTERSECT C is A UNION ALL
// (B INTERSECT C); SQLite gives every compound operator one precedence
// and reads left to right: (A UNION ALL B) INTERSECT C. The two differ
// (the soundness campaign found a counterexample SQLite does not
// reproduce). SQLite refuses parenthesised operands (sqlite_reject.go),
// so the operands and operators in source order are the leaves and
// inner nodes of the tree in order; they are rebuilt left-deep, with the
// statement's own WITH, ORDER BY and LIMIT on the new root.
func sqliteCompoundOrder(sel *pg.SelectStmt) *pg.SelectStmt {
	if !isSetOp(sel) || (!isSetOp(sel.Larg) && !isSetOp(sel.Rarg)) {
		return sel
	}
	type step struct {
		op  pg.SetOperation
		all bool
	}
	var operands []*pg.SelectStmt
	var ops []step
	var walk func(s *pg.SelectStmt, top bool)
	walk = func(s *pg.SelectStmt, top bool) {
		if !isSetOp(s) || (!top && (len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || s.WithClause != nil)) {
			operands = append(operands, s)
			return
		}
		walk(s.Larg, false)
		ops = append(ops, step{s.Op, s.All})
		walk(s.Rarg, false)
	}
	walk(sel, true)
	acc := operands[0]
	for i, st := range ops {
		acc = &pg.SelectStmt{Op: st.op, All: st.all, Larg: acc, Rarg: operands[i+1]}
	}
	acc.WithClause, acc.SortClause, acc.LimitCount, acc.LimitOffset, acc.LimitOption =
		sel.WithClause, sel.SortClause, sel.LimitCount, sel.LimitOffset, sel.LimitOption
	return acc
}

func isSetOp(s *pg.SelectStmt) bool {
	return s != nil && s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED
}

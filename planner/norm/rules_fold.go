package norm

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Constant calls and subqueries read as their values, and sort keys
// that break no tie.

// foldConstCalls evaluates, on PostgreSQL, calls whose arguments are
// ASCII text literals, where the result is the same in every locale:
// length, char_length, upper and lower of a literal, and [NOT] LIKE and
// [NOT] ILIKE of two literals (a pattern without backslash escapes). A
// literal with trailing spaces is left alone (a bpchar reads without
// them).
func foldConstCalls(e *plan.Expr) (*plan.Expr, bool) {
	text := func(a *plan.Expr) (string, bool) {
		if a.Kind != plan.Const || a.Null || a.Typ != catalog.Text || strings.HasSuffix(a.Value, " ") {
			return "", false
		}
		for i := 0; i < len(a.Value); i++ {
			if a.Value[i] >= 0x80 || a.Value[i] < 0x20 {
				return "", false
			}
		}
		return a.Value, true
	}
	switch {
	case e.Kind == plan.Func && len(e.Args) == 1:
		s, ok := text(e.Args[0])
		if !ok {
			return e, false
		}
		switch {
		case (e.Name == "length" || e.Name == "char_length") && e.Typ == catalog.Int:
			return plan.NewConst(catalog.Int, strconv.Itoa(len(s))), true
		case e.Name == "upper" && e.Typ == catalog.Text:
			return plan.NewConst(catalog.Text, strings.ToUpper(s)), true
		case e.Name == "lower" && e.Typ == catalog.Text:
			return plan.NewConst(catalog.Text, strings.ToLower(s)), true
		}
	case e.Kind == plan.Op && len(e.Args) == 2 && (e.Name == plan.OpLike || e.Name == plan.OpNotLike || e.Name == plan.OpILike || e.Name == plan.OpNotILike):
		s, ok1 := text(e.Args[0])
		p, ok2 := text(e.Args[1])
		if !ok1 || !ok2 || strings.Contains(p, `\`) {
			return e, false
		}
		if e.Name == plan.OpILike || e.Name == plan.OpNotILike {
			s, p = strings.ToLower(s), strings.ToLower(p)
		}
		m := likeMatch(s, p)
		return plan.NewBool(m == (e.Name == plan.OpLike || e.Name == plan.OpILike)), true
	}
	return e, false
}

// likeMatch matches ASCII s against a LIKE pattern without escapes: %
// any run, _ one character.
func likeMatch(s, p string) bool {
	// m[j]: the first j pattern bytes match the prefix of s read so far.
	m := make([]bool, len(p)+1)
	m[0] = true
	for j := 1; j <= len(p) && p[j-1] == '%'; j++ {
		m[j] = true
	}
	for i := 0; i < len(s); i++ {
		next := make([]bool, len(p)+1)
		for j := 1; j <= len(p); j++ {
			switch p[j-1] {
			case '%':
				next[j] = next[j-1] || m[j]
			case '_':
				next[j] = m[j-1]
			default:
				next[j] = m[j-1] && p[j-1] == s[i]
			}
		}
		m = next
	}
	return m[len(p)]
}

// subqueryConstRow reads a subquery over one row of constants, or over
// nothing, as the value it tests:
//
//   - EXISTS (π(VALUES one row)) ⇒ TRUE; EXISTS (π(R WHERE FALSE)) ⇒ FALSE;
//   - x op ANY (π[c](VALUES one row)) ⇒ x op c, c a constant: ANY over
//     one row is that row's comparison, NULL included.
func subqueryConstRow(e *plan.Expr) (*plan.Expr, bool) {
	if e.Kind != plan.Subquery || e.Sub == nil {
		return e, false
	}
	sub := e.Sub
	for sub.Op == plan.OpSort && len(sub.Inputs) == 1 {
		sub = sub.Inputs[0]
	}
	oneRow := sub.Op == plan.OpProject && len(sub.Inputs) == 1 && sub.Inputs[0].Op == plan.OpValues &&
		len(sub.Inputs[0].Rows) == 1 && len(sub.Inputs[0].Cols) == 0
	switch e.SubKind {
	case plan.SubExists:
		if oneRow {
			return plan.NewBool(true), true
		}
		n := sub
		for (n.Op == plan.OpProject || n.Op == plan.OpSort) && len(n.Inputs) == 1 {
			n = n.Inputs[0]
		}
		if n.Op == plan.OpFilter {
			for _, p := range n.Preds {
				if p.IsFalse() || p.Kind == plan.Const && p.Null {
					return plan.NewBool(false), true
				}
			}
		}
	case plan.SubAny:
		if !oneRow || len(e.Args) != 1 || len(sub.Proj) != 1 || e.SubOp == "" {
			return e, false
		}
		c := sub.Proj[0].Expr
		if c.Kind != plan.Const {
			return e, false
		}
		if _, ok := flipped[e.SubOp]; !ok {
			return e, false
		}
		return plan.NewOp(e.SubOp, catalog.Bool, e.Args[0], c.Copy()), true
	}
	return e, false
}

// redundantSortKeys drops, on PostgreSQL, a sort key that never breaks a
// tie: an expression an earlier key already sorts by (rows tied there
// hold values the comparison calls equal, in either direction), or a
// column every input row holds a value equal to one constant (a col =
// c conjunct the input applies to all its rows): the row order is the
// same. One key always stays.
func redundantSortKeys(z *normalizer, n *plan.Node, _ flags) (*plan.Node, bool) {
	if n.Op != plan.OpSort || len(n.Keys) < 2 || !z.postgres() {
		return n, false
	}
	pinned := pinnedColumns(n.Inputs[0])
	seen := map[string]bool{}
	var keep []plan.SortKey
	for _, k := range n.Keys {
		key := z.key(k.Expr)
		if seen[key] || k.Expr.Kind == plan.ColRef && pinned.Has(k.Expr.Col) {
			continue
		}
		seen[key] = true
		keep = append(keep, k)
	}
	if len(keep) == len(n.Keys) {
		return n, false
	}
	if len(keep) == 0 {
		keep = n.Keys[:1]
	}
	n.Keys = keep
	return n, true
}

// pinnedColumns are the columns of n's output that a conjunct col = c,
// c a non-NULL constant, holds TRUE on every row of: a filter's or an
// inner join's, carried up through inner joins, the preserved side of
// left joins and semi- and anti-joins, pass-through projections, sorts,
// limits, deduplication and grouping columns.
func pinnedColumns(n *plan.Node) plan.ColSet {
	var s plan.ColSet
	addPreds := func(ps []*plan.Expr) {
		for _, e := range ps {
			if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
				continue
			}
			for k := 0; k < 2; k++ {
				x, c := e.Args[k], e.Args[1-k]
				if x.Kind == plan.ColRef && c.Kind == plan.Const && !c.Null {
					s.Add(x.Col)
				}
			}
		}
	}
	switch n.Op {
	case plan.OpFilter:
		s = pinnedColumns(n.Inputs[0])
		addPreds(n.Preds)
	case plan.OpSort, plan.OpLimit, plan.OpDistinct:
		s = pinnedColumns(n.Inputs[0])
	case plan.OpProject:
		in := pinnedColumns(n.Inputs[0])
		for _, it := range n.Proj {
			if it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID && in.Has(it.ID) {
				s.Add(it.ID)
			}
		}
	case plan.OpAggregate:
		in := pinnedColumns(n.Inputs[0])
		for _, g := range n.GroupBy {
			if in.Has(g) {
				s.Add(g)
			}
		}
	case plan.OpJoin:
		switch n.Join {
		case plan.InnerJoin:
			for _, in := range n.Inputs {
				s.UnionWith(pinnedColumns(in))
			}
			addPreds(n.Preds)
		case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
			s = pinnedColumns(n.Inputs[0])
		}
	}
	return s
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "SQLite LIKE": the planner reads SQLite's LIKE as ILIKE, for
// SQLite folds the case of ASCII letters (and of no other character)
// when it matches; so, in the SQLite dialect only, a constant pattern
// matches the same strings with its ASCII letters lowered. PostgreSQL's
// LIKE is case-sensitive and its ILIKE folds by locale: there patterns
// are left as written. A pattern with ESCAPE is not a constant here
// (the planner reads it as a call), so it is left too.

// likeASCII returns e with the constant pattern of an ILIKE or NOT ILIKE
// lowered in its ASCII letters, or e itself.
func likeASCII(e *plan.Expr) *plan.Expr {
	if !(e.IsOp(plan.OpILike) || e.IsOp(plan.OpNotILike)) || len(e.Args) != 2 {
		return e
	}
	pat := e.Args[1]
	if pat.Kind != plan.Const || pat.Null || pat.Typ != catalog.Text {
		return e
	}
	b := []byte(pat.Value)
	changed := false
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
			changed = true
		}
	}
	if !changed {
		return e
	}
	c := e.Copy()
	c.Args[1] = plan.NewConst(catalog.Text, string(b))
	return c
}

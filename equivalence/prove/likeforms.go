package prove

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "like-forms": the spellings an ORM gives a prefix test, in a
// filter's conjuncts, on PostgreSQL (SQLite's LIKE folds case):
//
//   - a pattern computed from text constants, as Django escapes a
//     Value() — REPLACE(REPLACE(REPLACE('SQL', '\', '\\'), '%', '\%'),
//     '_', '\_') || '%' — is the constant it evaluates to (REPLACE and ||
//     of non-NULL text constants compute exactly);
//   - x LIKE w is dropped beside x LIKE s when s matches only strings w
//     does ('go%' implies '%go%' and 'g%'; anything non-NULL matches '%'),
//     x a text or varchar column of a deterministic collation. Both are
//     NULL where x is, so the conjunction keeps the same rows.
//
// LEFT(x, n) = 'L' as x LIKE 'L%' would be sound too, but the executor
// has no LEFT to check it with, so it is not taken.
func (p *prover) likeForms(n *plan.Node, m *plan.Metadata) *plan.Node {
	if p.opts.SQLite || n.Op != plan.OpFilter {
		return nil
	}
	preds := make([]*plan.Expr, len(n.Preds))
	changed := false
	for i, e := range n.Preds {
		preds[i] = e
		if f := foldLikePattern(e); f != nil {
			preds[i], changed = f, true
		}
	}
	var kept []*plan.Expr
	for i, w := range preds {
		implied := false
		for j, s := range preds {
			if i != j && likeImplies(s, w, m) && !(likeImplies(w, s, m) && j > i) {
				implied = true
				break
			}
		}
		if implied {
			changed = true
			continue
		}
		kept = append(kept, w)
	}
	if !changed {
		return nil
	}
	c := *n
	c.Preds = kept
	return &c
}

// foldLikePattern returns x LIKE 'v' for x LIKE e where e folds to the
// text constant v, and e is not one already; else nil.
func foldLikePattern(e *plan.Expr) *plan.Expr {
	if !e.IsOp(plan.OpLike) || len(e.Args) != 2 || e.Args[1].Kind == plan.Const {
		return nil
	}
	v, ok := foldText(e.Args[1])
	if !ok {
		return nil
	}
	c := e.Copy()
	c.Args[1] = plan.NewConst(catalog.Text, v)
	return c
}

// foldText evaluates a text constant, || of two, or REPLACE of three;
// ok is false for anything else (NULL included).
func foldText(e *plan.Expr) (string, bool) {
	if e.Typ != catalog.Text {
		return "", false
	}
	switch {
	case e.Kind == plan.Const:
		return e.Value, !e.Null
	case e.IsOp(plan.OpConcat) && len(e.Args) == 2:
		a, oka := foldText(e.Args[0])
		b, okb := foldText(e.Args[1])
		return a + b, oka && okb
	case e.Kind == plan.Func && e.Name == "replace" && len(e.Args) == 3 && e.Filter == nil:
		s, ok1 := foldText(e.Args[0])
		from, ok2 := foldText(e.Args[1])
		to, ok3 := foldText(e.Args[2])
		if !ok1 || !ok2 || !ok3 {
			return "", false
		}
		if from == "" {
			return s, true
		}
		return strings.ReplaceAll(s, from, to), true
	}
	return "", false
}

// plainText says whether x is a text or varchar column whose = is
// identity (a deterministic collation).
func plainText(x *plan.Expr, m *plan.Metadata) bool {
	if x.Kind != plan.ColRef || x.Typ != catalog.Text {
		return false
	}
	d := m.ExprDomain(x)
	return (d.Base == "text" || d.Base == "varchar") && !d.Nondeterministic && !d.Mixed
}

// likeImplies says whether s = x LIKE 'L%' implies w = x
// LIKE w' for the same column x: w' is '%', a prefix of L then '%', or
// '%' S '%' with S within L. L, S and the prefix hold no wildcard or
// backslash.
func likeImplies(s, w *plan.Expr, m *plan.Metadata) bool {
	if !s.IsOp(plan.OpLike) || !w.IsOp(plan.OpLike) || len(s.Args) != 2 || len(w.Args) != 2 || !sameTree(s.Args[0], w.Args[0]) || !plainText(s.Args[0], m) {
		return false
	}
	sp, wp := s.Args[1], w.Args[1]
	if sp.Kind != plan.Const || sp.Null || wp.Kind != plan.Const || wp.Null {
		return false
	}
	lit, ok := strings.CutSuffix(sp.Value, "%")
	if !ok || strings.ContainsAny(lit, `%_\`) {
		return false
	}
	pat := wp.Value
	switch {
	case pat == "%":
		return true
	case strings.HasPrefix(pat, "%") && strings.HasSuffix(pat, "%") && len(pat) >= 2:
		mid := pat[1 : len(pat)-1]
		return !strings.ContainsAny(mid, `%_\`) && strings.Contains(lit, mid)
	case strings.HasSuffix(pat, "%"):
		pre := pat[:len(pat)-1]
		return !strings.ContainsAny(pre, `%_\`) && strings.HasPrefix(lit, pre)
	}
	return false
}

package prove

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "sort-key-prefix": ORDER BY k1, …, ki, ki+1, … ⇒ ORDER BY k1,
// …, ki when k1…ki are plain columns holding a key of the sorted input
// (Django's order_by('-id', '-created_at')): no two rows agree on the
// prefix, so the later keys never break a tie. The input's keys compare
// NULLs as equal, as the sort does. PostgreSQL still evaluates the later
// keys on every row, so none may raise (ORDER BY id, views + 1 fails on
// the largest views).
func sortKeyPrefix(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpSort || len(n.Keys) < 2 {
		return nil
	}
	keys := plan.Derive(n.Inputs[0], m).Keys
	var prefix plan.ColSet
	for i, k := range n.Keys[:len(n.Keys)-1] {
		if k.Expr.Kind != plan.ColRef {
			return nil
		}
		prefix.Add(k.Expr.Col)
		for _, key := range keys {
			if key.SubsetOf(prefix) && !laterKeysMayRaise(n, n.Keys[i+1:]) {
				c := *n
				c.Keys = append([]plan.SortKey(nil), n.Keys[:i+1]...)
				return &c
			}
		}
	}
	return nil
}

// laterKeysMayRaise reports whether evaluating one of keys over sort's
// input may raise: the key's expression or the definition of a column it
// reads.
func laterKeysMayRaise(sort *plan.Node, keys []plan.SortKey) bool {
	for _, k := range keys {
		if !plan.CannotRaise(k.Expr) || plan.DefsMayRaise(sort.Inputs[0], k.Expr.Cols().Ordered()) {
			return true
		}
	}
	return false
}

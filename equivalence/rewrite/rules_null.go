package rewrite

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// NULL and aggregate rules: facts about NULLs (NOT NULL columns, aggregates
// that ignore NULLs) and about DISTINCT inside aggregates.

// nullsOrderNotNull: where a sort key can never be NULL, NULLS FIRST/LAST
// means nothing; write it as PostgreSQL's default so dialects agree.
func nullsOrderNotNull(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSort {
		return false
	}
	nn := r.props(n.Inputs[0]).NotNull
	fired := false
	for i, k := range n.Keys {
		if k.NullsFirst != k.Desc && k.Expr.Kind == plan.ColRef && nn.Has(k.Expr.Col) {
			n.Keys[i].NullsFirst = k.Desc
			fired = true
		}
	}
	return fired
}

// countStarNotNull: COUNT(c) ⇒ COUNT(*) when c is never NULL: a NOT NULL
// column, or a constant other than NULL (COUNT(1)).
func countStarNotNull(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate {
		return false
	}
	var nn plan.ColSet
	fired := false
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Name == "count" && !e.Distinct && !e.Star && len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null {
			// count(1): a constant that is never NULL counts every row.
			e.Star, e.Args = true, nil
			fired = true
			continue
		}
		if e.Name == "count" && !e.Distinct && !e.Star && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef {
			if nn.Empty() {
				nn = r.props(n.Inputs[0]).NotNull
			}
			if nn.Has(e.Args[0].Col) {
				e.Star, e.Args = true, nil
				fired = true
			}
		}
	}
	return fired
}

// isNotNullRedundant: Filter(x, c IS NOT NULL) drops the test when c is
// never NULL in x.
func isNotNullRedundant(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpFilter {
		return false
	}
	nn := r.props(n.Inputs[0]).NotNull
	var keep []*plan.Expr
	for _, p := range n.Preds {
		if p.IsOp(plan.OpIsNotNull) && p.Args[0].Kind == plan.ColRef && nn.Has(p.Args[0].Col) {
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) == len(n.Preds) {
		return false
	}
	n.Preds = keep
	if len(keep) == 0 {
		*slot = n.Inputs[0]
	}
	return true
}

var nullIgnoring = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// isNotNullUnderNullIgnoringAgg: Aggregate(Filter(x, c IS NOT NULL)) with
// no GROUP BY, whose every aggregate ignores NULLs of c alone
// (COUNT(DISTINCT c), MAX(c), ...), drops the filter: the rows it removes
// never reach the aggregates' results.
func isNotNullUnderNullIgnoringAgg(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate || len(n.GroupBy) > 0 || len(n.Aggs) == 0 || n.Inputs[0].Op != plan.OpFilter {
		return false
	}
	var col plan.ColumnID = -1
	for _, a := range n.Aggs {
		e := a.Expr
		if !nullIgnoring[e.Name] || e.Star || e.Filter != nil || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef {
			return false
		}
		if col >= 0 && e.Args[0].Col != col {
			return false
		}
		col = e.Args[0].Col
	}
	f := n.Inputs[0]
	for i, p := range f.Preds {
		if p.IsOp(plan.OpIsNotNull) && p.Args[0].Kind == plan.ColRef && p.Args[0].Col == col {
			f.Preds = append(f.Preds[:i:i], f.Preds[i+1:]...)
			if len(f.Preds) == 0 {
				n.Inputs[0] = f.Inputs[0]
			}
			return true
		}
	}
	return false
}

// aggDistinctRedundant: MAX(DISTINCT c) ⇒ MAX(c) and MIN likewise, always;
// COUNT/SUM/AVG(DISTINCT c) ⇒ without DISTINCT when c alone is a key of
// the aggregate's input, so its values are already distinct.
func aggDistinctRedundant(r *Ctx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate {
		return false
	}
	var props *plan.Props
	fired := false
	for _, a := range n.Aggs {
		e := a.Expr
		if !e.Distinct || len(e.Args) != 1 {
			continue
		}
		switch e.Name {
		case "max", "min":
			e.Distinct = false
			fired = true
		case "count", "sum", "avg":
			if e.Args[0].Kind != plan.ColRef {
				continue
			}
			if props == nil {
				props = r.props(n.Inputs[0])
			}
			if props.HasKeyWithin(plan.MakeColSet(e.Args[0].Col)) {
				e.Distinct = false
				fired = true
			}
		}
	}
	return fired
}

// refersToKey reports whether cols contain a key of t (unique and not
// null), so each foreign key value matches at most one row. PostgreSQL
// demands this of a foreign key; schemas written for other engines may
// not.
func refersToKey(t *catalog.Table, cols []int) bool {
	in := map[int]bool{}
	for _, c := range cols {
		in[c] = true
	}
	for _, k := range t.Keys() {
		all := true
		for _, o := range k {
			if !in[o] {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

package prove

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Rule subquery-same-value: two uncorrelated subqueries of one query
// whose plans are the same plan and proved equivalent are one value
// (one set, for IN): PostgreSQL runs a statement on one snapshot, so both
// read the same rows.
//
//	... x = (SELECT q) ... y = (SELECT q) ...  ⇒  both read key k of q
//
// The reference's subqueries are keyed by identity (subquery.go), so a
// query that repeats one (TPC-DS 58 has the same date subquery in three
// CTEs) gave each copy its own key, and a candidate listing the copies
// in another order matched its first copy to the reference's first and
// the others not at all. The copies share a key only where the plan's
// value does not depend on the order rows are read in: no LIMIT or
// OFFSET (which rows a LIMIT keeps without a total order may differ
// between two scans, synchronized scans starting anywhere), no window
// function, and only aggregates whose value is order-free (count, min,
// max, the boolean ones, and sum or avg of exact integers or numerics;
// a float sum depends on the order it adds in, string_agg and array_agg
// on the order they collect in).

// sameSub is a reference subquery keyed as the earlier one subsA[i],
// proved so under assumed.
type sameSub struct {
	i       int
	assumed []Assumption
}

// sameSubA returns the index of a reference subquery already keyed that
// x repeats, or -1.
func (p *prover) sameSubA(x *plan.Node, use *plan.Expr) int {
	if m, ok := p.subSameA[x]; ok {
		for _, a := range m.assumed {
			p.assume(a)
		}
		p.rule(ruleSubquerySameValue)
		return m.i
	}
	if !orderFree(x) {
		return -1
	}
	var text string
	for i, y := range p.subsA {
		if y.ReadsOuter() || !orderFree(y) {
			continue
		}
		if text == "" {
			text = plan.NewFormatter(p.a.Meta, x, false).Node(x)
		}
		if plan.NewFormatter(p.a.Meta, y, false).Node(y) != text {
			continue
		}
		r, err := Equivalent(p.ctx, &plan.Plan{Root: p.setUse(y, use), Meta: p.a.Meta}, &plan.Plan{Root: p.setUse(x, use), Meta: p.a.Meta}, p.opts)
		if err != nil || !r.Proved {
			continue
		}
		for _, a := range r.Assumptions {
			p.assume(a)
		}
		p.rule(ruleSubquerySameValue)
		if p.subSameA == nil {
			p.subSameA = map[*plan.Node]sameSub{}
		}
		p.subSameA[x] = sameSub{i, r.Assumptions}
		return i
	}
	return -1
}

// orderFreeAggs are the aggregates whose value is the same whatever
// order their input rows come in, for any argument type; sum and avg
// are so for exact types only (orderFree).
var orderFreeAggs = map[string]bool{"count": true, "min": true, "max": true, "bool_and": true, "bool_or": true, "every": true}

// orderFree reports whether n's result, subqueries included, does not
// depend on the order rows are read in.
func orderFree(n *plan.Node) bool {
	ok := true
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x.Op == plan.OpLimit || x.Op == plan.OpWindow {
				ok = false
			}
		})
		n.WalkExprs(func(e *plan.Expr) {
			switch {
			case e.Kind == plan.Agg:
				name := strings.ToLower(e.Name)
				exact := len(e.Args) == 1 && (e.Args[0].Typ == catalog.Int || e.Args[0].Typ == catalog.Numeric)
				if !orderFreeAggs[name] && !((name == "sum" || name == "avg") && exact) {
					ok = false
				}
				if len(e.Order) > 0 || len(e.Partition) > 0 {
					ok = false
				}
			case e.Kind == plan.Subquery && e.Sub != nil:
				visit(e.Sub)
			}
		})
	}
	visit(n)
	return ok
}

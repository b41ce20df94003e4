package refute

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// deadColumns reports, per base table and column ordinal, the columns on
// whose values neither plan's result depends: no expression reads them
// (subqueries included), no grouping or set operation names them, and no
// operator that compares or returns whole rows (the result itself,
// DISTINCT) receives them. Changing only such values leaves both results
// as they were, so minimization need not run the plans to know the
// outcome. It returns nil when a plan holds an operator it does not know
// (then no column counts as dead).
func deadColumns(plans ...*plan.Plan) map[string][]bool {
	l := &liveness{refs: map[plan.ColumnID]bool{}, ok: true}
	for _, p := range plans {
		if p == nil || p.Root == nil {
			return nil
		}
		l.node(p.Root, true)
	}
	if !l.ok {
		return nil
	}
	live := map[string][]bool{}
	for _, s := range l.scans {
		t := s.n.Table
		if live[t.Name] == nil {
			live[t.Name] = make([]bool, len(t.Columns))
		}
		for i, id := range s.n.Cols {
			if i < len(t.Columns) && (s.whole || l.refs[id]) {
				live[t.Name][i] = true
			}
		}
	}
	dead := map[string][]bool{}
	for name, cols := range live {
		d := make([]bool, len(cols))
		for i, isLive := range cols {
			d[i] = !isLive
		}
		dead[name] = d
	}
	return dead
}

// liveness collects what deadColumns needs: the columns read by ID, and
// each scan with whether its whole rows are used.
type liveness struct {
	refs  map[plan.ColumnID]bool
	scans []scanUse
	ok    bool
}

type scanUse struct {
	n     *plan.Node
	whole bool
}

// node records n, whose output rows are used whole when whole is set.
func (l *liveness) node(n *plan.Node, whole bool) {
	if n == nil || !l.ok {
		return
	}
	n.Exprs(func(s **plan.Expr) { l.expr(*s) })
	for _, c := range n.GroupBy {
		l.refs[c] = true
	}
	for _, cs := range n.SetCols {
		for _, c := range cs {
			l.refs[c] = true
		}
	}
	inputs := func(whole bool) {
		for _, in := range n.Inputs {
			l.node(in, whole)
		}
	}
	switch n.Op {
	case plan.OpScan:
		if n.Table == nil {
			l.ok = false
			return
		}
		l.scans = append(l.scans, scanUse{n, whole})
	case plan.OpFilter, plan.OpSort, plan.OpLimit, plan.OpWindow:
		inputs(whole) // their rows are their input's (Window: with more columns)
	case plan.OpDistinct:
		inputs(true) // compares whole rows
	case plan.OpProject, plan.OpAggregate, plan.OpSetOp:
		inputs(false) // read their input by column
	case plan.OpJoin:
		if (n.Join == plan.SemiJoin || n.Join == plan.AntiJoin) && len(n.Inputs) == 2 {
			l.node(n.Inputs[0], whole)
			l.node(n.Inputs[1], false)
			return
		}
		inputs(whole)
	case plan.OpValues:
	default:
		l.ok = false
	}
}

// expr records the columns e reads, entering its subqueries, whose rows
// count as used whole.
func (l *liveness) expr(e *plan.Expr) {
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.ColRef:
			l.refs[x.Col] = true
		case plan.Subquery:
			l.node(x.Sub, true)
		}
	})
}

package gmntrain

import (
	"slices"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The rewrites of the table in synth.go that are not equivalent: the
// mistakes text-to-SQL models make, each changing the result on some
// database.

func (r *rewriter) isBaseCol(e *plan.Expr) bool {
	return e.Kind == plan.ColRef && int(e.Col) < len(r.p.Meta.Columns) && r.p.Meta.Col(e.Col).Instance >= 0
}

// otherColumn changes a base column reference to another column of the
// same table instance, preferring the same type.
func (r *rewriter) otherColumn(e *plan.Expr) bool {
	m := r.p.Meta.Col(e.Col)
	cols := r.p.Meta.Instances[m.Instance].Cols
	i := pick(r.rng, cols, func(c plan.ColumnID) bool { return c != e.Col && r.p.Meta.Col(c).Type == m.Type })
	if i < 0 {
		i = pick(r.rng, cols, func(c plan.ColumnID) bool { return c != e.Col })
	}
	if i < 0 {
		return false
	}
	e.Col = cols[i]
	return true
}

// wrongColumn: a reference to t.c ⇒ t.d.
func (r *rewriter) wrongColumn() bool {
	s := r.pickExpr(func(s exprSite) bool { return r.isBaseCol(*s.slot) && s.owner.Op != plan.OpJoin })
	return s != nil && r.otherColumn(*s.slot)
}

// wrongJoinCondition: a join condition's column t.c ⇒ t.d.
func (r *rewriter) wrongJoinCondition() bool {
	s := r.pickExpr(func(s exprSite) bool { return r.isBaseCol(*s.slot) && s.owner.Op == plan.OpJoin })
	return s != nil && r.otherColumn(*s.slot)
}

var wrongOp = map[string][]string{
	plan.OpEq: {plan.OpNe, plan.OpLt, plan.OpGt}, plan.OpNe: {plan.OpEq},
	plan.OpLt: {plan.OpLe, plan.OpGt}, plan.OpLe: {plan.OpLt, plan.OpGe},
	plan.OpGt: {plan.OpGe, plan.OpLt}, plan.OpGe: {plan.OpGt, plan.OpLe},
	plan.OpILike: {plan.OpEq, plan.OpNotILike}, plan.OpLike: {plan.OpEq, plan.OpNotLike},
	plan.OpAnd: {plan.OpOr}, plan.OpOr: {plan.OpAnd},
}

// wrongOperator: a > b ⇒ a >= b, = ⇒ <>, AND ⇒ OR, ….
func (r *rewriter) wrongOperator() bool {
	s := r.pickExpr(func(s exprSite) bool { e := *s.slot; return e.Kind == plan.Op && len(wrongOp[e.Name]) > 0 })
	if s == nil {
		return false
	}
	e := *s.slot
	alts := wrongOp[e.Name]
	e.Name = alts[r.rng.IntN(len(alts))]
	return true
}

func (r *rewriter) otherLiteral(e *plan.Expr) {
	pool := r.pool[e.Typ]
	if i := pick(r.rng, pool, func(v string) bool { return v != e.Value }); i >= 0 && r.rng.IntN(2) == 0 {
		e.Value = pool[i]
		return
	}
	if f, err := strconv.ParseFloat(e.Value, 64); err == nil && e.Typ.IsNumeric() {
		d := float64(1 + r.rng.IntN(10))
		if r.rng.IntN(2) == 0 {
			d = -d
		}
		if e.Typ == catalog.Int || f == float64(int64(f)) {
			e.Value = strconv.FormatInt(int64(f+d), 10)
		} else {
			e.Value = strconv.FormatFloat(f+d, 'g', -1, 64)
		}
		return
	}
	e.Value += []string{"s", "x", " ", "1"}[r.rng.IntN(4)]
}

// wrongLiteral: a literal in a predicate or expression ⇒ another value.
func (r *rewriter) wrongLiteral() bool {
	s := r.pickExpr(func(s exprSite) bool {
		e := *s.slot
		return e.Kind == plan.Const && !e.Null && e.Typ != catalog.Bool && s.owner.Op != plan.OpLimit
	})
	if s == nil {
		return false
	}
	r.otherLiteral(*s.slot)
	return true
}

var aggSwap = map[string][]string{
	"count": {"sum", "max"}, "sum": {"avg", "count", "max"}, "avg": {"sum", "max", "min"},
	"min": {"max", "avg"}, "max": {"min", "avg", "sum"},
}

// wrongAggregate: max ⇒ min, sum ⇒ avg, count(c) ⇒ count(DISTINCT c), ….
func (r *rewriter) wrongAggregate() bool {
	s := r.pickExpr(func(s exprSite) bool { e := *s.slot; return e.Kind == plan.Agg && len(aggSwap[e.Name]) > 0 })
	if s == nil {
		return false
	}
	e := *s.slot
	if e.Star {
		return false // count(*) has no argument to aggregate otherwise
	}
	if len(e.Args) == 1 && (e.Name == "count" || e.Name == "sum" || e.Name == "avg") && r.rng.IntN(3) == 0 {
		e.Distinct = !e.Distinct
		return true
	}
	alts := aggSwap[e.Name]
	e.Name = alts[r.rng.IntN(len(alts))]
	return true
}

// joinType: inner ⇒ left, left ⇒ inner, semi ⇔ anti (IN ⇔ NOT IN).
func (r *rewriter) joinType() bool {
	s := r.pickNode(func(n *plan.Node) bool {
		switch n.Join {
		case plan.InnerJoin:
			return n.Op == plan.OpJoin && len(n.Inputs) == 2 && len(n.Preds) > 0
		case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
			return n.Op == plan.OpJoin
		}
		return false
	})
	if s == nil {
		return false
	}
	n := *s
	n.Join = map[plan.JoinKind]plan.JoinKind{plan.InnerJoin: plan.LeftJoin, plan.LeftJoin: plan.InnerJoin,
		plan.SemiJoin: plan.AntiJoin, plan.AntiJoin: plan.SemiJoin}[n.Join]
	return true
}

// missingPredicate: drop one conjunct of a filter (the filter goes when
// it was the only one).
func (r *rewriter) missingPredicate() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpFilter && len(n.Preds) > 0 })
	if s == nil {
		return false
	}
	n := *s
	if len(n.Preds) == 1 {
		*s = n.Inputs[0]
		return true
	}
	i := r.rng.IntN(len(n.Preds))
	n.Preds = slices.Delete(n.Preds, i, i+1)
	return true
}

// extraPredicate: Scan(t) ⇒ Filter(Scan(t), t.c op literal), with a literal
// of the column's type seen in the same database (= for text; =, <, > for
// numbers).
func (r *rewriter) extraPredicate() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpScan && len(n.Cols) > 0 })
	if s == nil {
		return false
	}
	n := *s
	c := n.Cols[r.rng.IntN(len(n.Cols))]
	m := r.p.Meta.Col(c)
	col := plan.NewCol(c, m.Type)
	var pred *plan.Expr
	if pool := r.pool[m.Type]; len(pool) > 0 {
		op := plan.OpEq
		if m.Type.IsNumeric() {
			op = []string{plan.OpGt, plan.OpLt, plan.OpEq}[r.rng.IntN(3)]
		}
		pred = plan.NewOp(op, catalog.Bool, col, plan.NewConst(m.Type, pool[r.rng.IntN(len(pool))]))
	} else {
		return false
	}
	*s = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n}, Preds: []*plan.Expr{pred}}
	return true
}

// distinctToggle: remove a DISTINCT, or add one where rows may repeat.
func (r *rewriter) distinctToggle() bool {
	if s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpDistinct }); s != nil {
		*s = (*s).Inputs[0]
		return true
	}
	s := r.topRelational()
	n := *s
	if n.Op == plan.OpSetOp && !n.All || plan.Derive(n, r.p.Meta).HasKeyWithin(n.OutColSet()) {
		return false
	}
	*s = &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}
	return true
}

// orderDirection: ASC ⇔ DESC on a sort key whose order matters (an
// ordered result, or a LIMIT above).
func (r *rewriter) orderDirection() bool {
	var sorts []*plan.Node
	var walk func(n *plan.Node, matters bool)
	walk = func(n *plan.Node, matters bool) {
		if n.Op == plan.OpSort && matters && len(n.Keys) > 0 {
			sorts = append(sorts, n)
		}
		for _, in := range n.Inputs {
			walk(in, n.Op == plan.OpLimit || matters && (n.Op == plan.OpSort || n.Op == plan.OpProject))
		}
	}
	walk(r.p.Root, r.p.Ordered)
	if len(sorts) == 0 {
		return false
	}
	n := sorts[r.rng.IntN(len(sorts))]
	k := &n.Keys[r.rng.IntN(len(n.Keys))]
	k.Desc, k.NullsFirst = !k.Desc, !k.NullsFirst
	return true
}

// limitValue: LIMIT n ⇒ LIMIT m.
func (r *rewriter) limitValue() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpLimit && n.Limit != nil && n.Limit.Kind == plan.Const })
	if s == nil {
		return false
	}
	e := (*s).Limit
	v, err := strconv.Atoi(e.Value)
	if err != nil {
		return false
	}
	nv := v + 1 + r.rng.IntN(4)
	if v > 1 && r.rng.IntN(2) == 0 {
		nv = 1 + r.rng.IntN(v-1)
	}
	e.Value = strconv.Itoa(nv)
	return true
}

// groupByKey: add a grouping column of the input, or drop one when there
// are several.
func (r *rewriter) groupByKey() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpAggregate && len(n.GroupBy) > 0 })
	if s == nil {
		return false
	}
	n := *s
	if len(n.GroupBy) > 1 && r.rng.IntN(2) == 0 {
		i := r.rng.IntN(len(n.GroupBy))
		n.GroupBy = slices.Delete(n.GroupBy, i, i+1)
		return true
	}
	in := n.Inputs[0].OutCols()
	i := pick(r.rng, in, func(c plan.ColumnID) bool { return !slices.Contains(n.GroupBy, c) })
	if i < 0 {
		return false
	}
	n.GroupBy = append(n.GroupBy, in[i])
	return true
}

// setOperation: UNION ⇒ INTERSECT / EXCEPT / UNION ALL, ….
func (r *rewriter) setOperation() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpSetOp })
	if s == nil {
		return false
	}
	n := *s
	if n.Set == plan.Union && r.rng.IntN(3) == 0 {
		n.All = !n.All
		return true
	}
	n.Set = (n.Set + 1 + plan.SetKind(r.rng.IntN(2))) % 3
	return true
}

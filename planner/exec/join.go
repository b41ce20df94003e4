package exec

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// join evaluates every join kind. Inner joins are n-ary after
// normalization; they are built input by input, applying each predicate
// as soon as the inputs it reads are present, so a selective join of
// several tables never materializes the full cross product.
func (x *executor) join(n *plan.Node, outer *env) (*rel, error) {
	if n.Join != plan.InnerJoin && len(n.Inputs) == 2 && dependsOn(n.Inputs[1], n.Inputs[0]) {
		return x.dependentJoin(n, outer)
	}
	ins := make([]*rel, len(n.Inputs))
	for i, in := range n.Inputs {
		r, err := x.node(in, outer)
		if err != nil {
			return nil, err
		}
		ins[i] = r
	}
	if n.Join == plan.InnerJoin {
		return x.innerJoin(n.Preds, ins, outer)
	}
	if len(ins) != 2 {
		return nil, cannot("%s join of %d inputs", n.Join, len(ins))
	}
	l, r := ins[0], ins[1]
	switch n.Join {
	case plan.SemiJoin, plan.AntiJoin:
		out := x.newRelLike(l)
		m := x.newMatcher(l, r, outer)
		for _, lrow := range l.rows {
			matched := false
			for _, rrow := range r.rows {
				ok, err := m.match(n.Preds, lrow, rrow)
				if err != nil {
					return nil, err
				}
				if ok {
					matched = true
					break
				}
			}
			if matched == (n.Join == plan.SemiJoin) {
				out.rows = append(out.rows, lrow)
			}
		}
		return out, nil
	case plan.LeftJoin, plan.RightJoin, plan.FullJoin:
		return x.outerJoin(n, l, r, outer)
	}
	return nil, cannot("%s join", n.Join)
}

// concatRow is a new row of a's values then b's.
func (x *executor) concatRow(a, b []Value) []Value {
	out := x.newRow(len(a) + len(b))
	copy(out[copy(out, a):], b)
	return out
}

// matcher evaluates join predicates on pairs of rows without joining
// them: the left row's env encloses the right row's, so a column is
// looked up in the left row, then the right, then the outer rows, as in
// the joined row. Most pairs do not match, and only a kept pair needs a
// row of its own (concatRow).
type matcher struct {
	x    *executor
	l, r env
}

func (x *executor) newMatcher(l, r *rel, outer *env) *matcher {
	m := &matcher{x: x, r: env{r: r, outer: outer}}
	m.l = env{r: l, outer: &m.r}
	return m
}

// match reports whether preds hold on lrow joined with rrow, counting
// the pair against the executor's bound.
func (m *matcher) match(preds []*plan.Expr, lrow, rrow []Value) (bool, error) {
	if err := m.x.pair(); err != nil {
		return false, err
	}
	if len(preds) == 0 {
		return true, nil
	}
	m.l.row, m.r.row = lrow, rrow
	return m.x.where(preds, &m.l)
}

// joinCols are the columns of a join of l and r.
func joinCols(l, r *rel) []plan.ColumnID {
	return append(append(make([]plan.ColumnID, 0, len(l.cols)+len(r.cols)), l.cols...), r.cols...)
}

func (x *executor) outerJoin(n *plan.Node, l, r *rel, outer *env) (*rel, error) {
	m := x.newMatcher(l, r, outer)
	out := x.newRel(joinCols(l, r))
	rightMatched := make([]bool, len(r.rows))
	for _, lrow := range l.rows {
		matched := false
		for j, rrow := range r.rows {
			ok, err := m.match(n.Preds, lrow, rrow)
			if err != nil {
				return nil, err
			}
			if ok {
				matched = true
				rightMatched[j] = true
				out.rows = append(out.rows, x.concatRow(lrow, rrow))
			}
		}
		if !matched && (n.Join == plan.LeftJoin || n.Join == plan.FullJoin) {
			out.rows = append(out.rows, x.concatRow(lrow, x.newRow(len(r.cols))))
		}
	}
	if n.Join == plan.RightJoin || n.Join == plan.FullJoin {
		for j, rrow := range r.rows {
			if !rightMatched[j] {
				out.rows = append(out.rows, x.concatRow(x.newRow(len(l.cols)), rrow))
			}
		}
	}
	return out, nil
}

func (x *executor) innerJoin(preds []*plan.Expr, ins []*rel, outer *env) (*rel, error) {
	// A predicate can run once every input it reads from this join has
	// been added: at the last input holding one of its columns. (Inputs
	// are scanned instead of mapping each column to its input: the map
	// cost more than the rest of the join on the refuter's databases.)
	ready := make([][]*plan.Expr, len(ins))
	for _, p := range preds {
		cs := p.Cols()
		last := 0
	inputs:
		for i := len(ins) - 1; i > 0; i-- {
			for _, c := range ins[i].cols {
				if cs.Has(c) {
					last = i
					break inputs
				}
			}
		}
		ready[last] = append(ready[last], p)
	}
	acc := x.newRel(nil)
	acc.rows = [][]Value{{}}
	for i, in := range ins {
		if err := x.check(); err != nil {
			return nil, err
		}
		if i == 0 && len(ready[0]) == 0 {
			// The first input joined to the one empty row is itself:
			// its rows serve as they are (rows are never modified once
			// made), clipped so that an append copies them.
			acc = &rel{cols: in.cols, idx: in.idx, rows: in.rows[:len(in.rows):len(in.rows)]}
			continue
		}
		m := x.newMatcher(acc, in, outer)
		next := x.newRel(joinCols(acc, in))
		for _, a := range acc.rows {
			for _, b := range in.rows {
				ok, err := m.match(ready[i], a, b)
				if err != nil {
					return nil, err
				}
				if ok {
					next.rows = append(next.rows, x.concatRow(a, b))
				}
			}
		}
		acc = next
	}
	return acc, nil
}

// setOp evaluates UNION, INTERSECT and EXCEPT, with and without ALL,
// folding more than two inputs from the left as SQL associates them.
func (x *executor) setOp(n *plan.Node, outer *env) (*rel, error) {
	if len(n.Inputs) < 2 || len(n.SetCols) != len(n.Inputs) {
		return nil, cannot("set operation with %d inputs", len(n.Inputs))
	}
	for _, c := range n.Cols {
		if x.bp && x.bpCols()[c] == bpMixed {
			// The output type would be text or bpchar of no width,
			// resolved from the inputs (see bpchar.go).
			return nil, cannot("set operation mixing char(n) with other types or widths")
		}
	}
	var acc [][]Value
	for i, in := range n.Inputs {
		r, err := x.node(in, outer)
		if err != nil {
			return nil, err
		}
		rows := make([][]Value, len(r.rows))
		for j, row := range r.rows {
			vals := make([]Value, len(n.SetCols[i]))
			for k, c := range n.SetCols[i] {
				idx, ok := r.index(c)
				if !ok {
					return nil, cannot("set operation column %d missing from its input", c)
				}
				vals[k] = row[idx]
				if !x.lite && k < len(n.Cols) {
					// A literal arm takes the column's type (uuid.go).
					v, err := asTyped(x.meta.Col(n.Cols[k]).Type, vals[k])
					if err != nil {
						return nil, err
					}
					vals[k] = v
				}
			}
			rows[j] = vals
		}
		if i == 0 {
			acc = rows
			continue
		}
		if x.coll {
			if err := setOpColl(acc, rows, n.All, n.Set); err != nil {
				return nil, err
			}
		}
		if !n.All || n.Set != plan.Union {
			// Rows that match keep one side's spelling.
			if err := intervalsSpelledApart(acc, rows); err != nil {
				return nil, err
			}
		}
		acc = combine(n.Set, n.All, acc, rows)
	}
	out := x.newRel(n.Cols)
	out.rows = acc
	return out, nil
}

// combine applies one set operation to two bags. Without ALL the result
// has no duplicates; with ALL a row's multiplicity is the sum (UNION),
// the minimum (INTERSECT) or the difference floored at zero (EXCEPT).
func combine(kind plan.SetKind, all bool, l, r [][]Value) [][]Value {
	rc := map[string]int{}
	for _, row := range r {
		rc[rowKey(row)]++
	}
	var out [][]Value
	seen := map[string]bool{}
	emit := func(row []Value) {
		k := rowKey(row)
		if !all {
			if seen[k] {
				return
			}
			seen[k] = true
		}
		out = append(out, row)
	}
	switch kind {
	case plan.Union:
		for _, row := range l {
			emit(row)
		}
		for _, row := range r {
			emit(row)
		}
	case plan.Intersect:
		for _, row := range l {
			k := rowKey(row)
			if rc[k] > 0 {
				if all {
					rc[k]--
				}
				emit(row)
			}
		}
	case plan.Except:
		for _, row := range l {
			k := rowKey(row)
			if rc[k] > 0 {
				if all {
					rc[k]--
				}
				continue
			}
			emit(row)
		}
	}
	return out
}

// dependsOn reports whether right reads columns that left produces: the
// normalizer leaves correlated predicates inside a semi, anti or left
// join's right input, which must then be evaluated once per left row.
func dependsOn(right, left *plan.Node) bool {
	var refs plan.ColSet
	right.WalkExprs(func(e *plan.Expr) {
		switch e.Kind {
		case plan.ColRef:
			refs.Add(e.Col)
		case plan.Subquery:
			refs.UnionWith(e.Cols())
		}
	})
	return refs.Intersects(left.OutColSet())
}

// dependentJoin evaluates a semi, anti or left join whose right input
// reads the left row, as a lateral join: the right input once per left
// row, with that row bound.
func (x *executor) dependentJoin(n *plan.Node, outer *env) (*rel, error) {
	if n.Join != plan.SemiJoin && n.Join != plan.AntiJoin && n.Join != plan.LeftJoin {
		return nil, cannot("dependent %s join", n.Join)
	}
	l, err := x.node(n.Inputs[0], outer)
	if err != nil {
		return nil, err
	}
	cols := l.cols
	if n.Join == plan.LeftJoin {
		cols = n.OutCols()
	}
	out := x.newRel(cols)
	for _, lrow := range l.rows {
		lenv := &env{r: l, row: lrow, outer: outer}
		r, err := x.node(n.Inputs[1], lenv)
		if err != nil {
			return nil, err
		}
		m := x.newMatcher(l, r, outer)
		matched := false
		for _, rrow := range r.rows {
			ok, err := m.match(n.Preds, lrow, rrow)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			matched = true
			if n.Join != plan.LeftJoin {
				break
			}
			out.rows = append(out.rows, x.concatRow(lrow, rrow))
		}
		switch {
		case n.Join == plan.LeftJoin && !matched:
			out.rows = append(out.rows, x.concatRow(lrow, x.newRow(len(r.cols))))
		case n.Join != plan.LeftJoin && matched == (n.Join == plan.SemiJoin):
			out.rows = append(out.rows, lrow)
		}
	}
	return out, nil
}

package equivalence

import "github.com/pgequiv/pgequiv/planner/plan"

// atMostOneRow reports whether n returns at most one row: what
// plan.Derive knows, and also a filter that equates every column of a key
// with a constant (WHERE dog_id = 1), or one that is never true (WHERE
// false), or LIMIT 0/1 on the way down. A sort over such rows is no sort.
func atMostOneRow(n *plan.Node, m *plan.Metadata) bool {
	var pinned plan.ColSet
	var top *plan.Node // the first filter of the chain pinned describes
	for {
		switch n.Op {
		case plan.OpLimit:
			if n.Limit != nil && n.Limit.Kind == plan.Const && (n.Limit.Value == "0" || n.Limit.Value == "1") {
				return true
			}
		case plan.OpSort, plan.OpDistinct:
			// The same columns, no more rows.
		case plan.OpSetOp:
			// UNION [ALL] has at most the rows of its inputs together;
			// INTERSECT and EXCEPT at most those of their left input.
			if n.Set != plan.Union {
				n = n.Inputs[0]
				pinned, top = plan.ColSet{}, nil
				continue
			}
			rows := 0
			for _, in := range n.Inputs {
				switch {
				case isEmpty(in):
				case atMostOneRow(in, m):
					rows++
				default:
					rows = 2
				}
			}
			return rows <= 1
		case plan.OpProject:
			// Rows stay, columns may be renamed: start afresh below.
			pinned, top = plan.ColSet{}, nil
		case plan.OpFilter:
			if top == nil {
				top = n
			}
			for _, c := range n.Preds {
				if c.IsFalse() || (c.Kind == plan.Const && c.Null) {
					return true
				}
				if col, ok := pinnedColumn(c); ok {
					pinned.Add(col)
				}
			}
		default:
			if top == nil {
				top = n
			}
			props := plan.Derive(top, m)
			if props.AtMostOneRow() {
				return true
			}
			// A key all of whose columns are (equal to) pinned columns: any
			// two rows left agree on the key, so there is at most one.
			for _, k := range props.Keys {
				all := true
				for _, c := range k.Ordered() {
					if !props.EquivOf(c).Intersects(pinned) {
						all = false
						break
					}
				}
				if all {
					return true
				}
			}
			return false
		}
		n = n.Inputs[0]
	}
}

// isEmpty reports whether n returns no row whatever the data: LIMIT 0 or
// a filter that is never true, under operators that keep or drop rows.
func isEmpty(n *plan.Node) bool {
	for {
		switch n.Op {
		case plan.OpLimit:
			if n.Limit != nil && n.Limit.Kind == plan.Const && n.Limit.Value == "0" {
				return true
			}
		case plan.OpFilter:
			for _, c := range n.Preds {
				if c.IsFalse() || (c.Kind == plan.Const && c.Null) {
					return true
				}
			}
		case plan.OpProject, plan.OpSort, plan.OpDistinct:
		default:
			return false
		}
		n = n.Inputs[0]
	}
}

// pinnedColumn matches col = constant (or parameter): every row that
// passes has the same value in col, and a NULL constant passes none.
func pinnedColumn(e *plan.Expr) (plan.ColumnID, bool) {
	if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
		return 0, false
	}
	a, b := e.Args[0], e.Args[1]
	if a.Kind != plan.ColRef {
		a, b = b, a
	}
	if a.Kind == plan.ColRef && (b.Kind == plan.Const || b.Kind == plan.Param) {
		return a.Col, true
	}
	return 0, false
}

// dropVacuousSorts removes, from the chain of operators that shape p's
// result, sort keys that are constants and sorts left with no keys or
// over at most one row: they order nothing. p is no longer ordered when
// no sort remains in that chain.
func dropVacuousSorts(p *plan.Plan) {
	sorted := false
	slot := &p.Root
	for {
		n := *slot
		switch n.Op {
		case plan.OpProject, plan.OpDistinct, plan.OpLimit:
			slot = &n.Inputs[0]
			continue
		case plan.OpSort:
			keys := n.Keys[:0:0]
			for _, k := range n.Keys {
				if k.Expr.Kind != plan.Const && k.Expr.Kind != plan.Param {
					keys = append(keys, k)
				}
			}
			if len(keys) == 0 || atMostOneRow(n.Inputs[0], p.Meta) {
				*slot = n.Inputs[0]
				continue
			}
			n.Keys = keys
			sorted = true
			slot = &n.Inputs[0]
			continue
		}
		break
	}
	if !sorted {
		p.Ordered = false
	}
}

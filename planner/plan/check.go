package plan

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCyclicDefinition marks a plan in which a computed column's
// definition refers back to the column itself, directly or through other
// computed columns. No query means that; only a faulty rewrite that keeps
// a column's ID while redefining it in terms of its old value makes it.
var ErrCyclicDefinition = errors.New("cyclic column definition")

// CheckDefinitions reports a cycle among the definitions of computed
// columns (projection and window items, aggregates), including those
// inside subqueries: the definitions the Formatter follows when it renders
// a column. The error wraps ErrCyclicDefinition and names the columns of
// the cycle, c -> ... -> c.
func CheckDefinitions(p *Plan) error {
	if p == nil || p.Root == nil {
		return nil
	}
	deps := map[ColumnID][]ColumnID{}
	var order []ColumnID // definition order, for a deterministic report
	define := func(id ColumnID, e *Expr) {
		if _, ok := deps[id]; !ok {
			order = append(order, id)
			deps[id] = []ColumnID{}
		}
		WalkDeep(e, func(x *Expr) {
			if x.Kind == ColRef {
				deps[id] = append(deps[id], x.Col)
			}
		})
	}
	seen := map[*Node]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
		n.WalkNodes(func(x *Node) {
			if seen[x] {
				return
			}
			seen[x] = true
			for _, it := range x.Proj {
				if isComputed(p.Meta, it.ID) && !(it.Expr.Kind == ColRef && it.Expr.Col == it.ID) {
					define(it.ID, it.Expr)
				}
			}
			for _, a := range x.Aggs {
				define(a.ID, a.Expr)
			}
			x.Exprs(func(s **Expr) {
				Walk(*s, func(e *Expr) {
					if e.Kind == Subquery && e.Sub != nil {
						walk(e.Sub)
					}
				})
			})
		})
	}
	walk(p.Root)

	// Iterative depth-first search: white (absent), grey (on the path),
	// black (done). A grey successor closes a cycle.
	const grey, black = 1, 2
	color := map[ColumnID]int{}
	type frame struct {
		id   ColumnID
		next int
	}
	for _, start := range order {
		if color[start] != 0 {
			continue
		}
		stack := []frame{{id: start}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ds := deps[top.id]
			if top.next == len(ds) {
				color[top.id] = black
				stack = stack[:len(stack)-1]
				continue
			}
			d := ds[top.next]
			top.next++
			if _, defined := deps[d]; !defined {
				continue
			}
			switch color[d] {
			case grey:
				path := make([]ColumnID, len(stack))
				for i, f := range stack {
					path[i] = f.id
				}
				return cycleError(path, d)
			case 0:
				color[d] = grey
				stack = append(stack, frame{id: d})
			}
		}
	}
	return nil
}

func isComputed(m *Metadata, id ColumnID) bool {
	return int(id) >= 0 && int(id) < len(m.Columns) && m.Columns[id].Instance < 0
}

// cycleError names the cycle: the path from back's place on the
// depth-first path to its end, then back again.
func cycleError(path []ColumnID, back ColumnID) error {
	var b strings.Builder
	on := false
	for _, id := range path {
		if id == back {
			on = true
		}
		if on {
			fmt.Fprintf(&b, "#%d -> ", id)
		}
	}
	fmt.Fprintf(&b, "#%d", back)
	return fmt.Errorf("%w: %s", ErrCyclicDefinition, b.String())
}

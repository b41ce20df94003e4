package build

import (
	"github.com/pgequiv/pgequiv/planner/plan"
)

// An enum's values order by their declaration (catalog.Column.Enum), not
// as the text the planner types them as, and neither the executor nor
// the prover models that order. A query that orders values derived from
// an enum column (<, <=, >, >=, BETWEEN, ORDER BY, min, max, greatest,
// least, a window's ORDER BY) is refused as unsupported rather than
// judged by text order. Equality, grouping and DISTINCT do not depend on
// the order and are judged.

// refuseEnumOrdering returns an unsupported error when p orders values
// that come from an enum column.
func (b *builder) refuseEnumOrdering(p *plan.Plan) error {
	enum := map[plan.ColumnID]string{}
	for _, in := range p.Meta.Instances {
		if in.Table == nil {
			continue
		}
		for i, c := range in.Table.Columns {
			if c.Enum != nil && i < len(in.Cols) {
				enum[in.Cols[i]] = in.Table.Name + "." + c.Name
			}
		}
	}
	if len(enum) == 0 {
		return nil
	}
	var nodes []*plan.Node
	var collect func(n *plan.Node)
	collect = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			nodes = append(nodes, x)
			x.Exprs(func(s **plan.Expr) {
				plan.Walk(*s, func(e *plan.Expr) {
					if e.Kind == plan.Subquery && e.Sub != nil {
						collect(e.Sub)
					}
				})
			})
		})
	}
	collect(p.Root)
	from := func(e *plan.Expr) string {
		if e == nil {
			return ""
		}
		for _, c := range e.Cols().Ordered() {
			if w, ok := enum[c]; ok {
				return w
			}
		}
		return ""
	}
	// args is from over e's arguments only: an aggregate's value comes
	// from them, not from its FILTER (max(total) FILTER (WHERE state =
	// 'paid') orders no enum value).
	args := func(e *plan.Expr) string {
		for _, a := range e.Args {
			if w := from(a); w != "" {
				return w
			}
		}
		return ""
	}
	// Columns computed from enum columns are enum-derived too.
	for changed := true; changed; {
		changed = false
		mark := func(id plan.ColumnID, w string) {
			if _, ok := enum[id]; !ok && w != "" {
				enum[id], changed = w, true
			}
		}
		for _, n := range nodes {
			for _, it := range n.Proj {
				mark(it.ID, from(it.Expr))
			}
			for _, it := range n.Aggs {
				mark(it.ID, args(it.Expr))
			}
			for _, in := range n.SetCols {
				for i, c := range in {
					if i < len(n.Cols) {
						mark(n.Cols[i], enum[c])
					}
				}
			}
		}
	}
	var found string
	check := func(e *plan.Expr) {
		plan.Walk(e, func(x *plan.Expr) {
			if found != "" {
				return
			}
			switch {
			case x.Kind == plan.Op && orderingOps[x.Name]:
				found = from(x)
			case (x.Kind == plan.Agg || x.Kind == plan.Func) && (x.Name == "min" || x.Name == "max" || x.Name == "greatest" || x.Name == "least"):
				found = args(x)
			case x.Kind == plan.Subquery && x.SubOp != "" && x.SubOp != plan.OpEq && x.SubOp != plan.OpNe:
				found = from(x)
				if x.Sub != nil {
					for _, c := range x.Sub.OutCols() {
						if found == "" {
							found = enum[c]
						}
					}
				}
			}
			for _, k := range x.Order {
				if found == "" {
					found = from(k.Expr)
				}
			}
		})
	}
	for _, n := range nodes {
		n.Exprs(func(s **plan.Expr) { check(*s) })
		for _, k := range n.Keys {
			if found == "" {
				found = from(k.Expr)
			}
		}
		if found != "" {
			return b.unsupported(-1, "ordering values of the enum column "+found+" (enums order by declaration)")
		}
	}
	return nil
}

var orderingOps = map[string]bool{plan.OpLt: true, plan.OpLe: true, plan.OpGt: true, plan.OpGe: true,
	"between": true, "not between": true, "between symmetric": true, "not between symmetric": true}

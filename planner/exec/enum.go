package exec

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Enum columns (catalog.Column.Enum) hold their labels as text, and the
// executor compares text by its bytes. That is right for what equality
// decides (= , IN, DISTINCT, GROUP BY, joins between columns of one enum
// type: labels are distinct) and wrong for everything that orders: an
// enum orders by its labels' declared order. PostgreSQL also rejects a
// literal that is not a label, and most functions and comparisons with
// plain text, where the executor would quietly compute something. So a
// plan that lets an enum value reach anything but equality, IS [NOT]
// NULL, COALESCE/NULLIF, CASE, a cast to text, count, a set operation
// with the same enum, or the output is refused (ErrCannotExecute): no
// counterexample rests on a guess about enum semantics.

// enumRefusal returns the reason p cannot be executed because of an enum
// value it orders or mixes with other types, or nil.
func enumRefusal(p *plan.Plan) error {
	if p == nil || p.Meta == nil || !readsEnum(p.Meta) {
		return nil
	}
	a := &enumAnalysis{labels: map[plan.ColumnID][]string{}}
	for _, inst := range p.Meta.Instances {
		if inst.Table == nil {
			continue
		}
		for ord, id := range inst.Cols {
			if ord < len(inst.Table.Columns) && inst.Table.Columns[ord].Enum != nil {
				a.labels[id] = inst.Table.Columns[ord].Enum
			}
		}
	}
	// Derived columns carry the enum of what defines them; a fixpoint,
	// since a subquery's outputs may be defined after their use is met.
	for changed := true; changed; {
		changed = false
		walkAllNodes(p.Root, func(n *plan.Node) {
			changed = a.propagate(n) || changed
		})
	}
	walkAllNodes(p.Root, func(n *plan.Node) {
		if a.err != nil {
			return
		}
		for _, k := range n.Keys {
			if a.enumOf(k.Expr) != nil {
				a.refuse("ORDER BY an enum value (enums order by their labels' declared order)")
			}
		}
		n.Exprs(func(slot **plan.Expr) { plan.Walk(*slot, a.check) })
	})
	return a.err
}

// readsEnum reports whether any table the plan reads has an enum column.
func readsEnum(m *plan.Metadata) bool {
	var last *catalog.Table // a plan of many instances repeats its tables
	for _, inst := range m.Instances {
		if inst.Table == nil || inst.Table == last {
			continue
		}
		last = inst.Table
		for i := range inst.Table.Columns {
			if inst.Table.Columns[i].Enum != nil {
				return true
			}
		}
	}
	return false
}

// walkAllNodes calls f on every node of the plan, subqueries included.
func walkAllNodes(n *plan.Node, f func(*plan.Node)) {
	n.WalkNodes(func(m *plan.Node) {
		f(m)
		m.Exprs(func(slot **plan.Expr) {
			plan.Walk(*slot, func(e *plan.Expr) {
				if e.Kind == plan.Subquery && e.Sub != nil {
					walkAllNodes(e.Sub, f)
				}
			})
		})
	})
}

type enumAnalysis struct {
	// labels maps each column that holds enum values to its type's
	// labels, which stand for the type.
	labels map[plan.ColumnID][]string
	err    error
}

func (a *enumAnalysis) refuse(what string) {
	if a.err == nil {
		a.err = cannot("%s", what)
	}
}

// propagate marks the columns n defines from enum values; it reports
// whether it marked any new one.
func (a *enumAnalysis) propagate(n *plan.Node) bool {
	changed := false
	mark := func(id plan.ColumnID, l []string) {
		if l != nil && a.labels[id] == nil {
			a.labels[id] = l
			changed = true
		}
	}
	for _, p := range n.Proj {
		mark(p.ID, a.enumOf(p.Expr))
	}
	for _, p := range n.Aggs {
		mark(p.ID, a.enumOf(p.Expr))
	}
	if n.Op == plan.OpSetOp {
		for i, id := range n.Cols {
			var l []string
			for _, in := range n.SetCols {
				if i < len(in) && a.labels[in[i]] != nil {
					l = a.labels[in[i]]
				}
			}
			if l != nil {
				for _, in := range n.SetCols {
					if i < len(in) && !slices.Equal(a.labels[in[i]], l) {
						a.refuse("a set operation mixing an enum column with another type")
					}
				}
			}
			mark(id, l)
		}
	}
	return changed
}

// enumOf returns the labels of the enum e evaluates to, or nil when its
// value is not an enum.
func (a *enumAnalysis) enumOf(e *plan.Expr) []string {
	if e == nil {
		return nil
	}
	switch e.Kind {
	case plan.ColRef:
		return a.labels[e.Col]
	case plan.Case:
		for i, arg := range e.Args {
			if e.CaseHasOperand && i == 0 {
				continue
			}
			// Results are the THENs and the ELSE: after the operand,
			// pairs of WHEN and THEN, then the ELSE.
			j := i
			if e.CaseHasOperand {
				j--
			}
			isResult := j%2 == 1 || (e.HasElse && i == len(e.Args)-1)
			if l := a.enumOf(arg); isResult && l != nil {
				return l
			}
		}
	case plan.Func:
		switch e.Name {
		case "coalesce", "nullif":
			for _, arg := range e.Args {
				if l := a.enumOf(arg); l != nil {
					return l
				}
			}
		}
	case plan.Agg, plan.WinFunc:
		switch e.Name {
		case "first_value", "last_value", "lag", "lead", "nth_value", "any_value":
			if len(e.Args) > 0 {
				return a.enumOf(e.Args[0])
			}
		}
	case plan.Subquery:
		if e.SubKind == plan.SubScalar && e.Sub != nil {
			if out := e.Sub.OutCols(); len(out) == 1 {
				return a.labels[out[0]]
			}
		}
	}
	return nil
}

// check refuses e when it uses an enum value other than by equality.
func (a *enumAnalysis) check(e *plan.Expr) {
	if a.err != nil {
		return
	}
	var enumArgs [][]string
	for _, arg := range e.Args {
		if l := a.enumOf(arg); l != nil {
			enumArgs = append(enumArgs, l)
		}
		if arg != nil && arg.Kind == plan.Tuple {
			for _, x := range arg.Args {
				if a.enumOf(x) != nil {
					a.refuse("a row comparison with an enum value")
					return
				}
			}
		}
	}
	switch e.Kind {
	case plan.Op:
		if len(enumArgs) == 0 {
			return
		}
		switch e.Name {
		case plan.OpEq, plan.OpNe, plan.OpIsDistinct, plan.OpNotDistinc, "in", "not in":
			a.sameEnum(e.Args, enumArgs[0])
		case plan.OpIsNull, plan.OpIsNotNull:
		default:
			a.refuse("operator " + e.Name + " on an enum value (enums order by their labels' declared order)")
		}
	case plan.Func:
		if len(enumArgs) == 0 {
			return
		}
		switch e.Name {
		case "coalesce", "nullif":
			a.sameEnum(e.Args, enumArgs[0])
		default:
			a.refuse("function " + e.Name + " of an enum value")
		}
	case plan.Cast:
		if len(enumArgs) > 0 && e.Typ.String() != "text" {
			a.refuse("a cast of an enum value to " + e.Typ.String())
		}
	case plan.Case:
		if e.CaseHasOperand && len(e.Args) > 0 {
			if l := a.enumOf(e.Args[0]); l != nil {
				whens := []*plan.Expr{e.Args[0]}
				for i := 1; i+1 < len(e.Args); i += 2 {
					whens = append(whens, e.Args[i])
				}
				a.sameEnum(whens, l)
			}
		}
		var results [][]string
		for i, arg := range e.Args {
			j := i
			if e.CaseHasOperand {
				j--
			}
			if (j >= 0 && j%2 == 1) || (e.HasElse && i == len(e.Args)-1) {
				results = append(results, a.enumOf(arg))
			}
		}
		for _, l := range results {
			if l != nil {
				for _, m := range results {
					if m != nil && !slices.Equal(l, m) {
						a.refuse("CASE mixing values of two enum types")
					}
				}
			}
		}
	case plan.Agg, plan.WinFunc:
		for _, k := range e.Order {
			if a.enumOf(k.Expr) != nil {
				a.refuse("an aggregate or window ordered by an enum value")
				return
			}
		}
		if len(enumArgs) == 0 {
			return
		}
		switch e.Name {
		case "count", "first_value", "last_value", "lag", "lead", "nth_value", "any_value":
		default:
			a.refuse("aggregate " + e.Name + " of an enum value")
		}
	case plan.Subquery:
		var sub []string
		if e.Sub != nil {
			if out := e.Sub.OutCols(); len(out) == 1 {
				sub = a.labels[out[0]]
			}
		}
		if (e.SubKind == plan.SubAny || e.SubKind == plan.SubAll) && (sub != nil || len(enumArgs) > 0) {
			if e.SubOp != plan.OpEq && e.SubOp != plan.OpNe {
				a.refuse("an ordering comparison of an enum value with a subquery")
				return
			}
			if len(e.Args) != 1 || !slices.Equal(a.enumOf(e.Args[0]), sub) {
				a.refuse("a comparison of an enum value with a subquery of another type")
			}
		}
	case plan.Tuple:
	default:
		if len(enumArgs) > 0 {
			a.refuse("an enum value in an expression the executor does not model for enums")
		}
	}
}

// sameEnum refuses unless every one of args is of the enum labels, a
// NULL, or a literal that is one of the labels (PostgreSQL reads the
// literal as the enum and rejects any other text).
func (a *enumAnalysis) sameEnum(args []*plan.Expr, labels []string) {
	for _, x := range args {
		if x == nil {
			continue
		}
		if l := a.enumOf(x); l != nil {
			if !slices.Equal(l, labels) {
				a.refuse("a comparison of two different enum types")
			}
			continue
		}
		if x.Kind == plan.Const {
			if x.Null || slices.Contains(labels, x.Value) {
				continue
			}
			a.refuse("the literal '" + x.Value + "' compared with an enum is not one of its labels (PostgreSQL rejects it)")
			continue
		}
		a.refuse("a comparison of an enum value with a value of another type")
	}
}

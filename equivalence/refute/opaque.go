package refute

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Columns of a type the executor does not model (json, jsonb, uuid,
// bytea, inet, time, arrays) used to stay NULL, so a table with such a
// NOT NULL column (an application's created_at, metadata or id) never
// got a row, nor did any table referencing it. Such a column can still
// hold a value when no plan evaluates it: the plans either never read it
// or only carry it unchanged to their output (a Django query lists every
// column of its model). A carried value is compared only with the other
// side's copy of the same stored value, so the executor holds it as the
// text PostgreSQL prints for it (fillers below are written in that
// canonical output form, so equal texts are equal values and the
// INSERT's literal reads back as written). Any other use (a filter, a
// join, a sort, a group, DISTINCT, a set operation, an aggregate, a
// CHECK or generated column of the table's rules) keeps the column NULL
// only, as before.

// fillerValues are the values a column of an unmodelled type may hold
// when it is opaque, in PostgreSQL's output form; nil when the type has
// none (the column stays NULL).
func fillerValues(c *catalog.Column) []exec.Value {
	t := strings.ToLower(strings.TrimSpace(c.TypeSQL))
	if c.Enum != nil || c.Generated != "" {
		return nil
	}
	texts := func(ss ...string) []exec.Value {
		out := make([]exec.Value, len(ss))
		for i, s := range ss {
			out[i] = exec.Text(s)
		}
		return out
	}
	switch {
	case strings.HasSuffix(t, "[]"):
		return texts("{}")
	case t == "json" || t == "jsonb":
		// jsonb prints `{"a": 1}` with a blank after the colon; json
		// prints its input as given, which these are.
		return texts("{}", `{"a": 1}`, `{"b": "x"}`)
	case t == "uuid":
		return texts("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002",
			"00000000-0000-0000-0000-000000000003", "00000000-0000-0000-0000-000000000004")
	case t == "bytea":
		return texts(`\x`, `\x01`, `\x0203`)
	case t == "inet":
		return texts("10.0.0.1", "10.0.0.2", "127.0.0.1")
	case t == "time" || t == "time without time zone":
		return texts("00:00:00", "12:30:00", "23:59:59")
	}
	return nil
}

// isFiller reports whether v is one of c's filler values.
func isFiller(c *catalog.Column, v exec.Value) bool {
	if v.K != exec.KText || v.B {
		return false
	}
	for _, f := range fillerValues(c) {
		if f.S == v.S {
			return true
		}
	}
	return false
}

// opaqueColumns returns, per table, the columns of unmodelled types that
// may hold fillers in a search of plans (the queries and the rules of
// the tables they fill): no plan evaluates them. Only the postgres
// dialect; nil when there is none, or a plan has a node the analysis
// does not know.
func opaqueColumns(s *catalog.Schema, tables []*catalog.Table, plans ...*plan.Plan) map[string][]bool {
	if s.Dialect != catalog.Postgres {
		return nil
	}
	var cands []*catalog.Table
	for _, t := range tables {
		for i := range t.Columns {
			if c := &t.Columns[i]; !executable(s.Dialect, c) && fillerValues(c) != nil {
				cands = append(cands, t)
				break
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	all := append([]*plan.Plan(nil), plans...)
	for _, t := range cands {
		if r := rulesFor(s, t); r != nil {
			if r.err != nil {
				return nil
			}
			all = append(all, r.rowPlan, r.genPlan)
		}
	}
	// Column IDs are a plan's own: each plan is read apart, and a scan
	// column is used when any plan uses it.
	used := map[scanCol]bool{}
	for _, p := range all {
		if p == nil || p.Root == nil {
			continue
		}
		u := &usage{used: map[plan.ColumnID]bool{}, from: map[plan.ColumnID][]plan.ColumnID{}, ok: true}
		u.node(p.Root, false)
		if !u.ok {
			return nil
		}
		u.propagate()
		for _, n := range u.scans {
			for i, id := range n.Cols {
				if u.used[id] {
					used[scanCol{n.Table.Name, i}] = true
				}
			}
		}
	}
	out := map[string][]bool{}
	for _, t := range cands {
		cols := make([]bool, len(t.Columns))
		any := false
		for i := range t.Columns {
			c := &t.Columns[i]
			if executable(s.Dialect, c) || fillerValues(c) == nil {
				continue
			}
			cols[i] = !used[scanCol{t.Name, i}]
			any = any || cols[i]
		}
		if any {
			out[t.Name] = cols
		}
	}
	return out
}

// usage collects which columns the plans evaluate (used) and which
// columns are bare copies of others (from: a Project item or a set
// operation's input carrying a column under a new ID).
type usage struct {
	used  map[plan.ColumnID]bool
	from  map[plan.ColumnID][]plan.ColumnID
	scans []*plan.Node
	ok    bool
}

type scanCol struct {
	table string
	ord   int
}

// propagate marks used every column a used column carries.
func (u *usage) propagate() {
	for changed := true; changed; {
		changed = false
		for id, srcs := range u.from {
			if !u.used[id] {
				continue
			}
			for _, src := range srcs {
				if !u.used[src] {
					u.used[src], changed = true, true
				}
			}
		}
	}
}

// node records n and its inputs; sub is set inside a subquery, whose
// output columns the enclosing expression compares or returns without a
// column reference (IN, a scalar subquery), so they count as used.
func (u *usage) node(n *plan.Node, sub bool) {
	if n == nil || !u.ok {
		return
	}
	if sub {
		for _, id := range n.OutCols() {
			u.used[id] = true
		}
	}
	for _, p := range n.Proj {
		if p.Expr != nil && p.Expr.Kind == plan.ColRef {
			u.from[p.ID] = append(u.from[p.ID], p.Expr.Col)
			continue
		}
		u.expr(p.Expr)
	}
	for _, e := range n.Preds {
		u.expr(e)
	}
	for _, a := range n.Aggs {
		u.expr(a.Expr)
	}
	for _, k := range n.Keys {
		u.expr(k.Expr)
	}
	u.expr(n.Limit)
	u.expr(n.Offset)
	for _, r := range n.Rows {
		for _, e := range r {
			u.expr(e)
		}
	}
	for _, id := range n.GroupBy {
		u.used[id] = true
	}
	switch n.Op {
	case plan.OpScan:
		if n.Table == nil {
			u.ok = false
			return
		}
		u.scans = append(u.scans, n)
	case plan.OpSetOp:
		// Even UNION ALL: json has no equality, and a UNION's
		// duplicates compare whole rows.
		for _, cs := range n.SetCols {
			for _, id := range cs {
				u.used[id] = true
			}
		}
	case plan.OpDistinct:
		for _, id := range n.Inputs[0].OutCols() {
			u.used[id] = true
		}
	case plan.OpFilter, plan.OpSort, plan.OpLimit, plan.OpWindow, plan.OpProject, plan.OpAggregate, plan.OpJoin, plan.OpValues:
	default:
		u.ok = false
		return
	}
	for _, in := range n.Inputs {
		u.node(in, false)
	}
}

// expr records the columns e evaluates, entering its subqueries.
func (u *usage) expr(e *plan.Expr) {
	if e == nil {
		return
	}
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.ColRef:
			u.used[x.Col] = true
		case plan.Subquery:
			u.node(x.Sub, true)
		}
	})
}

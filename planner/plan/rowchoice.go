package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// RowChoice is a SQLite aggregate whose bare columns (a column neither
// grouped nor aggregated, planned as any_value) take their value from a
// row the engine picks: the row that gave the last min() or max() it
// updated, of whichever such call it evaluates last (select list,
// HAVING, ORDER BY, and calls nobody reads alike), or, with no min() or
// max(), the last row of the group in the engine's scan order. Two
// queries that aggregate differently, or over inputs read differently,
// can pick different rows of one group: SELECT name, max(age) … against
// the same with ORDER BY min(age) added, or with max(a), min(a) swapped.
type RowChoice struct {
	// Key renders the aggregate and everything below it: two choices
	// with one key are the same aggregation, which the engine runs alike.
	Key string
	// Subject names the bare columns ("dogs.name").
	Subject string
}

// RowChoices lists the aggregates of a SQLite plan, in subqueries too,
// whose bare columns the group does not determine: the input may hold
// two rows of one group (no key within the grouped columns), and the
// column's table has no primary key among them, nor is the column equal
// to a grouped one. Read it on the plan as built: normalization prunes
// the unread calls that still decide the row.
func RowChoices(m *Metadata, root *Node) []RowChoice {
	if m == nil || m.Dialect != catalog.SQLite || root == nil {
		return nil
	}
	rc := rowChoices{m: m}
	rc.visit(root)
	return rc.out
}

type rowChoices struct {
	m        *Metadata
	d        *Deriver
	out      []RowChoice
	rendered int
}

func (rc *rowChoices) visit(n *Node) {
	for _, in := range n.Inputs {
		rc.visit(in)
	}
	n.Exprs(func(e **Expr) {
		Walk(*e, func(x *Expr) {
			if x.Kind == Subquery && x.Sub != nil {
				rc.visit(x.Sub)
			}
		})
	})
	if n.Op != OpAggregate {
		return
	}
	bare := rc.undetermined(n)
	if len(bare) == 0 {
		return
	}
	key := fmt.Sprintf("unrendered %p", n) // equal to no other plan's key
	if rc.rendered < maxSpellingKeyBytes {
		key = NewFormatter(rc.m, n, false).Node(n)
		rc.rendered += len(key)
	}
	rc.out = append(rc.out, RowChoice{Key: key, Subject: rc.subject(bare)})
}

// undetermined returns the columns n's any_value calls read that one
// group may hold different values of.
func (rc *rowChoices) undetermined(n *Node) []ColumnID {
	var cols []ColumnID
	for _, a := range n.Aggs {
		if a.Expr.Kind == Agg && a.Expr.Name == "any_value" && len(a.Expr.Args) == 1 && a.Expr.Args[0].Kind == ColRef {
			cols = append(cols, a.Expr.Args[0].Col)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	if rc.d == nil {
		rc.d = NewDeriver(rc.m)
	}
	props := rc.d.Derive(n.Inputs[0])
	group := MakeColSet(n.GroupBy...)
	if props.HasKeyWithin(group) {
		return nil // one row a group
	}
	var out []ColumnID
	for _, c := range cols {
		if props.EquivOf(c).Intersects(group) || rc.keyGrouped(c, group, props) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// keyGrouped reports whether the primary key of c's table occurrence is
// among the grouped columns (or equal to them): then c has one value in
// each group.
func (rc *rowChoices) keyGrouped(c ColumnID, group ColSet, props *Props) bool {
	meta := rc.m.Col(c)
	if meta.Instance < 0 || meta.Instance >= len(rc.m.Instances) {
		return false
	}
	inst := rc.m.Instances[meta.Instance]
	if inst.Table == nil || len(inst.Table.PrimaryKey) == 0 {
		return false
	}
	for _, o := range inst.Table.PrimaryKey {
		if o >= len(inst.Cols) {
			return false
		}
		k := inst.Cols[o]
		// SQLite lets a key other than the rowid hold NULLs, and rows
		// with NULL keys fall in one group.
		if !props.NotNull.Has(k) || !group.Has(k) && !props.EquivOf(k).Intersects(group) {
			return false
		}
	}
	return true
}

func (rc *rowChoices) subject(cols []ColumnID) string {
	parts := make([]string, 0, len(cols))
	for _, c := range cols {
		meta := rc.m.Col(c)
		name := meta.Name
		if meta.Instance >= 0 && meta.Instance < len(rc.m.Instances) {
			if t := rc.m.Instances[meta.Instance].Table; t != nil {
				name = t.Name + "." + name
			}
		}
		if !slices.Contains(parts, name) {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ", ")
}

// SameRowChoices reports whether a and b pick rows alike: the same
// aggregations over the same inputs, as many times each.
func SameRowChoices(a, b []RowChoice) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, c := range a {
		count[c.Key]++
	}
	for _, c := range b {
		if count[c.Key] == 0 {
			return false
		}
		count[c.Key]--
	}
	return true
}

package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// RowChoice is an operator of a SQLite plan that returns a row the
// engine picks, by its scan and join order, among rows the query does
// not tell apart:
//   - an aggregate's bare columns (a column neither grouped nor
//     aggregated, planned as any_value) take the row that gave the last
//     min() or max() it updated, of whichever such call it evaluates
//     last (select list, HAVING, ORDER BY, and calls nobody reads
//     alike), or, with no min() or max(), a row of the group in scan
//     order: SELECT name, max(age) … against the same with ORDER BY
//     min(age) added, or with max(a), min(a) swapped;
//   - a LIMIT over an order that ties rows (ORDER BY a column that is
//     no key, or no ORDER BY) keeps the tied rows met first: a join
//     read the other way round meets others;
//   - a scalar subquery that can return several rows returns the first.
//
// Two queries that make such choices with different operators, or over
// inputs read differently, can return different rows of one database.
type RowChoice struct {
	// Key renders the aggregate and everything below it: two choices
	// with one key are the same aggregation, which the engine runs alike.
	Key string
	// Subject says what is chosen ("bare column dogs.name").
	Subject string
	// FollowsScans is set on a LIMIT's choice whose tied rows come
	// straight from scans and joins, in the order the engine's loops meet
	// them; not where a GROUP BY below orders its groups by their key.
	FollowsScans bool
}

// RowChoices lists the aggregates of a SQLite plan, in subqueries too,
// whose bare columns the group does not determine: the input may hold
// two rows of one group (no key within the grouped columns), and the
// column's table has no primary key among them, nor is the column equal
// to a grouped one. Read it on the plan as built: normalization prunes
// the unread calls that still decide the row.
//
// LIMITs are not read here but by LimitChoices on the normalized plan.
func RowChoices(m *Metadata, root *Node) []RowChoice {
	if m == nil || m.Dialect != catalog.SQLite || root == nil {
		return nil
	}
	rc := rowChoices{m: m}
	rc.visit(root)
	return rc.out
}

// LimitChoices lists the LIMITs of a rewritten SQLite plan (normalized,
// and through the judge's canonical rewrites), in subqueries too, whose
// order ties rows. Unlike RowChoices it reads the final plan: what
// decides which tied rows come first is the plan the engine runs, and
// spellings the rewrites make one (count(1) and count(*), aliases, a
// column list reordered) run alike.
func LimitChoices(m *Metadata, root *Node) []RowChoice {
	if m == nil || m.Dialect != catalog.SQLite || root == nil {
		return nil
	}
	rc := rowChoices{m: m, limits: true}
	rc.visit(root)
	return rc.out
}

type rowChoices struct {
	m        *Metadata
	d        *Deriver
	out      []RowChoice
	rendered int
	// limits: read LIMITs only (LimitChoices), not aggregates and
	// scalar subqueries.
	limits bool
}

func (rc *rowChoices) visit(n *Node) {
	for _, in := range n.Inputs {
		rc.visit(in)
	}
	n.Exprs(func(e **Expr) {
		Walk(*e, func(x *Expr) {
			if x.Kind != Subquery || x.Sub == nil {
				return
			}
			rc.visit(x.Sub)
			if !rc.limits && x.SubKind == SubScalar && !rc.derive(x.Sub).AtMostOneRow() {
				// SQLite returns the first row of a scalar subquery's
				// several, in the order its plan meets them.
				rc.add(x.Sub, "the row a scalar subquery of several returns")
			}
		})
	})
	switch {
	case n.Op == OpAggregate && !rc.limits:
		if bare := rc.undetermined(n); len(bare) > 0 {
			rc.add(n, "bare column "+rc.subject(bare))
		}
	case n.Op == OpLimit && rc.limits:
		if !rc.totalOrder(n.Inputs[0]) {
			rc.add(n, "the rows a LIMIT keeps among rows its order ties")
			rc.out[len(rc.out)-1].FollowsScans = followsScans(n.Inputs[0])
		}
	}
}

// add records a choice made at n.
func (rc *rowChoices) add(n *Node, subject string) {
	key := fmt.Sprintf("unrendered %p", n) // equal to no other plan's key
	if rc.rendered < maxSpellingKeyBytes {
		key = NewFormatter(rc.m, n, false).Node(n)
		rc.rendered += len(key)
	}
	rc.out = append(rc.out, RowChoice{Key: key, Subject: subject})
}

func (rc *rowChoices) derive(n *Node) *Props {
	if rc.d == nil {
		rc.d = NewDeriver(rc.m)
	}
	return rc.d.Derive(n)
}

// totalOrder reports whether in reaches a LIMIT in an order that ties no
// two rows: at most one row, or sorted on columns that hold a key of
// the sorted rows (NULLs tie, and keys count them alike).
func (rc *rowChoices) totalOrder(in *Node) bool {
	if rc.derive(in).AtMostOneRow() {
		return true
	}
	for in.Op == OpProject {
		in = in.Inputs[0]
	}
	if in.Op != OpSort {
		return false
	}
	var cols ColSet
	for _, k := range in.Keys {
		if k.Expr.Kind == ColRef {
			cols.Add(k.Expr.Col)
		}
	}
	return rc.derive(in.Inputs[0]).HasKeyWithin(cols)
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
	props := rc.derive(n.Inputs[0])
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
		if name := qualifiedName(rc.m, c); !slices.Contains(parts, name) {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, ", ")
}

// qualifiedName is c's name, after its table's where it is a table's
// column ("dogs.name").
func qualifiedName(m *Metadata, c ColumnID) string {
	meta := m.Col(c)
	if meta.Instance >= 0 && meta.Instance < len(m.Instances) {
		if t := m.Instances[meta.Instance].Table; t != nil {
			return t.Name + "." + meta.Name
		}
	}
	return meta.Name
}

// SameRowChoices reports whether a and b pick rows alike: the same
// aggregations over the same inputs, as many times each.
func SameRowChoices(a, b []RowChoice) bool {
	return sameKeyBags(a, b, func(c RowChoice) string { return c.Key })
}

// sameKeyBags reports whether a and b hold the same keys, as many times
// each.
func sameKeyBags[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, x := range a {
		count[key(x)]++
	}
	for _, x := range b {
		k := key(x)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// ScanOrder lists, as one text, the tables a plan scans in the order its
// tree meets them (subqueries where their expressions stand). Read on a
// plan as built it is the order the query writes its FROM items, which
// SQLite's join loops follow where costs tie: two queries whose LIMIT
// keeps tied rows (LimitChoices) choose alike only if they also read
// their tables in one order.
func ScanOrder(m *Metadata, root *Node) string {
	var b strings.Builder
	var walk func(n *Node)
	walk = func(n *Node) {
		if n.Op == OpScan && n.Instance >= 0 && n.Instance < len(m.Instances) && m.Instances[n.Instance].Table != nil {
			b.WriteString(m.Instances[n.Instance].Table.Name)
			b.WriteByte(' ')
		}
		n.Exprs(func(e **Expr) {
			Walk(*e, func(x *Expr) {
				if x.Kind == Subquery && x.Sub != nil {
					walk(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	if m != nil && root != nil {
		walk(root)
	}
	return b.String()
}

// followsScans reports whether the rows of n reach a LIMIT in the order
// scans and joins produce them: not through a GROUP BY, whose groups
// SQLite returns in the order of their key whatever order its loops
// read the rows in.
func followsScans(n *Node) bool {
	for {
		switch n.Op {
		case OpProject, OpSort, OpFilter, OpLimit:
			n = n.Inputs[0]
		case OpAggregate:
			return len(n.GroupBy) == 0
		default:
			return true
		}
	}
}

package plan

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// NodeOp is a relational operator.
type NodeOp uint8

// Operators.
const (
	OpScan NodeOp = iota
	OpFilter
	OpProject
	OpJoin
	OpAggregate
	OpDistinct
	OpSort
	OpLimit
	OpSetOp
	OpValues
	OpWindow
)

var nodeOpNames = [...]string{"scan", "filter", "project", "join", "aggregate", "distinct", "sort", "limit", "setop", "values", "window"}

func (o NodeOp) String() string { return nodeOpNames[o] }

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds. An inner join with no conditions is a cross join; after
// normalization inner joins are n-ary.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
)

var joinKindNames = [...]string{"inner", "left", "right", "full", "semi", "anti"}

func (k JoinKind) String() string { return joinKindNames[k] }

// SetKind is a set operation.
type SetKind uint8

// Set operations.
const (
	Union SetKind = iota
	Intersect
	Except
)

var setKindNames = [...]string{"union", "intersect", "except"}

func (k SetKind) String() string { return setKindNames[k] }

// SortKey is one ORDER BY key.
type SortKey struct {
	Expr       *Expr
	Desc       bool
	NullsFirst bool // PostgreSQL default: NULLS FIRST iff DESC
}

// ProjItem defines an output column by an expression over the input.
type ProjItem struct {
	ID   ColumnID
	Expr *Expr
}

// Node is one operator of a logical plan. A single struct serves every
// operator; the comment on each field says which operators use it.
type Node struct {
	Op     NodeOp
	Inputs []*Node

	// Scan: the table, its instance number in Metadata, and one output
	// column per table column in table order.
	Table    *catalog.Table
	Instance int
	// Cols are the output columns of Scan, SetOp and Values.
	Cols []ColumnID

	// Preds are the conjuncts of a Filter or of a Join's condition.
	Preds []*Expr
	Join  JoinKind

	// Proj lists Project outputs in order, and Window's added columns.
	Proj []ProjItem

	// GroupBy and Aggs define an Aggregate: grouping columns from the input
	// (output as themselves) followed by aggregate outputs.
	GroupBy []ColumnID
	Aggs    []ProjItem

	// Keys are the Sort keys.
	Keys []SortKey

	// Limit and Offset bound a Limit node; either may be nil.
	Limit, Offset *Expr

	// SetOp: kind, ALL, and per input the columns that feed Cols.
	Set     SetKind
	All     bool
	SetCols [][]ColumnID

	// Rows of a Values node.
	Rows [][]*Expr
}

// OutCols returns the node's output columns in order.
func (n *Node) OutCols() []ColumnID {
	switch n.Op {
	case OpScan, OpSetOp, OpValues:
		return n.Cols
	case OpProject:
		out := make([]ColumnID, len(n.Proj))
		for i, p := range n.Proj {
			out[i] = p.ID
		}
		return out
	case OpJoin:
		if n.Join == SemiJoin || n.Join == AntiJoin {
			return n.Inputs[0].OutCols()
		}
		var out []ColumnID
		for _, in := range n.Inputs {
			out = append(out, in.OutCols()...)
		}
		return out
	case OpAggregate:
		out := append([]ColumnID(nil), n.GroupBy...)
		for _, a := range n.Aggs {
			out = append(out, a.ID)
		}
		return out
	case OpWindow:
		out := append([]ColumnID(nil), n.Inputs[0].OutCols()...)
		for _, p := range n.Proj {
			out = append(out, p.ID)
		}
		return out
	}
	return n.Inputs[0].OutCols()
}

// OutColSet is OutCols as a set.
func (n *Node) OutColSet() ColSet { return MakeColSet(n.OutCols()...) }

// Exprs visits every expression slot the node owns (not those of its
// inputs), so rewrites can replace them in place.
func (n *Node) Exprs(f func(slot **Expr)) {
	n.ExprsByRole(func(slot **Expr, _ bool) { f(slot) })
}

// ExprsByRole is Exprs telling f whether a slot defines a column (a
// projection item or an aggregate call), whose rewrite can change how
// other nodes' references to that column read.
func (n *Node) ExprsByRole(f func(slot **Expr, definition bool)) {
	for i := range n.Preds {
		f(&n.Preds[i], false)
	}
	for i := range n.Proj {
		f(&n.Proj[i].Expr, true)
	}
	for i := range n.Aggs {
		f(&n.Aggs[i].Expr, true)
	}
	for i := range n.Keys {
		f(&n.Keys[i].Expr, false)
	}
	if n.Limit != nil {
		f(&n.Limit, false)
	}
	if n.Offset != nil {
		f(&n.Offset, false)
	}
	for _, r := range n.Rows {
		for i := range r {
			f(&r[i], false)
		}
	}
}

// WalkExprs calls f on every expression of the node and of its inputs
// (not entering subqueries; combine with WalkDeep for that).
func (n *Node) WalkExprs(f func(*Expr)) {
	if n == nil {
		return
	}
	n.Exprs(func(s **Expr) { Walk(*s, f) })
	for _, in := range n.Inputs {
		in.WalkExprs(f)
	}
}

// WalkNodes calls f on n and every descendant node, parents first, without
// entering subqueries.
func (n *Node) WalkNodes(f func(*Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, in := range n.Inputs {
		in.WalkNodes(f)
	}
}

// Copy returns a deep copy of the plan below n.
func (n *Node) Copy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Inputs = make([]*Node, len(n.Inputs))
	for i, in := range n.Inputs {
		c.Inputs[i] = in.Copy()
	}
	c.Cols = append([]ColumnID(nil), n.Cols...)
	c.GroupBy = append([]ColumnID(nil), n.GroupBy...)
	c.Preds = copyExprs(n.Preds)
	c.Proj = copyItems(n.Proj)
	c.Aggs = copyItems(n.Aggs)
	if n.Keys != nil {
		c.Keys = make([]SortKey, len(n.Keys))
		for i, k := range n.Keys {
			c.Keys[i] = SortKey{Expr: k.Expr.Copy(), Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
	}
	c.Limit, c.Offset = n.Limit.Copy(), n.Offset.Copy()
	if n.SetCols != nil {
		c.SetCols = make([][]ColumnID, len(n.SetCols))
		for i, s := range n.SetCols {
			c.SetCols[i] = append([]ColumnID(nil), s...)
		}
	}
	if n.Rows != nil {
		c.Rows = make([][]*Expr, len(n.Rows))
		for i, r := range n.Rows {
			c.Rows[i] = copyExprs(r)
		}
	}
	return &c
}

func copyExprs(es []*Expr) []*Expr {
	if es == nil {
		return nil
	}
	out := make([]*Expr, len(es))
	for i, e := range es {
		out[i] = e.Copy()
	}
	return out
}

func copyItems(ps []ProjItem) []ProjItem {
	if ps == nil {
		return nil
	}
	out := make([]ProjItem, len(ps))
	for i, p := range ps {
		out[i] = ProjItem{ID: p.ID, Expr: p.Expr.Copy()}
	}
	return out
}

// ColumnMeta describes a column instance.
type ColumnMeta struct {
	Name string
	Type catalog.Type
	// Instance is the table instance a scan column comes from, or -1 for
	// computed columns. Ordinal is its position in that table.
	Instance int
	Ordinal  int
	// NotNull is the declared constraint of a base column.
	NotNull bool
	// Dom is what = compares on a computed column's values (the domain
	// of the column it carries, or of the expression it is computed
	// from; see AnnotateDomains); nil: the family Type alone. A table
	// column's domain is its declaration's.
	Dom *catalog.EqDomain
}

// TableInstance is one occurrence of a table in a query.
type TableInstance struct {
	Table *catalog.Table
	Alias string
	Cols  []ColumnID
}

// Metadata records every column and table instance a plan mentions.
type Metadata struct {
	Columns   []ColumnMeta // indexed by ColumnID
	Instances []TableInstance
	// StringCast is true when the builder folded a cast between string
	// types (c::text, 'x'::varchar) into its argument: all string types
	// plan as text, but PostgreSQL's char(n) is not text, so an executor
	// cannot tell c from c::text in such a plan.
	StringCast bool
	// Dialect is the dialect the plan was built in: what = compares on a
	// column depends on it (see Domain), and in SQLite a column's type is
	// an affinity, not a guarantee (IntegerChecker).
	Dialect catalog.Dialect
}

// AddColumn registers a new column and returns its ID.
func (m *Metadata) AddColumn(c ColumnMeta) ColumnID {
	m.Columns = append(m.Columns, c)
	return ColumnID(len(m.Columns) - 1)
}

// Col returns the metadata of id.
func (m *Metadata) Col(id ColumnID) *ColumnMeta { return &m.Columns[id] }

// Plan is a logical plan for one query.
type Plan struct {
	Root *Node
	Meta *Metadata
	// Names are the output column names, parallel to Root.OutCols().
	Names []string
	// Ordered is true when the query's result order is defined (a
	// top-level ORDER BY).
	Ordered bool
	// Rules lists the normalization rules that fired, in order, once each.
	Rules []string
	// Raises, when set, says why PostgreSQL may raise an error for the
	// query whatever the data (a constant 1/0 it folds while planning, a
	// literal its type rejects, a negative constant LIMIT): the result is
	// an error, not rows, so no proof may read the plan as returning rows
	// (issue 33, item 5; set by norm on the plan as built).
	// RaisesAlways says PostgreSQL raises it on every database.
	Raises       string
	RaisesAlways bool
}

// Clone returns a deep copy of p: its nodes, expressions, subquery plans
// and metadata, so rewriting either leaves the other as it was. The
// catalog tables the plan points to are shared; nothing rewrites them.
func (p *Plan) Clone() *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Root = p.Root.Copy()
	if p.Meta != nil {
		m := &Metadata{Columns: append([]ColumnMeta(nil), p.Meta.Columns...), StringCast: p.Meta.StringCast, Dialect: p.Meta.Dialect}
		if p.Meta.Instances != nil {
			m.Instances = make([]TableInstance, len(p.Meta.Instances))
			for i, in := range p.Meta.Instances {
				m.Instances[i] = TableInstance{Table: in.Table, Alias: in.Alias, Cols: append([]ColumnID(nil), in.Cols...)}
			}
		}
		c.Meta = m
	}
	c.Names = append([]string(nil), p.Names...)
	c.Rules = append([]string(nil), p.Rules...)
	return &c
}

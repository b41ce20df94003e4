// Package plangraph turns a normalized logical plan into the heterogeneous
// program graph the graph matching network reads.
//
// Nodes:
//
//   - a computing node per relational operator (op.scan, op.join.left, …),
//     per scalar operator, function, aggregate, window function, CASE, CAST,
//     tuple and subquery use, and per marker that qualifies them (sort
//     direction, LIMIT/OFFSET slot, DISTINCT aggregate, …);
//   - a content node per scanned table (its name), per referenced base
//     column ("table.column", one per column instance, shared by all its
//     references) and per literal (its canonical text).
//
// Edges:
//
//   - PlanTree: operator → input operator, operator → its expressions,
//     expression → argument, subquery expression → subquery plan root;
//   - DataFlow: scan → each base column node it produces; producing operator
//     → each operator that reads one of its columns; defining expression of
//     a computed column (projection, aggregate, window item) → each
//     expression that reads it;
//   - LogicFlow: input operator → consuming operator (execution order: scan
//     → filter → join → aggregate → project → sort → limit), first argument
//     → second of non-commutative binary operators, and consecutive items
//     where order matters (projection list, sort keys, function arguments,
//     CASE arms).
//
// References to computed columns link to their defining expression, so the
// graph does not depend on aliases or column IDs: two plans with the same
// canonical text give identical graphs.
package plangraph

import (
	"errors"
	"fmt"

	"github.com/pgequiv/pgequiv/gmn/graph"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ErrPlan is returned for nil or malformed plans.
var ErrPlan = errors.New("plangraph: invalid plan")

// Program is a plan's graph plus, per node, a canonical key of the subtree
// it stands for ("" for nodes without one: content and marker nodes).
// Nodes of two programs with equal keys compute the same thing and are
// identified by Seeds.
type Program struct {
	G    *graph.Graph
	Keys []string
}

// Build returns the program graph of p.
func Build(p *plan.Plan) (*graph.Graph, error) {
	pr, err := BuildProgram(p)
	if err != nil {
		return nil, err
	}
	return pr.G, nil
}

// BuildProgram returns the program graph of p with its subtree keys.
func BuildProgram(p *plan.Plan) (*Program, error) {
	if p == nil || p.Root == nil || p.Meta == nil {
		return nil, ErrPlan
	}
	b := &builder{
		g:       &graph.Graph{},
		meta:    p.Meta,
		f:       plan.NewFormatter(p.Meta, p.Root, true),
		baseCol: map[plan.ColumnID]int{},
		def:     map[plan.ColumnID]int{},
		prodOp:  map[plan.ColumnID]int{},
		flow:    map[[2]int]bool{},
	}
	root := b.node(p.Root)
	if b.err != nil {
		return nil, b.err
	}
	if p.Ordered {
		// An ordered result is a property of the whole query: mark the root.
		b.edge(root, b.add(graph.Computing, "key.order", ""), graph.PlanTree)
	}
	b.g.Root = root
	if err := b.g.Validate(NumTypes); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	return &Program{G: b.g, Keys: b.keys}, nil
}

type builder struct {
	g    *graph.Graph
	keys []string
	meta *plan.Metadata
	f    *plan.Formatter

	baseCol map[plan.ColumnID]int // base column → its content node
	def     map[plan.ColumnID]int // computed column → its defining node
	prodOp  map[plan.ColumnID]int // column → operator node producing it
	flow    map[[2]int]bool       // operator-level data-flow edges added
	owner   int                   // operator whose expressions are being built
	err     error
}

func (b *builder) add(kind graph.Kind, typ, text string) int {
	b.keys = append(b.keys, "")
	return b.g.AddNode(graph.Node{Kind: kind, Type: TypeID(typ), Text: text})
}

func (b *builder) edge(from, to int, t graph.EdgeType) {
	if err := b.g.AddEdge(from, to, t); err != nil && b.err == nil {
		b.err = err
	}
}

func opType(n *plan.Node) string {
	switch n.Op {
	case plan.OpJoin:
		if n.Join == plan.InnerJoin && len(n.Preds) == 0 {
			return "op.join.cross"
		}
		return "op.join." + n.Join.String()
	case plan.OpSetOp:
		s := "op.setop." + n.Set.String()
		if n.All {
			s += "_all"
		}
		return s
	}
	return "op." + n.Op.String()
}

// node adds operator n and everything below it and returns n's index.
func (b *builder) node(n *plan.Node) int {
	if n == nil {
		if b.err == nil {
			b.err = fmt.Errorf("%w: nil operator", ErrPlan)
		}
		return b.add(graph.Computing, "expr.other", "")
	}
	id := b.add(graph.Computing, opType(n), "")
	b.keys[id] = "N:" + b.f.Node(n)
	for _, in := range n.Inputs {
		c := b.node(in)
		b.edge(id, c, graph.PlanTree)
		b.edge(c, id, graph.LogicFlow)
	}
	saved := b.owner
	b.owner = id
	defer func() { b.owner = saved }()
	switch n.Op {
	case plan.OpScan:
		if n.Table != nil {
			b.edge(id, b.add(graph.Content, "c.table", n.Table.Name), graph.PlanTree)
		}
		for _, c := range n.Cols {
			b.prodOp[c] = id
		}
	case plan.OpFilter, plan.OpJoin:
		for _, p := range n.Preds {
			b.expr(p, id)
		}
	case plan.OpProject, plan.OpWindow:
		prev := -1
		for _, it := range n.Proj {
			e := b.expr(it.Expr, id)
			if n.Op == plan.OpProject && prev >= 0 {
				b.edge(prev, e, graph.LogicFlow)
			}
			prev = e
			if !(it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID) {
				b.def[it.ID] = e
				b.prodOp[it.ID] = id
			}
		}
	case plan.OpAggregate:
		for _, c := range n.GroupBy {
			b.col(c, id)
		}
		for _, a := range n.Aggs {
			b.def[a.ID] = b.expr(a.Expr, id)
			b.prodOp[a.ID] = id
		}
	case plan.OpSort:
		b.sortKeys(n.Keys, id)
	case plan.OpLimit:
		if n.Limit != nil {
			k := b.add(graph.Computing, "key.limit", "")
			b.edge(id, k, graph.PlanTree)
			b.expr(n.Limit, k)
		}
		if n.Offset != nil {
			k := b.add(graph.Computing, "key.offset", "")
			b.edge(id, k, graph.PlanTree)
			b.expr(n.Offset, k)
		}
	case plan.OpSetOp, plan.OpValues:
		for _, r := range n.Rows {
			k := b.add(graph.Computing, "key.row", "")
			b.edge(id, k, graph.PlanTree)
			b.args(r, k, true)
		}
		for _, c := range n.Cols {
			b.def[c] = id
			b.prodOp[c] = id
		}
	}
	return id
}

func (b *builder) sortKeys(keys []plan.SortKey, parent int) {
	prev := -1
	for _, k := range keys {
		typ := "key.asc"
		if k.Desc {
			typ = "key.desc"
		}
		kn := b.add(graph.Computing, typ, "")
		b.edge(parent, kn, graph.PlanTree)
		if prev >= 0 {
			b.edge(prev, kn, graph.LogicFlow)
		}
		prev = kn
		if k.NullsFirst != k.Desc {
			nt := "key.nulls_last"
			if k.NullsFirst {
				nt = "key.nulls_first"
			}
			b.edge(kn, b.add(graph.Computing, nt, ""), graph.PlanTree)
		}
		b.expr(k.Expr, kn)
	}
}

// col links a reference to column c into parent and returns the node that
// stands for c.
func (b *builder) col(c plan.ColumnID, parent int) int {
	if p, ok := b.prodOp[c]; ok && p != b.owner && !b.flow[[2]int{p, b.owner}] {
		b.flow[[2]int{p, b.owner}] = true
		b.edge(p, b.owner, graph.DataFlow)
	}
	if d, ok := b.def[c]; ok {
		b.edge(d, parent, graph.DataFlow)
		return d
	}
	n, ok := b.baseCol[c]
	if !ok {
		text, typ := "?", "c.derived"
		if int(c) >= 0 && int(c) < len(b.meta.Columns) {
			m := b.meta.Columns[c]
			text = m.Name
			if m.Instance >= 0 && m.Instance < len(b.meta.Instances) && b.meta.Instances[m.Instance].Table != nil {
				text = b.meta.Instances[m.Instance].Table.Name + "." + m.Name
				typ = "c.column"
			}
		}
		n = b.add(graph.Content, typ, text)
		b.baseCol[c] = n
		if p, ok := b.prodOp[c]; ok {
			b.edge(p, n, graph.DataFlow)
		}
	}
	b.edge(parent, n, graph.PlanTree)
	return n
}

// nonCommutative lists binary operators whose argument order matters.
var nonCommutative = map[string]bool{
	plan.OpLt: true, plan.OpLe: true, plan.OpGt: true, plan.OpGe: true,
	plan.OpSub: true, plan.OpDiv: true, plan.OpMod: true, plan.OpConcat: true,
	plan.OpLike: true, plan.OpILike: true, plan.OpNotLike: true, plan.OpNotILike: true, plan.OpSimilar: true,
	plan.OpRegex: true, plan.OpIRegex: true, plan.OpJSONField: true, plan.OpJSONText: true, plan.OpContains: true,
	plan.OpContainedBy: true, plan.OpSubscript: true,
}

func constType(e *plan.Expr) (typ, text string) {
	if e.Null {
		return "c.null", "null"
	}
	switch e.Typ.String() {
	case "int":
		return "c.int", e.Value
	case "numeric":
		return "c.numeric", e.Value
	case "float":
		return "c.float", e.Value
	case "text":
		return "c.text", e.Value
	case "bool":
		return "c.bool", e.Value
	case "date", "timestamp", "time":
		return "c.date", e.Value
	}
	return "c.other", e.Value
}

// args adds es as arguments of parent; ordered chains them with
// LogicFlow edges.
func (b *builder) args(es []*plan.Expr, parent int, ordered bool) []int {
	out := make([]int, 0, len(es))
	for i, a := range es {
		out = append(out, b.expr(a, parent))
		if ordered && i > 0 {
			b.edge(out[i-1], out[i], graph.LogicFlow)
		}
	}
	return out
}

// expr adds e under parent and returns the node standing for it.
func (b *builder) expr(e *plan.Expr, parent int) int {
	if e == nil {
		if b.err == nil {
			b.err = fmt.Errorf("%w: nil expression", ErrPlan)
		}
		return parent
	}
	if e.Kind == plan.ColRef {
		return b.col(e.Col, parent)
	}
	if e.Kind == plan.Const {
		typ, text := constType(e)
		n := b.add(graph.Content, typ, text)
		b.edge(parent, n, graph.PlanTree)
		return n
	}
	var typ string
	switch e.Kind {
	case plan.Op:
		typ = "expr." + e.Name
	case plan.Func:
		typ = "fn." + e.Name
	case plan.Agg:
		typ = "agg." + e.Name
		if e.Star {
			typ = "agg.count_star"
		}
	case plan.WinFunc:
		typ = "win." + e.Name
		if _, ok := typeID[typ]; !ok {
			if _, isAgg := typeID["agg."+e.Name]; isAgg {
				typ = "win.agg"
			}
		}
	case plan.Case:
		typ = "expr.case"
		if e.CaseHasOperand {
			typ = "expr.case_operand"
		}
	case plan.Cast:
		typ = "expr.cast"
	case plan.Tuple:
		typ = "expr.tuple"
	case plan.Param:
		typ = "expr.param"
	case plan.Subquery:
		typ = [...]string{"sub.scalar", "sub.exists", "sub.any", "sub.all"}[min(int(e.SubKind), 3)]
	default:
		typ = "expr.other"
	}
	n := b.add(graph.Computing, typ, "")
	b.keys[n] = "E:" + b.f.Expr(e)
	b.edge(parent, n, graph.PlanTree)
	switch e.Kind {
	case plan.Op:
		ids := b.args(e.Args, n, false)
		if len(ids) == 2 && nonCommutative[e.Name] {
			b.edge(ids[0], ids[1], graph.LogicFlow)
		}
	case plan.Func, plan.Case, plan.Tuple:
		b.args(e.Args, n, true)
	case plan.Agg, plan.WinFunc:
		b.args(e.Args, n, true)
		if e.Distinct {
			b.edge(n, b.add(graph.Computing, "key.distinct", ""), graph.PlanTree)
		}
		if e.Filter != nil {
			k := b.add(graph.Computing, "key.filter", "")
			b.edge(n, k, graph.PlanTree)
			b.expr(e.Filter, k)
		}
		if len(e.Partition) > 0 {
			k := b.add(graph.Computing, "key.partition", "")
			b.edge(n, k, graph.PlanTree)
			b.args(e.Partition, k, false)
		}
		if len(e.Order) > 0 {
			k := b.add(graph.Computing, "key.order", "")
			b.edge(n, k, graph.PlanTree)
			b.sortKeys(e.Order, k)
		}
	case plan.Cast:
		b.args(e.Args, n, false)
		b.edge(n, b.add(graph.Content, "c.other", e.Typ.String()), graph.PlanTree)
	case plan.Subquery:
		b.args(e.Args, n, true)
		if e.SubOp != "" {
			b.edge(n, b.add(graph.Computing, "expr."+e.SubOp, ""), graph.PlanTree)
		}
		if e.Sub != nil {
			saved := b.owner
			r := b.node(e.Sub)
			b.owner = saved
			b.edge(n, r, graph.PlanTree)
			b.edge(r, n, graph.LogicFlow)
		}
	}
	return n
}

// maxSeedsPerKey bounds how many pairs one repeated key contributes.
const maxSeedsPerKey = 16

// Seeds returns the node pairs of a and b to identify in the positional
// encoding: computing nodes whose subtrees have the same canonical key,
// followed by graph.ContentSeeds (same content type and text).
func Seeds(a, b *Program) []graph.Pair {
	idx := make(map[string][]int)
	for j, k := range b.Keys {
		if k != "" {
			idx[k] = append(idx[k], j)
		}
	}
	var out []graph.Pair
	for i, k := range a.Keys {
		if k == "" {
			continue
		}
		js := idx[k]
		if len(js) > maxSeedsPerKey {
			js = js[:maxSeedsPerKey]
		}
		for _, j := range js {
			out = append(out, graph.Pair{A: i, B: j})
		}
	}
	return append(out, graph.ContentSeeds(a.G, b.G)...)
}

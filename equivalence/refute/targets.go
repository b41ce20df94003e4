package refute

import (
	"math/big"
	"slices"
	"strconv"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Targets are the boundaries the two plans name that random small
// databases rarely reach: a group of exactly k rows for HAVING count(*)
// > k (random tables hold a few rows), two distinct values for MIN
// against MAX or ORDER BY ... LIMIT, a duplicate row under DISTINCT or
// IN, peers on an ORDER BY key of a window. Like Polygon and ParSEval,
// which derive databases from a query's predicates, the search builds a
// few databases on each side of each boundary (seeds.go) and tries them
// before the random ones. They are ordinary databases of the search:
// every one keeps the declared constraints and the tier's assumptions,
// and what they find is minimized and classified as any other.

// varyKind says how the rows of a seed differ in the target's column.
type varyKind uint8

const (
	// varyNone: the column is not varied (vary is -1).
	varyNone varyKind = iota
	// varyLadder: every row holds a distinct value, ascending from the
	// copied row's (extremes for MIN/MAX, an order for ORDER BY).
	varyLadder
	// varyHalves: rows 2i and 2i+1 share a value: groups of different
	// sizes when the column is grouped on.
	varyHalves
	// varyFixed: every row holds value (an aggregate compared with it).
	varyFixed
)

// target is one seed database to build: rows copies of a row of table,
// alike in every column but the keys (made distinct) and column vary.
type target struct {
	table string
	rows  int
	vary  int
	how   varyKind
	value exec.Value
	// prio orders the seeds: emptied referenced tables (0), then the
	// bounds of aggregates compared with constants (1), then the rest
	// (2). A search builds a few dozen seeds; the most specific first.
	prio uint8
	// alt, when not 0, is 1 + a column the queries compare with two or
	// more literals: the copies alternate between its first two (phase
	// says which comes first), beside the ladder of vary. MIN over the
	// rows of one literal against MAX over them needs rows of both
	// (population > (SELECT min(population) ... WHERE continent =
	// 'Africa') among Asian countries).
	alt   int
	phase uint8
}

// equiPair is a column of one table compared with = to a column of
// another (a join, an IN subquery's correlation): a seed makes the other
// table's rows match its copied row there, so that the copies join.
type equiPair struct {
	a, b colKey
}

// maxTargetRows bounds the rows of a seed: a HAVING count(*) > 1000
// stays to the random search (whose tables never get there either).
const maxTargetRows = 64

// targets collects the boundary targets of plans and their equality
// pairs. Targets come in the order found, without duplicates.
type targets struct {
	list []target
	seen map[string]bool
	eq   []equiPair
	// used marks, per table, the columns the plans read, and pinned
	// those they group on, join on or compare with a literal: a seed
	// keeps a key distinct through a column they do not read where it
	// can, else one they do not pin, so that copies meant to form one
	// group (GROUP BY airline over a key (airline, flightno)) stay one.
	used, pinned map[string]map[int]bool
	// prio is the priority of the targets being added.
	prio uint8
	// litCols marks, per table, the columns compared with = to a
	// constant.
	litCols map[string]map[int]bool
}

func collectTargets(plans ...*plan.Plan) *targets {
	ts := &targets{seen: map[string]bool{}, used: map[string]map[int]bool{}, pinned: map[string]map[int]bool{}, litCols: map[string]map[int]bool{}}
	read := map[string]bool{}
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		for _, in := range p.Meta.Instances {
			if in.Table != nil {
				read[in.Table.Name] = true
			}
		}
	}
	// A referenced table of a read table emptied: the rows referencing
	// it are orphans, which only a tier that does not trust foreign keys
	// keeps (a join through the key against a query without it). First,
	// as that tier's seeds are few and these are cheap.
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		for _, in := range p.Meta.Instances {
			if in.Table == nil {
				continue
			}
			for _, fk := range in.Table.ForeignKeys {
				if read[fk.RefTable] && fk.RefTable != in.Table.Name {
					ts.add(target{table: fk.RefTable, rows: 0, vary: -1})
				}
			}
		}
	}
	ts.prio = 2
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		ts.plan(p)
	}
	// Ladders that also alternate a literal-compared column.
	for _, tg := range slices.Clone(ts.list) {
		if tg.how != varyLadder || tg.alt != 0 {
			continue
		}
		for c := range ts.litCols[tg.table] {
			if c == tg.vary {
				continue
			}
			for phase := range uint8(2) {
				ts.prio = tg.prio
				ts.add(target{table: tg.table, rows: 3, vary: tg.vary, how: varyLadder, alt: c + 1, phase: phase})
			}
		}
	}
	slices.SortStableFunc(ts.list, func(a, b target) int { return int(a.prio) - int(b.prio) })
	for _, e := range ts.eq {
		ts.pin(e.a)
		ts.pin(e.b)
	}
	return ts
}

func (ts *targets) add(tg target) {
	if tg.rows < 0 || tg.rows > maxTargetRows || tg.rows == 0 && tg.vary >= 0 {
		return
	}
	k := tg.table + "\x00" + strconv.Itoa(tg.rows) + "\x00" + strconv.Itoa(tg.vary) + "\x00" + strconv.Itoa(int(tg.how)) + "\x00" + tg.value.Key() +
		"\x00" + strconv.Itoa(tg.alt) + "\x00" + strconv.Itoa(int(tg.phase))
	if ts.seen[k] {
		return
	}
	ts.seen[k] = true
	tg.prio = ts.prio
	ts.list = append(ts.list, tg)
}

// copies adds, for every table n scans, seeds of rows identical copies
// of one of its rows: groups of that size, duplicates, ties.
func (ts *targets) copies(n *plan.Node, rows ...int) {
	for _, t := range scanned(n) {
		for _, k := range rows {
			ts.add(target{table: t, rows: k, vary: -1})
		}
	}
}

// varied adds seeds whose copies vary the base column e reads.
func (ts *targets) varied(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, e *plan.Expr, how varyKind, rows int) {
	if k, _, ok := base(p, alias, e); ok {
		ts.add(target{table: k.table, rows: rows, vary: k.ord, how: how})
	}
}

// pin marks k pinned (see targets.used).
func (ts *targets) pin(k colKey) {
	if ts.pinned[k.table] == nil {
		ts.pinned[k.table] = map[int]bool{}
	}
	ts.pinned[k.table][k.ord] = true
}

// plan collects the targets of one plan, subqueries included.
func (ts *targets) plan(p *plan.Plan) {
	alias := aliases(p)
	p.Root.WalkExprs(func(e *plan.Expr) {
		plan.WalkDeep(e, func(y *plan.Expr) {
			if y.Kind != plan.ColRef {
				return
			}
			if k, _, ok := base(p, alias, y); ok {
				if ts.used[k.table] == nil {
					ts.used[k.table] = map[int]bool{}
				}
				ts.used[k.table][k.ord] = true
			}
		})
	})
	// aggs maps an aggregate's output column to its call and node: a
	// HAVING condition reads the aggregate through that column.
	type aggOut struct {
		call *plan.Expr
		node *plan.Node
	}
	aggs := map[plan.ColumnID]aggOut{}
	eachNode(p.Root, func(n *plan.Node) {
		for _, a := range n.Aggs {
			aggs[a.ID] = aggOut{a.Expr, n}
		}
	})
	eachNode(p.Root, func(n *plan.Node) {
		switch n.Op {
		case plan.OpAggregate:
			ts.copies(n, 2, 3)
			for _, g := range n.GroupBy {
				ts.varied(p, alias, plan.NewCol(g, catalog.Unknown), varyHalves, 3)
				if k, _, ok := base(p, alias, plan.NewCol(g, catalog.Unknown)); ok {
					ts.pin(k)
				}
			}
			for _, a := range n.Aggs {
				if a.Expr != nil && a.Expr.Kind == plan.Agg && len(a.Expr.Args) > 0 {
					ts.varied(p, alias, a.Expr.Args[0], varyLadder, 2)
				}
			}
		case plan.OpDistinct:
			ts.copies(n, 2)
		case plan.OpLimit:
			// One row more than LIMIT + OFFSET lets the bound cut: LIMIT
			// 20 against LIMIT 25 needs 21 rows, more than random
			// databases hold.
			if rows, ok := limitReach(n); ok {
				ts.copies(n, rows+1)
			}
		case plan.OpSort:
			for _, k := range n.Keys {
				ts.varied(p, alias, k.Expr, varyLadder, 2)
			}
			ts.copies(n, 2)
		case plan.OpJoin:
			if n.Join == plan.SemiJoin || n.Join == plan.AntiJoin {
				ts.copies(n.Inputs[0], 2)
			}
		case plan.OpWindow:
			ts.copies(n, 2, 3)
			for _, it := range n.Proj {
				if it.Expr == nil {
					continue
				}
				for _, k := range it.Expr.Order {
					ts.varied(p, alias, k.Expr, varyHalves, 3)
				}
				for _, a := range it.Expr.Args {
					ts.varied(p, alias, a, varyLadder, 3)
				}
			}
		}
		n.Exprs(func(slot **plan.Expr) {
			plan.Walk(*slot, func(x *plan.Expr) {
				ts.inSubquery(p, alias, x)
				if x.Kind != plan.Op || len(x.Args) != 2 {
					return
				}
				ts.equality(p, alias, x)
				for i := range 2 {
					call, node := x.Args[i], n
					for call.Kind == plan.Cast && len(call.Args) == 1 {
						call = call.Args[0]
					}
					if call.Kind == plan.ColRef {
						o, ok := aggs[call.Col]
						if !ok {
							continue
						}
						call, node = o.call, o.node
					}
					if call.Kind == plan.Agg {
						ts.prio = 1
						ts.aggregateBound(p, alias, node, call, x.Args[1-i])
						ts.prio = 2
					}
				}
			})
		})
	})
}

// equality records a = b between base columns of different tables.
func (ts *targets) equality(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, x *plan.Expr) {
	if x.Name != plan.OpEq {
		return
	}
	a, _, ok1 := base(p, alias, x.Args[0])
	b, _, ok2 := base(p, alias, x.Args[1])
	for i, k := range []colKey{a, b} {
		other := x.Args[1-i]
		for other.Kind == plan.Cast && len(other.Args) == 1 {
			other = other.Args[0]
		}
		if []bool{ok1, ok2}[i] && other.Kind == plan.Const && !other.Null {
			if ts.litCols[k.table] == nil {
				ts.litCols[k.table] = map[int]bool{}
			}
			ts.litCols[k.table][k.ord] = true
		}
	}
	if ok1 && ok2 && a.table != b.table {
		ts.eq = append(ts.eq, equiPair{a, b})
	}
}

// inSubquery records x IN (SELECT y ...) as the equality x = y: a seed
// of y's table (a group at a HAVING threshold) then holds x's value, so
// that the row it decides is one the outer query has (NOT dog_id IN
// (SELECT dog_id FROM treatments GROUP BY dog_id HAVING sum(cost) >
// 1000) against >= 1000 needs a dog whose treatments sum to 1000).
func (ts *targets) inSubquery(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, x *plan.Expr) {
	if x.Kind != plan.Subquery || x.SubKind != plan.SubAny || x.SubOp != plan.OpEq || len(x.Args) != 1 || x.Sub == nil {
		return
	}
	out := x.Sub.OutCols()
	if len(out) != 1 {
		return
	}
	ts.equality(p, alias, &plan.Expr{Kind: plan.Op, Name: plan.OpEq, Args: []*plan.Expr{x.Args[0], plan.NewCol(out[0], catalog.Unknown)}})
}

// aggregateBound adds the seeds of an aggregate call compared with a
// constant: groups of k-1, k and k+1 rows for count op k, one row
// holding v and its neighbours for sum, avg, min or max op v.
func (ts *targets) aggregateBound(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, n *plan.Node, call, other *plan.Expr) {
	for other.Kind == plan.Cast && len(other.Args) == 1 {
		other = other.Args[0]
	}
	if other.Kind != plan.Const || other.Null {
		return
	}
	switch call.Name {
	case "count":
		k, err := strconv.Atoi(other.Value)
		if err != nil {
			return
		}
		ts.copies(n, k-1, k, k+1)
	case "sum", "avg", "min", "max":
		if len(call.Args) != 1 {
			return
		}
		key, col, ok := base(p, alias, call.Args[0])
		if !ok {
			return
		}
		v, err := exec.Parse(col.Type, other.Value)
		if err != nil {
			return
		}
		nb := neighbours(v, false) // v, then (for numbers and days) v-1 and v+1
		for _, w := range nb[:min(3, len(nb))] {
			ts.add(target{table: key.table, rows: 1, vary: key.ord, how: varyFixed, value: w})
		}
		if call.Name == "sum" {
			// Two rows of about half v each: a sum past v whose rows
			// are each below it (HAVING sum(cost) > 500 against
			// max(cost) > 500 needs 251 and 251).
			for _, h := range halves(v) {
				ts.add(target{table: key.table, rows: 2, vary: key.ord, how: varyFixed, value: h})
			}
		}
	}
}

// halves returns ⌊v/2⌋ and ⌊v/2⌋ + 1 for an integer or numeric v: two
// rows of the first sum to v or just below, of the second just past it.
func halves(v exec.Value) []exec.Value {
	switch v.K {
	case exec.KInt:
		h := v.I / 2
		return []exec.Value{exec.Int(h), exec.Int(h + 1)}
	case exec.KNumeric:
		if v.R == nil {
			return nil
		}
		half := new(big.Rat).Quo(v.R, big.NewRat(2, 1))
		h := new(big.Rat).SetInt(new(big.Int).Div(half.Num(), half.Denom())) // floor, the denominator positive
		return []exec.Value{exec.NumericRat(h, v.Scale), exec.NumericRat(new(big.Rat).Add(h, big.NewRat(1, 1)), v.Scale)}
	}
	return nil
}

// scanned lists the base tables n scans, outside subqueries.
func scanned(n *plan.Node) []string {
	var out []string
	n.WalkNodes(func(m *plan.Node) {
		if m.Op == plan.OpScan && m.Table != nil && !m.Table.IsView() {
			out = append(out, m.Table.Name)
		}
	})
	return out
}

// eachNode calls f on every node of the plan below root, subqueries
// included, each once.
func eachNode(root *plan.Node, f func(*plan.Node)) {
	root.WalkNodes(func(n *plan.Node) {
		f(n)
		n.Exprs(func(e **plan.Expr) {
			plan.Walk(*e, func(x *plan.Expr) {
				if x.Kind == plan.Subquery && x.Sub != nil {
					eachNode(x.Sub, f)
				}
			})
		})
	})
}

// limitReach is LIMIT + OFFSET of a Limit node with constant bounds.
func limitReach(n *plan.Node) (int, bool) {
	total := 0
	for _, e := range []*plan.Expr{n.Limit, n.Offset} {
		if e == nil {
			continue
		}
		if e.Kind != plan.Const || e.Null {
			return 0, false
		}
		v, err := strconv.Atoi(e.Value)
		if err != nil || v < 0 {
			return 0, false
		}
		total += v
	}
	return total, n.Limit != nil
}

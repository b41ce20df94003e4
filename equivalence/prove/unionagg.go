package prove

import (
	"slices"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "aggregate through UNION ALL": an aggregate over partial
// aggregates of the branches of a UNION ALL, combined by the aggregate
// the descriptor names (aggDesc.combine), is the aggregate over the
// branches' rows:
//
//	γ[K; g(s)](∪all_i γ[K_i; f(x_i) AS s](B_i))  ⇒  γ[K; f(x)](∪all_i π[K_i, x_i](B_i))
//
// where g is f's combine (SUM of SUMs, MIN of MINs, MAX of MAXes; AVG has
// none: an AVG of AVGs weighs the branches alike). Each group of K is a
// union of groups of the branches (each K_i holds the columns that feed
// K), and the combine over the partials of those groups is f over their
// rows, a branch without the group giving no partial. Conditions, each
// stated by the descriptor:
//
//   - without K, a grouped branch gives no partial when empty, so g over
//     no partial must be f over no row (their empty values agree: not
//     so for COUNT by SUM, NULL against 0); an ungrouped branch gives one
//     partial f(∅), which g must ignore (NULL, g skipping NULLs; or 0
//     under SUM).
//   - output types are kept exactly: f over x's type must be the type of
//     g over that type (SUM(numeric) is numeric both ways, while SUM of
//     integer partial sums, bigint, is numeric: not proved). COUNT's SUM
//     is numeric where COUNT is bigint, but of scale 0: proved
//     (sum-of-counts) where the plan reads it only as a value
//     (readAsValue: output, sort key, compared). SUM is of exact types only,
//     floating point sums depending on the order of the additions.
//   - PostgreSQL only (SQLite's columns hold any type); no DISTINCT,
//     FILTER or ORDER BY in the calls; no HAVING in the branches (a
//     filter between the partials and the union); MIN and MAX of values
//     whose = is identity.
//
// Fragment "DISTINCT through UNION ALL and joins": below a consumer blind
// to duplicates (DISTINCT, or a grouping whose calls are all duplicate-
// insensitive), a DISTINCT feeding a branch of a UNION ALL or an input of
// an inner or left join changes only multiplicities, which the consumer
// ignores:
//
//	δ(∪all_i δ(A_i))                ⇒  δ(∪all_i A_i)
//	δ(π[O](δ(R') ⋈[c] δ(S')))      ⇒  δ(π[O](R' ⋈[c] S'))
//
// R' and S' are what the DISTINCTs read: the join and the projection
// read only their columns, so the pushed form keeps the output and join
// columns (a pushed DISTINCT that drops a column the join reads is not
// this form). The columns of a removed DISTINCT must have = as identity
// (otherwise it keeps one of several unequal-looking values), and the
// path from the consumer down to it holds projections, filters, inner
// and left joins and UNION ALLs calling nothing volatile.

// aggThroughUnion rewrites aggregate n as above, or returns nil.
func (p *prover) aggThroughUnion(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpAggregate || len(n.Aggs) == 0 || m == nil || m.Dialect != catalog.Postgres {
		return nil
	}
	u := n.Inputs[0]
	if u.Op != plan.OpSetOp || u.Set != plan.Union || !u.All || len(u.Inputs) < 2 || len(u.SetCols) != len(u.Inputs) {
		return nil
	}
	ua := unionAggPositions(n, u)
	if ua == nil {
		return nil
	}
	c := *u
	c.Cols = nil
	for _, k := range ua.keep {
		c.Cols = append(c.Cols, u.Cols[k])
	}
	c.Inputs = make([]*plan.Node, len(u.Inputs))
	c.SetCols = make([][]plan.ColumnID, len(u.Inputs))
	for i, b := range u.Inputs {
		in, cols := ua.branch(i, b, m)
		if in == nil {
			return nil
		}
		c.Inputs[i], c.SetCols[i] = in, cols
	}
	root := p.b.Root
	if m == p.a.Meta {
		root = p.a.Root
	}
	for j, a := range n.Aggs {
		if countPartial(ua.inner[j]) && !readAsValue(root, a.ID) {
			return nil
		}
	}
	dropStarPositions(&c, ua.keep, ua.argPos, ua.inner)
	return p.unionAggRebuild(ua, &c, m)
}

// A unionAgg is aggThroughUnion's reading of aggregate n over UNION ALL
// u: the union positions the new union keeps (keep), those of the
// grouping keys (group), per call the position of its argument (argPos)
// and the partial call of the first branch (inner).
type unionAgg struct {
	n, u   *plan.Node
	keep   []int
	group  map[int]bool
	argPos []int
	inner  []*plan.Expr
}

// unionAggPositions reads the union positions aggregate n groups on and
// aggregates, or returns nil when a key or call is not a plain column
// of union u or a call is not a plain one-argument call.
func unionAggPositions(n, u *plan.Node) *unionAgg {
	pos := map[plan.ColumnID]int{}
	for k, c := range u.Cols {
		pos[c] = k
	}
	ua := &unionAgg{n: n, u: u, group: map[int]bool{}, argPos: make([]int, len(n.Aggs))}
	kept := map[int]bool{}
	want := func(k int) {
		if !kept[k] {
			kept[k] = true
			ua.keep = append(ua.keep, k)
		}
	}
	for _, g := range n.GroupBy {
		k, ok := pos[g]
		if !ok {
			return nil
		}
		ua.group[k] = true
		want(k)
	}
	for j, a := range n.Aggs {
		e := a.Expr
		if e.Kind != plan.Agg || e.Distinct || e.Filter != nil || e.Star || len(e.Order) > 0 || len(e.Args) != 1 ||
			e.Args[0].Kind != plan.ColRef {
			return nil
		}
		k, ok := pos[e.Args[0].Col]
		if !ok || ua.group[k] {
			return nil
		}
		ua.argPos[j] = k
		want(k)
	}
	return ua
}

// branch rewrites branch i of the union, b, as the projection of its
// partial aggregate's input onto the kept positions' keys and call
// arguments, returning it and its columns, or nil when the branch is no
// partial aggregate the outer calls combine.
func (ua *unionAgg) branch(i int, b *plan.Node, m *plan.Metadata) (*plan.Node, []plan.ColumnID) {
	res, g := partialBranch(b, ua.u.SetCols[i])
	if g == nil || len(res) != len(ua.u.Cols) {
		return nil, nil
	}
	calls := map[plan.ColumnID]*plan.Expr{}
	for _, a := range g.Aggs {
		calls[a.ID] = a.Expr
	}
	proj := ua.branchProjection(res, plan.MakeColSet(g.GroupBy...), calls, m)
	if proj == nil {
		return nil, nil
	}
	var cols []plan.ColumnID
	for _, it := range proj {
		cols = append(cols, it.ID)
	}
	for j, a := range ua.n.Aggs {
		f := calls[res[ua.argPos[j]]]
		if !combines(f, a.Expr, len(ua.n.GroupBy) == 0, len(g.GroupBy) == 0, m) {
			return nil, nil
		}
		if i == 0 {
			ua.inner = append(ua.inner, f)
		} else if f.Name != ua.inner[j].Name || f.Star != ua.inner[j].Star {
			return nil, nil
		} else if !f.Star && pgExactType(m, f.Args[0]) != pgExactType(m, ua.inner[j].Args[0]) && !countPartial(f) {
			return nil, nil
		}
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{g.Inputs[0]}, Proj: proj}, cols
}

// branchProjection projects, per kept position, a branch's grouping key
// (res gives the branch's column per position) or the argument of its
// partial call, or returns nil when a position is neither.
func (ua *unionAgg) branchProjection(res []plan.ColumnID, groupCols plan.ColSet, calls map[plan.ColumnID]*plan.Expr, m *plan.Metadata) []plan.ProjItem {
	var proj []plan.ProjItem
	var ids plan.ColSet
	for _, k := range ua.keep {
		col := res[k]
		if ids.Has(col) {
			return nil
		}
		ids.Add(col)
		if ua.group[k] {
			if !groupCols.Has(col) || !m.ColIdentityEq(col, col) {
				return nil
			}
			proj = append(proj, plan.ProjItem{ID: col, Expr: plan.NewCol(col, m.Col(col).Type)})
			continue
		}
		f := calls[col]
		if f != nil && f.Star && countPartial(f) {
			// COUNT(*): the position carries a constant the outer
			// COUNT(*) does not read.
			proj = append(proj, plan.ProjItem{ID: col, Expr: plan.NewConst(catalog.Int, "1")})
			continue
		}
		if f == nil || f.Kind != plan.Agg || len(f.Args) != 1 {
			return nil
		}
		proj = append(proj, plan.ProjItem{ID: col, Expr: f.Args[0].Copy()})
	}
	return proj
}

// unionAggRebuild is the aggregate of the partial calls over union c,
// recording the rules.
func (p *prover) unionAggRebuild(ua *unionAgg, c *plan.Node, m *plan.Metadata) *plan.Node {
	n := ua.n
	agg := *n
	agg.Inputs = []*plan.Node{c}
	agg.Aggs = make([]plan.ProjItem, len(n.Aggs))
	var names []string
	for j, a := range n.Aggs {
		f := *ua.inner[j]
		arg := ua.u.Cols[ua.argPos[j]]
		f.Args = []*plan.Expr{plan.NewCol(arg, m.Col(arg).Type)}
		f.Typ = a.Expr.Typ
		if countPartial(ua.inner[j]) {
			// The COUNT keeps its bigint. PostgreSQL's SUM of the counts
			// is numeric of scale 0: the same digits, read only as a
			// value above (readAsValue); the planner types it as an
			// integer already.
			f.Typ = ua.inner[j].Typ
			if f.Star {
				f.Args = nil
			}
			// Never NULL: a group holds at least one partial, and
			// without K every branch gives one.
			if m == p.a.Meta {
				p.countA.Add(a.ID)
			} else {
				p.countB.Add(a.ID)
			}
			p.rule(ruleSumOfCounts)
		}
		agg.Aggs[j] = plan.ProjItem{ID: a.ID, Expr: &f}
		names = append(names, a.Expr.Name+"("+f.Name+")")
	}
	p.ruleOn(ruleAggThroughUnionAll, "%s", strings.Join(names, ", "))
	return &agg
}

// partialBranch reads branch b of a UNION ALL, feeding it columns cols,
// as an aggregate under an optional projection of columns: res gives,
// per union position, the aggregate's column.
func partialBranch(b *plan.Node, cols []plan.ColumnID) (res []plan.ColumnID, g *plan.Node) {
	if b == nil || len(b.Inputs) != 1 {
		return nil, nil
	}
	res = append([]plan.ColumnID(nil), cols...)
	if b.Op == plan.OpProject {
		from := map[plan.ColumnID]plan.ColumnID{}
		for _, it := range b.Proj {
			if it.Expr.Kind != plan.ColRef {
				return nil, nil
			}
			from[it.ID] = it.Expr.Col
		}
		for k, c := range res {
			to, ok := from[c]
			if !ok {
				return nil, nil
			}
			res[k] = to
		}
		b = b.Inputs[0]
	}
	if b.Op != plan.OpAggregate || len(b.Inputs) != 1 {
		return nil, nil
	}
	return res, b
}

// combines says whether outer call g combines the partials of inner call
// f into f over the union of the parts, the result types equal (see the
// fragment). global: the outer aggregate has no GROUP BY; innerGlobal:
// nor has the branch's.
func combines(f, g *plan.Expr, global, innerGlobal bool, m *plan.Metadata) bool {
	if countPartial(f) && g.Name == "sum" {
		// SUM of COUNTs is the COUNT (sum-of-counts): numeric where COUNT
		// is bigint, of scale 0, so it prints alike (the column is marked
		// integral). Without K, only over ungrouped partials: each branch
		// gives its count, 0 when empty, where grouped partials give no
		// row and SUM NULL, not 0.
		return !global || innerGlobal
	}
	if f == nil || f.Kind != plan.Agg || f.Distinct || f.Filter != nil || f.Star || len(f.Order) > 0 || len(f.Args) != 1 ||
		f.HasSubquery() || plan.Volatile(f) != "" {
		return false
	}
	df, ok := aggDescs[f.Name]
	dg, ok2 := aggDescs[g.Name]
	if !ok || !ok2 || df.combine == "" || df.combine != g.Name || df.result == nil || dg.result == nil {
		return false
	}
	if f.Typ != g.Typ {
		return false
	}
	if df.dupInsensitive && !m.IdentityEq(f.Args[0], f.Args[0]) {
		return false
	}
	arg := pgExactType(m, f.Args[0])
	partial := df.result(arg)
	if arg == "" || partial == "" || dg.result(partial) != partial {
		return false
	}
	if global {
		if innerGlobal {
			// An empty branch gives the partial f(∅); g must ignore it.
			return (df.empty == "NULL" && dg.skipsNull) || (df.empty == "0" && g.Name == "sum")
		}
		return df.empty == dg.empty
	}
	return true
}

// dropStarPositions removes from the rewritten union c the positions
// (keep's order) that only fed COUNT(*) partials: the outer COUNT(*)
// reads none, and a union read by another query has no such column.
func dropStarPositions(c *plan.Node, keep, argPos []int, inner []*plan.Expr) {
	star := map[int]bool{}
	for j, f := range inner {
		if f.Star {
			star[argPos[j]] = true
		}
	}
	if len(star) == 0 {
		return
	}
	var cols []plan.ColumnID
	setCols := make([][]plan.ColumnID, len(c.SetCols))
	inputs := make([]*plan.Node, len(c.Inputs))
	for i, in := range c.Inputs {
		pr := *in
		pr.Proj = nil
		inputs[i] = &pr
	}
	for x, k := range keep {
		if star[k] {
			continue
		}
		cols = append(cols, c.Cols[x])
		for i := range c.SetCols {
			setCols[i] = append(setCols[i], c.SetCols[i][x])
			inputs[i].Proj = append(inputs[i].Proj, c.Inputs[i].Proj[x])
		}
	}
	c.Cols, c.SetCols, c.Inputs = cols, setCols, inputs
}

// coalesceNumber says whether e is COALESCE(c, k), c one of cols and k
// a non-NULL integer or numeric constant.
func coalesceNumber(e *plan.Expr, cols plan.ColSet) bool {
	if e.Kind != plan.Func || e.Name != "coalesce" || len(e.Args) != 2 {
		return false
	}
	c, k := e.Args[0], e.Args[1]
	return c.Kind == plan.ColRef && cols.Has(c.Col) && k.Kind == plan.Const && !k.Null && (k.Typ == catalog.Int || k.Typ == catalog.Numeric)
}

// countPartial says whether f is a plain COUNT(*) or COUNT(x) partial.
func countPartial(f *plan.Expr) bool {
	return f != nil && f.Kind == plan.Agg && f.Name == "count" && !f.Distinct && f.Filter == nil && len(f.Order) == 0 &&
		(f.Star && len(f.Args) == 0 || !f.Star && len(f.Args) == 1) && !f.HasSubquery() && plan.Volatile(f) == ""
}

// pgExactType is the exact PostgreSQL type of e, a column of a table: the
// integer widths told apart ("int2", "int4", "int8"), "numeric" for any
// numeric or decimal, other declared types as written (lower case); ""
// for anything else.
func pgExactType(m *plan.Metadata, e *plan.Expr) string {
	if e.Kind != plan.ColRef {
		return ""
	}
	t := strings.ToLower(strings.TrimSpace(declaredType(m, e.Col)))
	switch t {
	case "smallint", "int2", "smallserial", "serial2":
		return "int2"
	case "integer", "int", "int4", "serial", "serial4":
		return "int4"
	case "bigint", "int8", "bigserial", "serial8":
		return "int8"
	}
	if t == "numeric" || t == "decimal" || strings.HasPrefix(t, "numeric(") || strings.HasPrefix(t, "decimal(") {
		return "numeric"
	}
	return t
}

// readAsValue says whether every read of column col in the plan rooted
// at root reads only its value, never its type: an output passed
// through (a projection item col itself, or a bare alias read so in
// turn), a sort key, an operand of a comparison with a number (=, <, ...
// compare numeric and bigint by value). A SUM of COUNTs is numeric where
// the COUNT is bigint, and the planner types both as integers, so
// arithmetic over it (SUM(c) / 2 divides as numeric in PostgreSQL) or a
// set operation or call reading it must keep the proof out.
func readAsValue(root *plan.Node, col plan.ColumnID) bool {
	ok := true
	aliases := []plan.ColumnID{col}
	var visit func(n *plan.Node, depth int)
	var expr func(e *plan.Expr, cols plan.ColSet, depth int)
	expr = func(e *plan.Expr, cols plan.ColSet, depth int) {
		if e == nil || !ok {
			return
		}
		if e.Kind == plan.Subquery && e.Sub != nil {
			visit(e.Sub, depth+1)
		}
		if e.Kind == plan.ColRef {
			if cols.Has(e.Col) {
				ok = false
			}
			return
		}
		cmp := e.Kind == plan.Op && len(e.Args) == 2 && (e.Name == plan.OpEq || e.Name == plan.OpNe || e.Name == plan.OpLt || e.Name == plan.OpLe || e.Name == plan.OpGt || e.Name == plan.OpGe)
		for i, a := range e.Args {
			if cmp && a.Kind == plan.ColRef && cols.Has(a.Col) {
				if o := e.Args[1-i]; o.Typ == catalog.Int || o.Typ == catalog.Numeric {
					continue
				}
			}
			expr(a, cols, depth)
		}
		expr(e.Filter, cols, depth)
	}
	visit = func(n *plan.Node, depth int) {
		if n == nil || !ok || depth > 64 {
			ok = ok && n == nil
			return
		}
		cols := plan.MakeColSet(aliases...)
		for _, sc := range n.SetCols {
			for _, c := range sc {
				if cols.Has(c) {
					ok = false
				}
			}
		}
		for _, it := range n.Proj {
			if it.Expr.Kind == plan.ColRef && cols.Has(it.Expr.Col) {
				if it.ID != it.Expr.Col && !slices.Contains(aliases, it.ID) {
					aliases = append(aliases, it.ID)
				}
				continue
			}
			if coalesceNumber(it.Expr, cols) {
				// COALESCE(SUM(c), 0): numeric against the COUNT's
				// bigint, the same digits; read as a value in turn.
				if !slices.Contains(aliases, it.ID) {
					aliases = append(aliases, it.ID)
				}
				continue
			}
			expr(it.Expr, cols, depth)
		}
		for _, a := range n.Aggs {
			expr(a.Expr, cols, depth)
		}
		for _, e := range n.Preds {
			expr(e, cols, depth)
		}
		for _, k := range n.Keys {
			if k.Expr.Kind == plan.ColRef {
				continue
			}
			expr(k.Expr, cols, depth)
		}
		for _, r := range n.Rows {
			for _, e := range r {
				expr(e, cols, depth)
			}
		}
		for _, in := range n.Inputs {
			visit(in, depth)
		}
	}
	// An alias is found where it is defined, below some of its readers:
	// passes repeat until no new alias appears.
	for pass := 0; ok; pass++ {
		if pass == 4 {
			return false
		}
		n := len(aliases)
		visit(root, 0)
		if len(aliases) == n {
			break
		}
	}
	return ok
}

package gmntrain

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"

	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// A rewrite changes a copy of a plan in place and reports whether it
// applied. Equivalent rewrites preserve the query's result (as a bag, or
// as a list when the plan is ordered); the others are the mistakes
// text-to-SQL models make and change it on some database.
//
// Rewrites work on plans, not SQL, so they need no SQL printer; they only
// reuse columns the plan's metadata already has. The SQL-level rewrites
// that the planner normalizes away (alias renaming, conjunct order, BETWEEN,
// IN lists, implicit joins, SELECT *, ordinal ORDER BY, comparison
// orientation) give identical graphs, which the model scores 1 by
// construction, so they are not generated.
type rewrite struct {
	name  string
	equiv bool
	apply func(r *rewriter) bool
}

// rewrites is the fixed list of rewrites, in generation order.
var rewrites = []rewrite{
	// equivalent
	{"flip-comparison", true, (*rewriter).flipComparison},
	{"negate-comparison", true, (*rewriter).negateComparison},
	{"split-filter", true, (*rewriter).splitFilter},
	{"wrap-derived-table", true, (*rewriter).wrapProject},
	{"join-condition-to-filter", true, (*rewriter).joinPredsToFilter},
	{"count-star-not-null", true, (*rewriter).countStar},
	{"redundant-distinct", true, (*rewriter).redundantDistinct},
	{"order-unordered", true, (*rewriter).orderUnordered},
	// not equivalent
	{"wrong-column", false, (*rewriter).wrongColumn},
	{"wrong-operator", false, (*rewriter).wrongOperator},
	{"wrong-literal", false, (*rewriter).wrongLiteral},
	{"wrong-aggregate", false, (*rewriter).wrongAggregate},
	{"wrong-join-condition", false, (*rewriter).wrongJoinCondition},
	{"join-type", false, (*rewriter).joinType},
	{"missing-predicate", false, (*rewriter).missingPredicate},
	{"extra-predicate", false, (*rewriter).extraPredicate},
	{"distinct-toggle", false, (*rewriter).distinctToggle},
	{"order-direction", false, (*rewriter).orderDirection},
	{"limit-value", false, (*rewriter).limitValue},
	{"group-by-key", false, (*rewriter).groupByKey},
	{"set-operation", false, (*rewriter).setOperation},
}

// RewriteNames lists the synthetic rewrite kinds, equivalent ones first.
func RewriteNames() []string {
	out := make([]string, len(rewrites))
	for i, r := range rewrites {
		out[i] = r.name
	}
	return out
}

// rewriter holds a plan copy being rewritten and the sites it can touch.
type rewriter struct {
	p    *plan.Plan
	rng  *rand.Rand
	pool map[catalog.Type][]string // literals seen in the same database

	nodes []**plan.Node
	exprs []exprSite
}

type exprSite struct {
	slot  **plan.Expr
	owner *plan.Node
	top   bool // the slot is one of owner's own expressions, not an argument
}

func newRewriter(p *plan.Plan, rng *rand.Rand, pool map[catalog.Type][]string) *rewriter {
	c := &plan.Plan{Root: p.Root.Copy(), Meta: p.Meta, Names: p.Names, Ordered: p.Ordered}
	r := &rewriter{p: c, rng: rng, pool: pool}
	var visitExpr func(s **plan.Expr, owner *plan.Node, top bool)
	var visit func(s **plan.Node)
	visitExpr = func(s **plan.Expr, owner *plan.Node, top bool) {
		r.exprs = append(r.exprs, exprSite{s, owner, top})
		e := *s
		if e.Kind == plan.Subquery && e.Sub != nil {
			visit(&e.Sub)
		}
		e.Children(func(c **plan.Expr) { visitExpr(c, owner, false) })
	}
	visit = func(s **plan.Node) {
		r.nodes = append(r.nodes, s)
		n := *s
		n.Exprs(func(e **plan.Expr) { visitExpr(e, n, true) })
		for i := range n.Inputs {
			visit(&n.Inputs[i])
		}
	}
	visit(&r.p.Root)
	return r
}

// pick returns a random element of the candidates f accepts, or -1.
func pick[T any](rng *rand.Rand, xs []T, f func(T) bool) int {
	var ok []int
	for i, x := range xs {
		if f(x) {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return -1
	}
	return ok[rng.IntN(len(ok))]
}

func (r *rewriter) pickExpr(f func(exprSite) bool) *exprSite {
	i := pick(r.rng, r.exprs, f)
	if i < 0 {
		return nil
	}
	return &r.exprs[i]
}

func (r *rewriter) pickNode(f func(*plan.Node) bool) **plan.Node {
	i := pick(r.rng, r.nodes, func(s **plan.Node) bool { return f(*s) })
	if i < 0 {
		return nil
	}
	return r.nodes[i]
}

var mirror = map[string]string{plan.OpLt: plan.OpGt, plan.OpGt: plan.OpLt, plan.OpLe: plan.OpGe, plan.OpGe: plan.OpLe}
var negation = map[string]string{plan.OpLt: plan.OpGe, plan.OpGe: plan.OpLt, plan.OpLe: plan.OpGt, plan.OpGt: plan.OpLe}

func isCmp(e *plan.Expr) bool {
	_, ok := mirror[e.Name]
	return e.Kind == plan.Op && ok && len(e.Args) == 2
}

// flipComparison: a > b ⇒ b < a.
func (r *rewriter) flipComparison() bool {
	s := r.pickExpr(func(s exprSite) bool { return isCmp(*s.slot) })
	if s == nil {
		return false
	}
	e := *s.slot
	e.Name = mirror[e.Name]
	e.Args[0], e.Args[1] = e.Args[1], e.Args[0]
	return true
}

// negateComparison: a > b ⇒ NOT (a <= b). Equal under three-valued logic:
// both are NULL when an operand is.
func (r *rewriter) negateComparison() bool {
	s := r.pickExpr(func(s exprSite) bool { return isCmp(*s.slot) })
	if s == nil {
		return false
	}
	e := *s.slot
	e.Name = negation[e.Name]
	*s.slot = plan.NewOp(plan.OpNot, catalog.Bool, e)
	return true
}

// splitFilter: Filter(x, p, q) ⇒ Filter(Filter(x, q), p).
func (r *rewriter) splitFilter() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpFilter && len(n.Preds) >= 2 })
	if s == nil {
		return false
	}
	n := *s
	k := 1 + r.rng.IntN(len(n.Preds)-1)
	inner := &plan.Node{Op: plan.OpFilter, Inputs: n.Inputs, Preds: n.Preds[k:]}
	n.Preds = n.Preds[:k:k]
	n.Inputs = []*plan.Node{inner}
	return true
}

func (r *rewriter) identityProject(n *plan.Node) *plan.Node {
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n}}
	for _, c := range n.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, r.p.Meta.Col(c).Type)})
	}
	return out
}

// wrapProject: x ⇒ Project(x, all of x's columns), a derived table
// SELECT * FROM (x).
func (r *rewriter) wrapProject() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op != plan.OpProject })
	if s == nil {
		return false
	}
	*s = r.identityProject(*s)
	return true
}

// joinPredsToFilter: InnerJoin(a, b, p) ⇒ Filter(InnerJoin(a, b), p).
func (r *rewriter) joinPredsToFilter() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpJoin && n.Join == plan.InnerJoin && len(n.Preds) > 0 })
	if s == nil {
		return false
	}
	n := *s
	*s = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n}, Preds: n.Preds}
	n.Preds = nil
	return true
}

func (r *rewriter) hasOuterJoin() bool {
	for _, s := range r.nodes {
		if n := *s; n.Op == plan.OpJoin && n.Join != plan.InnerJoin && n.Join != plan.SemiJoin && n.Join != plan.AntiJoin {
			return true
		}
	}
	return false
}

// countStar: count(c) ⇒ count(*) for a declared NOT NULL base column c
// when no outer join can make it NULL.
func (r *rewriter) countStar() bool {
	if r.hasOuterJoin() {
		return false
	}
	s := r.pickExpr(func(s exprSite) bool {
		e := *s.slot
		if e.Kind != plan.Agg || e.Name != "count" || e.Star || e.Distinct || e.Filter != nil || len(e.Args) != 1 {
			return false
		}
		a := e.Args[0]
		return a.Kind == plan.ColRef && r.p.Meta.Col(a.Col).Instance >= 0 && r.p.Meta.Col(a.Col).NotNull
	})
	if s == nil {
		return false
	}
	e := *s.slot
	e.Args, e.Star = nil, true
	return true
}

// topRelational returns the slot of the first Project, Aggregate or SetOp
// below the root's Sort/Limit chain.
func (r *rewriter) topRelational() **plan.Node {
	s := &r.p.Root
	for (*s).Op == plan.OpSort || (*s).Op == plan.OpLimit {
		s = &(*s).Inputs[0]
	}
	return s
}

// redundantDistinct: x ⇒ Distinct(x) when a key of x lies within its
// output columns (rows are already distinct).
func (r *rewriter) redundantDistinct() bool {
	s := r.topRelational()
	n := *s
	if n.Op == plan.OpDistinct || !plan.Derive(n, r.p.Meta).HasKeyWithin(n.OutColSet()) {
		return false
	}
	*s = &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}
	return true
}

// orderUnordered: x ⇒ Sort(x, first column) when the query's order is
// undefined and no LIMIT depends on it.
func (r *rewriter) orderUnordered() bool {
	root := r.p.Root
	if r.p.Ordered || root.Op == plan.OpSort || root.Op == plan.OpLimit {
		return false
	}
	cols := root.OutCols()
	if len(cols) == 0 {
		return false
	}
	c := cols[r.rng.IntN(len(cols))]
	desc := r.rng.IntN(2) == 0
	r.p.Root = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{root},
		Keys: []plan.SortKey{{Expr: plan.NewCol(c, r.p.Meta.Col(c).Type), Desc: desc, NullsFirst: desc}}}
	return true
}

func (r *rewriter) isBaseCol(e *plan.Expr) bool {
	return e.Kind == plan.ColRef && int(e.Col) < len(r.p.Meta.Columns) && r.p.Meta.Col(e.Col).Instance >= 0
}

// otherColumn changes a base column reference to another column of the
// same table instance, preferring the same type.
func (r *rewriter) otherColumn(e *plan.Expr) bool {
	m := r.p.Meta.Col(e.Col)
	cols := r.p.Meta.Instances[m.Instance].Cols
	i := pick(r.rng, cols, func(c plan.ColumnID) bool { return c != e.Col && r.p.Meta.Col(c).Type == m.Type })
	if i < 0 {
		i = pick(r.rng, cols, func(c plan.ColumnID) bool { return c != e.Col })
	}
	if i < 0 {
		return false
	}
	e.Col = cols[i]
	return true
}

// wrongColumn: a reference to t.c ⇒ t.d.
func (r *rewriter) wrongColumn() bool {
	s := r.pickExpr(func(s exprSite) bool { return r.isBaseCol(*s.slot) && s.owner.Op != plan.OpJoin })
	return s != nil && r.otherColumn(*s.slot)
}

// wrongJoinCondition: a join condition's column t.c ⇒ t.d.
func (r *rewriter) wrongJoinCondition() bool {
	s := r.pickExpr(func(s exprSite) bool { return r.isBaseCol(*s.slot) && s.owner.Op == plan.OpJoin })
	return s != nil && r.otherColumn(*s.slot)
}

var wrongOp = map[string][]string{
	plan.OpEq: {plan.OpNe, plan.OpLt, plan.OpGt}, plan.OpNe: {plan.OpEq},
	plan.OpLt: {plan.OpLe, plan.OpGt}, plan.OpLe: {plan.OpLt, plan.OpGe},
	plan.OpGt: {plan.OpGe, plan.OpLt}, plan.OpGe: {plan.OpGt, plan.OpLe},
	plan.OpILike: {plan.OpEq, plan.OpNotILike}, plan.OpLike: {plan.OpEq, plan.OpNotLike},
	plan.OpAnd: {plan.OpOr}, plan.OpOr: {plan.OpAnd},
}

// wrongOperator: a > b ⇒ a >= b, = ⇒ <>, AND ⇒ OR, ….
func (r *rewriter) wrongOperator() bool {
	s := r.pickExpr(func(s exprSite) bool { e := *s.slot; return e.Kind == plan.Op && len(wrongOp[e.Name]) > 0 })
	if s == nil {
		return false
	}
	e := *s.slot
	alts := wrongOp[e.Name]
	e.Name = alts[r.rng.IntN(len(alts))]
	return true
}

func (r *rewriter) otherLiteral(e *plan.Expr) {
	pool := r.pool[e.Typ]
	if i := pick(r.rng, pool, func(v string) bool { return v != e.Value }); i >= 0 && r.rng.IntN(2) == 0 {
		e.Value = pool[i]
		return
	}
	if f, err := strconv.ParseFloat(e.Value, 64); err == nil && e.Typ.IsNumeric() {
		d := float64(1 + r.rng.IntN(10))
		if r.rng.IntN(2) == 0 {
			d = -d
		}
		if e.Typ == catalog.Int || f == float64(int64(f)) {
			e.Value = strconv.FormatInt(int64(f+d), 10)
		} else {
			e.Value = strconv.FormatFloat(f+d, 'g', -1, 64)
		}
		return
	}
	e.Value += []string{"s", "x", " ", "1"}[r.rng.IntN(4)]
}

// wrongLiteral: a literal in a predicate or expression ⇒ another value.
func (r *rewriter) wrongLiteral() bool {
	s := r.pickExpr(func(s exprSite) bool {
		e := *s.slot
		return e.Kind == plan.Const && !e.Null && e.Typ != catalog.Bool && s.owner.Op != plan.OpLimit
	})
	if s == nil {
		return false
	}
	r.otherLiteral(*s.slot)
	return true
}

var aggSwap = map[string][]string{
	"count": {"sum", "max"}, "sum": {"avg", "count", "max"}, "avg": {"sum", "max", "min"},
	"min": {"max", "avg"}, "max": {"min", "avg", "sum"},
}

// wrongAggregate: max ⇒ min, sum ⇒ avg, count(c) ⇒ count(DISTINCT c), ….
func (r *rewriter) wrongAggregate() bool {
	s := r.pickExpr(func(s exprSite) bool { e := *s.slot; return e.Kind == plan.Agg && len(aggSwap[e.Name]) > 0 })
	if s == nil {
		return false
	}
	e := *s.slot
	if e.Star {
		return false // count(*) has no argument to aggregate otherwise
	}
	if len(e.Args) == 1 && (e.Name == "count" || e.Name == "sum" || e.Name == "avg") && r.rng.IntN(3) == 0 {
		e.Distinct = !e.Distinct
		return true
	}
	alts := aggSwap[e.Name]
	e.Name = alts[r.rng.IntN(len(alts))]
	return true
}

// joinType: inner ⇒ left, left ⇒ inner, semi ⇔ anti (IN ⇔ NOT IN).
func (r *rewriter) joinType() bool {
	s := r.pickNode(func(n *plan.Node) bool {
		switch n.Join {
		case plan.InnerJoin:
			return n.Op == plan.OpJoin && len(n.Inputs) == 2 && len(n.Preds) > 0
		case plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
			return n.Op == plan.OpJoin
		}
		return false
	})
	if s == nil {
		return false
	}
	n := *s
	n.Join = map[plan.JoinKind]plan.JoinKind{plan.InnerJoin: plan.LeftJoin, plan.LeftJoin: plan.InnerJoin,
		plan.SemiJoin: plan.AntiJoin, plan.AntiJoin: plan.SemiJoin}[n.Join]
	return true
}

// missingPredicate: drop one conjunct of a filter (the filter goes when
// it was the only one).
func (r *rewriter) missingPredicate() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpFilter && len(n.Preds) > 0 })
	if s == nil {
		return false
	}
	n := *s
	if len(n.Preds) == 1 {
		*s = n.Inputs[0]
		return true
	}
	i := r.rng.IntN(len(n.Preds))
	n.Preds = slices.Delete(n.Preds, i, i+1)
	return true
}

// extraPredicate: Scan(t) ⇒ Filter(Scan(t), t.c op literal), with a literal
// of the column's type seen in the same database (= for text; =, <, > for
// numbers).
func (r *rewriter) extraPredicate() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpScan && len(n.Cols) > 0 })
	if s == nil {
		return false
	}
	n := *s
	c := n.Cols[r.rng.IntN(len(n.Cols))]
	m := r.p.Meta.Col(c)
	col := plan.NewCol(c, m.Type)
	var pred *plan.Expr
	if pool := r.pool[m.Type]; len(pool) > 0 {
		op := plan.OpEq
		if m.Type.IsNumeric() {
			op = []string{plan.OpGt, plan.OpLt, plan.OpEq}[r.rng.IntN(3)]
		}
		pred = plan.NewOp(op, catalog.Bool, col, plan.NewConst(m.Type, pool[r.rng.IntN(len(pool))]))
	} else {
		return false
	}
	*s = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{n}, Preds: []*plan.Expr{pred}}
	return true
}

// distinctToggle: remove a DISTINCT, or add one where rows may repeat.
func (r *rewriter) distinctToggle() bool {
	if s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpDistinct }); s != nil {
		*s = (*s).Inputs[0]
		return true
	}
	s := r.topRelational()
	n := *s
	if n.Op == plan.OpSetOp && !n.All || plan.Derive(n, r.p.Meta).HasKeyWithin(n.OutColSet()) {
		return false
	}
	*s = &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{n}}
	return true
}

// orderDirection: ASC ⇔ DESC on a sort key whose order matters (an
// ordered result, or a LIMIT above).
func (r *rewriter) orderDirection() bool {
	var sorts []*plan.Node
	var walk func(n *plan.Node, matters bool)
	walk = func(n *plan.Node, matters bool) {
		if n.Op == plan.OpSort && matters && len(n.Keys) > 0 {
			sorts = append(sorts, n)
		}
		for _, in := range n.Inputs {
			walk(in, n.Op == plan.OpLimit || matters && (n.Op == plan.OpSort || n.Op == plan.OpProject))
		}
	}
	walk(r.p.Root, r.p.Ordered)
	if len(sorts) == 0 {
		return false
	}
	n := sorts[r.rng.IntN(len(sorts))]
	k := &n.Keys[r.rng.IntN(len(n.Keys))]
	k.Desc, k.NullsFirst = !k.Desc, !k.NullsFirst
	return true
}

// limitValue: LIMIT n ⇒ LIMIT m.
func (r *rewriter) limitValue() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpLimit && n.Limit != nil && n.Limit.Kind == plan.Const })
	if s == nil {
		return false
	}
	e := (*s).Limit
	v, err := strconv.Atoi(e.Value)
	if err != nil {
		return false
	}
	nv := v + 1 + r.rng.IntN(4)
	if v > 1 && r.rng.IntN(2) == 0 {
		nv = 1 + r.rng.IntN(v-1)
	}
	e.Value = strconv.Itoa(nv)
	return true
}

// groupByKey: add a grouping column of the input, or drop one when there
// are several.
func (r *rewriter) groupByKey() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpAggregate && len(n.GroupBy) > 0 })
	if s == nil {
		return false
	}
	n := *s
	if len(n.GroupBy) > 1 && r.rng.IntN(2) == 0 {
		i := r.rng.IntN(len(n.GroupBy))
		n.GroupBy = slices.Delete(n.GroupBy, i, i+1)
		return true
	}
	in := n.Inputs[0].OutCols()
	i := pick(r.rng, in, func(c plan.ColumnID) bool { return !slices.Contains(n.GroupBy, c) })
	if i < 0 {
		return false
	}
	n.GroupBy = append(n.GroupBy, in[i])
	return true
}

// setOperation: UNION ⇒ INTERSECT / EXCEPT / UNION ALL, ….
func (r *rewriter) setOperation() bool {
	s := r.pickNode(func(n *plan.Node) bool { return n.Op == plan.OpSetOp })
	if s == nil {
		return false
	}
	n := *s
	if n.Set == plan.Union && r.rng.IntN(3) == 0 {
		n.All = !n.All
		return true
	}
	n.Set = (n.Set + 1 + plan.SetKind(r.rng.IntN(2))) % 3
	return true
}

// literalPools collects, per database, the distinct non-NULL literals of
// each type in the given queries, in order of appearance.
func literalPools(qs []*Query) map[string]map[catalog.Type][]string {
	out := map[string]map[catalog.Type][]string{}
	for _, q := range qs {
		pool := out[q.DB]
		if pool == nil {
			pool = map[catalog.Type][]string{}
			out[q.DB] = pool
		}
		q.Plan.Root.WalkNodes(func(n *plan.Node) {
			if n.Op == plan.OpLimit {
				return
			}
			n.Exprs(func(s **plan.Expr) {
				plan.WalkDeep(*s, func(e *plan.Expr) {
					if e.Kind == plan.Const && !e.Null && e.Typ != catalog.Bool && !slices.Contains(pool[e.Typ], e.Value) {
						pool[e.Typ] = append(pool[e.Typ], e.Value)
					}
				})
			})
		})
	}
	return out
}

// SynthOptions bound synthetic generation.
type SynthOptions struct {
	// PerQuery is how many rewrites of each kind (equivalent, not) to keep
	// per query (default 1).
	PerQuery int
}

// Synthesize derives labelled pairs (original, rewritten) from the plans
// of qs. For each query it tries the equivalent and the non-equivalent
// rewrites in a random order (from rng) and keeps up to PerQuery of each
// that applied and changed the graph; counts has one entry per kept kind.
// Only qs is read, so pairs from train-fold queries never see test data.
func Synthesize(qs []*Query, opts SynthOptions, rng *rand.Rand) (items []Item, counts map[string]int) {
	if opts.PerQuery == 0 {
		opts.PerQuery = 1
	}
	pools := literalPools(qs)
	counts = map[string]int{}
	var eq, ne []rewrite
	for _, rw := range rewrites {
		if rw.equiv {
			eq = append(eq, rw)
		} else {
			ne = append(ne, rw)
		}
	}
	for _, q := range qs {
		for _, group := range [][]rewrite{eq, ne} {
			order := rng.Perm(len(group))
			kept := 0
			for _, i := range order {
				if kept == opts.PerQuery {
					break
				}
				rw := group[i]
				r := newRewriter(q.Plan, rng, pools[q.DB])
				if !rw.apply(r) {
					continue
				}
				prog, err := plangraph.BuildProgram(r.p)
				if err != nil || reflect.DeepEqual(prog.G, q.Prog.G) {
					continue
				}
				if !rw.equiv && r.p.Canonical() == q.Plan.Canonical() {
					continue
				}
				label := 0.0
				if rw.equiv {
					label = 1
				}
				items = append(items, Item{A: q.Prog, B: prog, Label: label, DB: q.DB, Kind: rw.name})
				counts[rw.name]++
				kept++
			}
		}
	}
	return items, counts
}

// Transitive derives pairs between candidates of the same reference in
// items (real pairs): two equivalent candidates are equivalent to each
// other (label 1), and an equivalent and a non-equivalent one are not
// (label 0). Pairs of identical programs are skipped.
func Transitive(items []Item) []Item {
	type group struct{ pos, neg []*plangraph.Program }
	var refs []*plangraph.Program
	groups := map[*plangraph.Program]*group{}
	dbOf := map[*plangraph.Program]string{}
	for _, it := range items {
		if it.Kind != "real" {
			continue
		}
		g := groups[it.A]
		if g == nil {
			g = &group{}
			groups[it.A] = g
			refs = append(refs, it.A)
			dbOf[it.A] = it.DB
		}
		if it.Label >= 0.5 {
			g.pos = append(g.pos, it.B)
		} else {
			g.neg = append(g.neg, it.B)
		}
	}
	var out []Item
	for _, ref := range refs {
		g := groups[ref]
		for i, a := range g.pos {
			for _, b := range g.pos[i+1:] {
				if a != b {
					out = append(out, Item{A: a, B: b, Label: 1, DB: dbOf[ref], Kind: "transitive-equivalent"})
				}
			}
			for _, b := range g.neg {
				if a != b {
					out = append(out, Item{A: a, B: b, Label: 0, DB: dbOf[ref], Kind: "transitive-different"})
				}
			}
		}
	}
	return out
}

package equivalence

import (
	"cmp"
	"context"
	"slices"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// The ESM+ rules: each rewrites one plan toward a canonical form when,
// and only when, the schema facts it names hold. The published rule set
// is unsound in places; each comment states the precondition that makes
// it sound. Rules the planner already applies in general form (DISTINCT
// on a key, GROUP BY functional dependency, SELECT *, literal coercion,
// aliases, IN-lists, join equivalence classes, BETWEEN, NOT) are recorded
// under their planner names.

// Rule names (ESM+ numbering in parentheses).
const (
	RuleMaxSubqueryToLimit = "max-subquery-to-order-limit"  // (1)
	RuleIntersectToAnd     = "intersect-to-and"             // (3)
	RuleUnionToOr          = "union-to-or"                  // (4)
	RuleExceptToAntiJoin   = "except-to-anti-join"          // (6)
	RuleCountStarNotNull   = "count-star-not-null"          // (7)
	RuleIsNotNullDropped   = "is-not-null-redundant"        // (8)
	RuleOrderLimitToMax    = "order-limit-to-max"           // (9)
	RuleSemiJoinOnKey      = "semi-join-on-key-to-join"     // (12, 17)
	RuleFKJoinElimination  = "fk-join-elimination"          // (13)
	RuleSelfJoinOnKey      = "self-join-on-key-elimination" // (17)
	RuleSelfUnion          = "self-union"                   // (18)
	RuleNullIgnoringAgg    = "is-not-null-under-null-ignoring-aggregate"
	RuleNullsOrderNotNull  = "nulls-order-of-not-null-key"
	RuleDistinctJoinToSemi = "distinct-join-to-semi-join"
	RuleAggDistinctOnKey   = "aggregate-distinct-redundant"
)

// ruleCtx carries what a rule may consult and where it reports.
type ruleCtx struct {
	ctx     context.Context
	p       *plan.Plan
	schema  *catalog.Schema
	trustFK bool
	fired   func(string)
	assume  func(Assumption)
	// formatters caches one formatter per mode (index 1: anonymous) until
	// a rule fires: building one walks the whole plan, too much to do at
	// every node, and a rule that fires may add definitions it lacks.
	formatters [2]*plan.Formatter
	deriver    *plan.Deriver
}

// formatter returns a formatter of the current plan.
func (r *ruleCtx) formatter(anonymous bool) *plan.Formatter {
	i := 0
	if anonymous {
		i = 1
	}
	if r.formatters[i] == nil {
		r.formatters[i] = plan.NewFormatter(r.p.Meta, r.p.Root, anonymous)
	}
	return r.formatters[i]
}

// props derives n's properties, memoized until a rule fires: a rule reads
// properties before it rewrites, and every firing resets the memo.
func (r *ruleCtx) props(n *plan.Node) *plan.Props {
	if r.deriver == nil {
		r.deriver = plan.NewDeriver(r.p.Meta)
	}
	return r.deriver.Derive(n)
}

// changed forgets what was derived or formatted of the plan before a
// rewrite.
func (r *ruleCtx) changed() {
	r.formatters = [2]*plan.Formatter{}
	if r.deriver != nil {
		r.deriver.Reset()
	}
}

type esmRule struct {
	name  string
	apply func(r *ruleCtx, slot **plan.Node) bool
}

var esmRules = []esmRule{
	{RuleNullsOrderNotNull, nullsOrderNotNull},
	{RuleAggDistinctOnKey, aggDistinctRedundant},
	{RuleCountStarNotNull, countStarNotNull},
	{RuleIsNotNullDropped, isNotNullRedundant},
	{RuleNullIgnoringAgg, isNotNullUnderNullIgnoringAgg},
	{RuleMaxSubqueryToLimit, maxSubqueryToLimit},
	{RuleOrderLimitToMax, orderLimitToMax},
	{RuleIntersectToAnd, setOpToPredicate(plan.Intersect)},
	{RuleUnionToOr, setOpToPredicate(plan.Union)},
	{RuleSelfUnion, selfUnion},
	{RuleExceptToAntiJoin, exceptToAntiJoin},
	{RuleSemiJoinOnKey, semiJoinOnKey},
	{RuleSelfJoinOnKey, selfJoinOnKey},
	{RuleFKJoinElimination, fkJoinElimination},
	{RuleDistinctJoinToSemi, distinctJoinToSemi},
}

// afterRule, when set (by tests), is called after every rule that fires,
// with the plan as the rule left it.
var afterRule func(p *plan.Plan, rule string)

// applyRules runs every rule over every node (subquery plans included)
// once; it reports whether any fired. It stops with ctx's error when ctx
// ends.
//
// It looks at the context before every rule at every node: once a rule
// has fired, the next may re-derive the properties of a whole subtree, so
// a count of nodes between looks bounds nothing (a chain of 400 EXCEPTs
// overran its deadline by 30 ms that way). A look costs tens of
// nanoseconds.
func applyRules(r *ruleCtx) (bool, error) {
	any := false
	var err error
	// Normalization between rounds rewrites the plan.
	r.changed()
	var visit func(slot **plan.Node)
	visit = func(slot **plan.Node) {
		if err != nil {
			return
		}
		if err = r.ctx.Err(); err != nil {
			return
		}
		n := *slot
		for i := range n.Inputs {
			visit(&n.Inputs[i])
		}
		n.Exprs(func(s **plan.Expr) {
			plan.Walk(*s, func(x *plan.Expr) {
				if x.Kind == plan.Subquery {
					visit(&x.Sub)
				}
			})
		})
		if err != nil {
			return
		}
		for _, rule := range esmRules {
			if err = r.ctx.Err(); err != nil {
				return
			}
			if rule.apply(r, slot) {
				r.changed()
				r.fired(rule.name)
				any = true
				if afterRule != nil {
					afterRule(r.p, rule.name)
				}
			}
		}
	}
	visit(&r.p.Root)
	return any, err
}

// nullsOrderNotNull: where a sort key can never be NULL, NULLS FIRST/LAST
// means nothing; write it as PostgreSQL's default so dialects agree.
func nullsOrderNotNull(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSort {
		return false
	}
	nn := r.props(n.Inputs[0]).NotNull
	fired := false
	for i, k := range n.Keys {
		if k.NullsFirst != k.Desc && k.Expr.Kind == plan.ColRef && nn.Has(k.Expr.Col) {
			n.Keys[i].NullsFirst = k.Desc
			fired = true
		}
	}
	return fired
}

// countStarNotNull: COUNT(c) ⇒ COUNT(*) when c is never NULL.
func countStarNotNull(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate {
		return false
	}
	var nn plan.ColSet
	fired := false
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Name == "count" && !e.Distinct && !e.Star && len(e.Args) == 1 && e.Args[0].Kind == plan.ColRef {
			if nn.Empty() {
				nn = r.props(n.Inputs[0]).NotNull
			}
			if nn.Has(e.Args[0].Col) {
				e.Star, e.Args = true, nil
				fired = true
			}
		}
	}
	return fired
}

// isNotNullRedundant: Filter(x, c IS NOT NULL) drops the test when c is
// never NULL in x.
func isNotNullRedundant(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpFilter {
		return false
	}
	nn := r.props(n.Inputs[0]).NotNull
	var keep []*plan.Expr
	for _, p := range n.Preds {
		if p.IsOp(plan.OpIsNotNull) && p.Args[0].Kind == plan.ColRef && nn.Has(p.Args[0].Col) {
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) == len(n.Preds) {
		return false
	}
	n.Preds = keep
	if len(keep) == 0 {
		*slot = n.Inputs[0]
	}
	return true
}

var nullIgnoring = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// isNotNullUnderNullIgnoringAgg: Aggregate(Filter(x, c IS NOT NULL)) with
// no GROUP BY, whose every aggregate ignores NULLs of c alone
// (COUNT(DISTINCT c), MAX(c), ...), drops the filter: the rows it removes
// never reach the aggregates' results.
func isNotNullUnderNullIgnoringAgg(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate || len(n.GroupBy) > 0 || len(n.Aggs) == 0 || n.Inputs[0].Op != plan.OpFilter {
		return false
	}
	var col plan.ColumnID = -1
	for _, a := range n.Aggs {
		e := a.Expr
		if !nullIgnoring[e.Name] || e.Star || e.Filter != nil || len(e.Args) != 1 || e.Args[0].Kind != plan.ColRef {
			return false
		}
		if col >= 0 && e.Args[0].Col != col {
			return false
		}
		col = e.Args[0].Col
	}
	f := n.Inputs[0]
	for i, p := range f.Preds {
		if p.IsOp(plan.OpIsNotNull) && p.Args[0].Kind == plan.ColRef && p.Args[0].Col == col {
			f.Preds = append(f.Preds[:i:i], f.Preds[i+1:]...)
			if len(f.Preds) == 0 {
				n.Inputs[0] = f.Inputs[0]
			}
			return true
		}
	}
	return false
}

// singleTable matches Filter*(Scan t) and returns the scan and conjuncts.
func singleTable(n *plan.Node) (*plan.Node, []*plan.Expr, bool) {
	var preds []*plan.Expr
	for n.Op == plan.OpFilter {
		preds = append(preds, n.Preds...)
		n = n.Inputs[0]
	}
	if n.Op != plan.OpScan {
		return nil, nil, false
	}
	return n, preds, true
}

// columnMap maps the columns of scan b onto those of scan a (same table).
func columnMap(a, b *plan.Node) map[plan.ColumnID]*plan.Expr {
	m := map[plan.ColumnID]*plan.Expr{}
	for i, c := range b.Cols {
		m[c] = plan.NewCol(a.Cols[i], a.Table.Columns[i].Type)
	}
	return m
}

func remap(es []*plan.Expr, m map[plan.ColumnID]*plan.Expr) []*plan.Expr {
	out := make([]*plan.Expr, len(es))
	for i, e := range es {
		out[i] = plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.ColRef {
				if r, ok := m[x.Col]; ok {
					return r.Copy()
				}
			}
			return x
		})
	}
	return out
}

// singleColumnKey reports whether column ordinal o alone is a key of t
// (unique and not null).
func singleColumnKey(t *catalog.Table, o int) bool {
	for _, k := range t.Keys() {
		if len(k) == 1 && k[0] == o {
			return true
		}
	}
	return false
}

func ordinalOf(scan *plan.Node, c plan.ColumnID) int {
	for i, x := range scan.Cols {
		if x == c {
			return i
		}
	}
	return -1
}

// maxSubqueryToLimit: Filter(t, c = (SELECT MAX(c) FROM t WHERE φ)) with
// the same φ on both sides ⇒ Limit 1 (Sort c DESC (Filter(t, φ))), MIN
// with ASC. Sound only when c alone is a key of t (unique and not null):
// otherwise ties give several rows on one side and one on the other.
func maxSubqueryToLimit(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpFilter {
		return false
	}
	scan, preds, ok := singleTable(n)
	if !ok {
		return false
	}
	for i, p := range preds {
		if !p.IsOp(plan.OpEq) || p.Args[0].Kind != plan.ColRef || p.Args[1].Kind != plan.Subquery || p.Args[1].SubKind != plan.SubScalar {
			continue
		}
		c := p.Args[0].Col
		o := ordinalOf(scan, c)
		if o < 0 || !singleColumnKey(scan.Table, o) {
			continue
		}
		sub := p.Args[1].Sub
		if sub.Op == plan.OpProject {
			sub = sub.Inputs[0]
		}
		if sub.Op != plan.OpAggregate || len(sub.GroupBy) > 0 || len(sub.Aggs) != 1 {
			continue
		}
		agg := sub.Aggs[0].Expr
		if (agg.Name != "max" && agg.Name != "min") || agg.Distinct || agg.Filter != nil || len(agg.Args) != 1 || agg.Args[0].Kind != plan.ColRef {
			continue
		}
		subScan, subPreds, ok := singleTable(sub.Inputs[0])
		if !ok || subScan.Table != scan.Table || ordinalOf(subScan, agg.Args[0].Col) != o {
			continue
		}
		rest := append(append([]*plan.Expr(nil), preds[:i]...), preds[i+1:]...)
		if !sameConjuncts(r, rest, remap(subPreds, columnMap(scan, subScan))) {
			continue
		}
		var body *plan.Node = scan
		if len(rest) > 0 {
			body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{scan}, Preds: rest}
		}
		desc := agg.Name == "max"
		sort := &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{body}, Keys: []plan.SortKey{{Expr: plan.NewCol(c, p.Args[0].Typ), Desc: desc, NullsFirst: desc}}}
		*slot = &plan.Node{Op: plan.OpLimit, Inputs: []*plan.Node{sort}, Limit: plan.NewConst(catalog.Int, "1")}
		return true
	}
	return false
}

// sameConjuncts compares two conjunct lists as sets by canonical text.
func sameConjuncts(r *ruleCtx, a, b []*plan.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	f := r.formatter(true)
	count := map[string]int{}
	for _, e := range a {
		count[f.Expr(e)]++
	}
	for _, e := range b {
		k := f.Expr(e)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// orderLimitToMax: Project(c)(Limit 1 (Sort c DESC (x))) ⇒
// Project(MAX(c))(Aggregate(x)), ASC with MIN, when c is not NULL in x (or
// NULLs sort last). Equivalent only if x is not empty: over no rows MAX
// returns one NULL row and LIMIT returns none. The assumption is named.
func orderLimitToMax(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpProject || len(n.Proj) != 1 || n.Proj[0].Expr.Kind != plan.ColRef {
		return false
	}
	lim := n.Inputs[0]
	if lim.Op != plan.OpLimit || lim.Offset != nil || lim.Limit == nil || lim.Limit.Kind != plan.Const || lim.Limit.Value != "1" {
		return false
	}
	sort := lim.Inputs[0]
	if sort.Op != plan.OpSort || len(sort.Keys) != 1 || sort.Keys[0].Expr.Kind != plan.ColRef {
		return false
	}
	c := n.Proj[0].Expr.Col
	k := sort.Keys[0]
	if k.Expr.Col != c {
		return false
	}
	x := sort.Inputs[0]
	if !r.props(x).NotNull.Has(c) && k.NullsFirst {
		return false
	}
	name := "min"
	if k.Desc {
		name = "max"
	}
	cm := *r.p.Meta.Col(c)
	typ := cm.Type
	id := r.p.Meta.AddColumn(plan.ColumnMeta{Name: name, Type: typ, Instance: -1, Ordinal: -1})
	// The projection's output gets a fresh id: keeping c while defining it
	// as #id, with id := max(#c) reading x's c, would make c its own
	// definition (a cycle every renderer recurses on forever). Readers of
	// the projection's c above n move to the new id.
	out := r.p.Meta.AddColumn(plan.ColumnMeta{Name: cm.Name, Type: typ, Instance: -1, Ordinal: -1})
	plan.ReplaceColsOutside(r.p.Root, n, map[plan.ColumnID]*plan.Expr{c: plan.NewCol(out, typ)})
	agg := &plan.Node{Op: plan.OpAggregate, Inputs: []*plan.Node{x}, Aggs: []plan.ProjItem{{ID: id, Expr: &plan.Expr{Kind: plan.Agg, Name: name, Typ: typ, Args: []*plan.Expr{plan.NewCol(c, typ)}, Pos: -1}}}}
	n.Inputs[0] = agg
	n.Proj[0] = plan.ProjItem{ID: out, Expr: plan.NewCol(id, typ)}
	r.assume(Assumption{Kind: AssumeNonEmpty, Subject: relationName(x)})
	return true
}

// relationName names the rows an assumption is about.
func relationName(x *plan.Node) string {
	if scan, preds, ok := singleTable(x); ok {
		if len(preds) == 0 {
			return scan.Table.Name
		}
		return "the rows of " + scan.Table.Name + " that pass the filter"
	}
	return "the input"
}

// setOpToPredicate: (SELECT k FROM t WHERE φ) INTERSECT (SELECT k FROM t
// WHERE ψ) ⇒ SELECT k FROM t WHERE φ AND ψ; UNION ⇒ φ OR ψ. Sound when
// the selected columns contain a key of t (unique and not null): then the
// set operation's duplicate removal removes nothing the predicate form
// keeps.
func setOpToPredicate(kind plan.SetKind) func(r *ruleCtx, slot **plan.Node) bool {
	return func(r *ruleCtx, slot **plan.Node) bool {
		n := *slot
		if n.Op != plan.OpSetOp || n.Set != kind || n.All {
			return false
		}
		type branch struct {
			defs  map[plan.ColumnID]*plan.Expr // projected columns, if a projection remains
			scan  *plan.Node
			preds []*plan.Expr
		}
		var bs [2]branch
		for i, in := range n.Inputs {
			defs := map[plan.ColumnID]*plan.Expr{}
			if in.Op == plan.OpProject {
				defs = projDefs(in)
				in = in.Inputs[0]
			}
			scan, preds, ok := singleTable(in)
			if !ok {
				return false
			}
			bs[i] = branch{defs, scan, preds}
		}
		if bs[0].scan.Table != bs[1].scan.Table {
			return false
		}
		m := columnMap(bs[0].scan, bs[1].scan)
		colExpr := func(b branch, c plan.ColumnID) *plan.Expr {
			if d, ok := b.defs[c]; ok {
				return d
			}
			return plan.NewCol(c, r.p.Meta.Col(c).Type)
		}
		// The same columns, in the same order, on both sides.
		f := r.formatter(false)
		var outCols plan.ColSet
		left := make([]*plan.Expr, len(n.Cols))
		for i := range n.Cols {
			le := colExpr(bs[0], n.SetCols[0][i])
			re := remap([]*plan.Expr{colExpr(bs[1], n.SetCols[1][i])}, m)[0]
			if f.Expr(le) != f.Expr(re) {
				return false
			}
			if le.Kind == plan.ColRef {
				outCols.Add(le.Col)
			}
			left[i] = le
		}
		if !r.props(bs[0].scan).HasKeyWithin(outCols) {
			return false
		}
		rpreds := remap(bs[1].preds, m)
		var pred *plan.Expr
		if kind == plan.Intersect {
			pred = plan.And(append(append([]*plan.Expr(nil), bs[0].preds...), rpreds...))
		} else {
			l, rr := plan.And(bs[0].preds), plan.And(rpreds)
			if l == nil || rr == nil {
				pred = nil // one side keeps every row
			} else {
				pred = plan.NewOp(plan.OpOr, catalog.Bool, l, rr)
			}
		}
		var body *plan.Node = bs[0].scan
		if pred != nil {
			body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{body}, Preds: []*plan.Expr{pred}}
		}
		out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{body}}
		for i, c := range n.Cols {
			out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: left[i].Copy()})
		}
		*slot = out
		return true
	}
}

func projDefs(p *plan.Node) map[plan.ColumnID]*plan.Expr {
	m := map[plan.ColumnID]*plan.Expr{}
	for _, it := range p.Proj {
		m[it.ID] = it.Expr
	}
	return m
}

// selfUnion: q UNION q ⇒ DISTINCT q (which the planner reduces to q when q
// is free of duplicates). The published rule drops the DISTINCT, which is
// wrong when q has duplicates.
func selfUnion(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSetOp || n.Set != plan.Union || n.All {
		return false
	}
	// Rendering both inputs costs their size; a chain of n UNIONs would
	// render O(n²). Inputs of different shapes cannot render alike, and
	// comparing shapes in lockstep stops at the smaller input.
	if !sameShape(n.Inputs[0], n.Inputs[1]) {
		return false
	}
	f := r.formatter(true)
	if f.Node(n.Inputs[0]) != f.Node(n.Inputs[1]) {
		return false
	}
	// Columns must be taken at the same positions on both sides.
	for i := range n.SetCols[0] {
		if f.Col(n.SetCols[0][i]) != f.Col(n.SetCols[1][i]) {
			return false
		}
	}
	// DISTINCT over exactly the union's columns of the left input.
	inner := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[0]}}
	out := &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{inner}}
	for i, c := range n.Cols {
		inner.Proj = append(inner.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(n.SetCols[0][i], r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// sameShape reports whether a and b have the same operators, tables and
// numbers of inputs and expressions, node by node: a necessary condition
// for their canonical forms to be equal. It visits at most the smaller
// tree's nodes.
func sameShape(a, b *plan.Node) bool {
	if a.Op != b.Op || a.Table != b.Table || a.Join != b.Join || a.Set != b.Set || a.All != b.All ||
		len(a.Inputs) != len(b.Inputs) || len(a.Preds) != len(b.Preds) || len(a.Proj) != len(b.Proj) ||
		len(a.Aggs) != len(b.Aggs) || len(a.GroupBy) != len(b.GroupBy) || len(a.Keys) != len(b.Keys) ||
		len(a.Rows) != len(b.Rows) || len(a.Cols) != len(b.Cols) {
		return false
	}
	for i := range a.Inputs {
		if !sameShape(a.Inputs[i], b.Inputs[i]) {
			return false
		}
	}
	return true
}

// exceptToAntiJoin: L EXCEPT R ⇒ AntiJoin(L, R, l = r) when L's output
// contains a key of L (unique, not null): EXCEPT's duplicate removal then
// removes nothing, and with no NULL on the left, EXCEPT's NULL-matching
// and the anti join's '=' agree.
func exceptToAntiJoin(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpSetOp || n.Set != plan.Except || n.All {
		return false
	}
	l, rt := n.Inputs[0], n.Inputs[1]
	lp := r.props(l)
	lcols := plan.MakeColSet(n.SetCols[0]...)
	if !lp.HasKeyWithin(lcols) {
		return false
	}
	for _, c := range n.SetCols[0] {
		if !lp.NotNull.Has(c) {
			return false
		}
	}
	var conds []*plan.Expr
	for i := range n.SetCols[0] {
		a, b := n.SetCols[0][i], n.SetCols[1][i]
		conds = append(conds, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(a, r.p.Meta.Col(a).Type), plan.NewCol(b, r.p.Meta.Col(b).Type)))
	}
	anti := &plan.Node{Op: plan.OpJoin, Join: plan.AntiJoin, Inputs: []*plan.Node{l, rt}, Preds: conds}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{anti}}
	for i, c := range n.Cols {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(n.SetCols[0][i], r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// outerRefs reports whether n reads columns it does not produce
// (correlation with an enclosing query).
func outerRefs(n *plan.Node) bool {
	produced := plan.ColSet{}
	n.WalkNodes(func(x *plan.Node) { produced.UnionWith(x.OutColSet()) })
	found := false
	n.WalkExprs(func(e *plan.Expr) {
		if !e.Cols().SubsetOf(produced) {
			found = true
		}
	})
	return found
}

// semiJoinOnKey: SemiJoin(l, r, l.a = r.k) ⇒ Project(l)(InnerJoin(l, r,
// l.a = r.k)) when r.k is a key of r: each row of l then matches at most
// one row of r, so the join neither drops nor repeats rows. (ESM+ rule 12;
// with rule 17 below it also covers c IN (SELECT c FROM t WHERE φ).)
func semiJoinOnKey(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.SemiJoin || len(n.Preds) == 0 {
		return false
	}
	l, rt := n.Inputs[0], n.Inputs[1]
	if outerRefs(rt) {
		return false
	}
	lcols, rcols := l.OutColSet(), rt.OutColSet()
	var keyCols plan.ColSet
	for _, p := range n.Preds {
		a, b, ok := plan.ColEquality(p)
		if !ok {
			return false
		}
		switch {
		case lcols.Has(a) && rcols.Has(b):
			keyCols.Add(b)
		case lcols.Has(b) && rcols.Has(a):
			keyCols.Add(a)
		default:
			return false
		}
	}
	if !r.props(rt).HasKeyWithin(keyCols) {
		return false
	}
	out := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{l, rt}, Preds: n.Preds}}}
	for _, c := range l.OutCols() {
		out.Proj = append(out.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, r.p.Meta.Col(c).Type)})
	}
	*slot = out
	return true
}

// selfJoinOnKey: InnerJoin(t AS a, t AS b, a.k = b.k, ...) ⇒ t AS a with
// b's filters and references moved onto a, when k is a key of t: each row
// joins exactly itself.
func selfJoinOnKey(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) < 2 {
		return false
	}
	i, j, ok := selfJoinPair(n)
	if !ok {
		return false
	}
	sa, pa, _ := singleTable(n.Inputs[i])
	sb, pb, _ := singleTable(n.Inputs[j])
	var rest []*plan.Expr
	for _, p := range n.Preds {
		if a, b, ok := plan.ColEquality(p); ok {
			oa, ob := ordinalOf(sa, a), ordinalOf(sb, b)
			if oa < 0 {
				oa, ob = ordinalOf(sa, b), ordinalOf(sb, a)
			}
			if oa >= 0 && oa == ob {
				continue
			}
		}
		rest = append(rest, p)
	}
	m := columnMap(sa, sb)
	var body *plan.Node = sa
	if preds := append(append([]*plan.Expr(nil), pa...), remap(pb, m)...); len(preds) > 0 {
		body = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{sa}, Preds: preds}
	}
	var ins []*plan.Node
	for k, in := range n.Inputs {
		switch k {
		case i:
			ins = append(ins, body)
		case j:
		default:
			ins = append(ins, in)
		}
	}
	n.Inputs = ins
	n.Preds = remap(rest, m)
	plan.ReplaceColsOutside(r.p.Root, nil, m)
	return true
}

// selfJoinPair finds inputs i, j of inner join n that scan the same table
// (under filters) and that n's predicates equate on every column of one
// of its keys, position by position; of several such pairs, the first in
// (i, j) order. It indexes columns by input and so reads each predicate
// once: a join of hundreds of instances of one table (CTE fan-out) would
// otherwise cost inputs² × predicates.
func selfJoinPair(n *plan.Node) (int, int, bool) {
	scans := make([]*plan.Node, len(n.Inputs))
	owner := map[plan.ColumnID]int{}
	for i, in := range n.Inputs {
		if s, _, ok := singleTable(in); ok {
			scans[i] = s
			for _, c := range s.Cols {
				owner[c] = i
			}
		}
	}
	type pair struct{ i, j int }
	equated := map[pair]map[int]bool{}
	for _, p := range n.Preds {
		a, b, ok := plan.ColEquality(p)
		if !ok {
			continue
		}
		ia, oka := owner[a]
		ib, okb := owner[b]
		if !oka || !okb || ia == ib || scans[ia].Table != scans[ib].Table {
			continue
		}
		o := ordinalOf(scans[ia], a)
		if o < 0 || o != ordinalOf(scans[ib], b) {
			continue
		}
		for _, pr := range [2]pair{{ia, ib}, {ib, ia}} {
			if equated[pr] == nil {
				equated[pr] = map[int]bool{}
			}
			equated[pr][o] = true
		}
	}
	pairs := make([]pair, 0, len(equated))
	for pr := range equated {
		pairs = append(pairs, pr)
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if c := cmp.Compare(x.i, y.i); c != 0 {
			return c
		}
		return cmp.Compare(x.j, y.j)
	})
	for _, pr := range pairs {
		for _, k := range scans[pr.i].Table.Keys() {
			all := true
			for _, o := range k {
				if !equated[pr][o] {
					all = false
				}
			}
			if all {
				return pr.i, pr.j, true
			}
		}
	}
	return 0, 0, false
}

// fkJoinElimination: InnerJoin(child, parent, child.fk = parent.pk) ⇒
// child, when the foreign key child.fk → parent.pk holds, the parent is
// unfiltered and nothing reads its other columns: every child row with a
// non-NULL fk matches exactly one parent row. A nullable fk keeps
// "fk IS NOT NULL". An unenforced key (trust_foreign_keys=false) makes the
// proof rest on a named assumption.
func fkJoinElimination(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpJoin || n.Join != plan.InnerJoin || len(n.Inputs) < 2 {
		return false
	}
	for pi, parent := range n.Inputs {
		if parent.Op != plan.OpScan {
			continue
		}
		pcols := parent.OutColSet()
		for ci, childIn := range n.Inputs {
			if ci == pi {
				continue
			}
			child, _, ok := singleTable(childIn)
			if !ok {
				continue
			}
			for _, fk := range child.Table.ForeignKeys {
				if !r.schema.NameEqual(fk.RefTable, parent.Table.Name) || !refersToKey(parent.Table, fk.RefColumns) {
					continue
				}
				// Every fk column equated with its referenced column.
				used := map[int]bool{}
				var rest []*plan.Expr
				for _, p := range n.Preds {
					matched := false
					if a, b, ok := plan.ColEquality(p); ok {
						for k := range fk.Columns {
							ca, pb := child.Cols[fk.Columns[k]], parent.Cols[fk.RefColumns[k]]
							if (a == ca && b == pb) || (a == pb && b == ca) {
								used[k] = true
								matched = true
							}
						}
					}
					if !matched {
						rest = append(rest, p)
					}
				}
				if len(used) != len(fk.Columns) {
					continue
				}
				// Parent columns may be read only where they equal fk columns.
				m := map[plan.ColumnID]*plan.Expr{}
				for k := range fk.Columns {
					o := fk.Columns[k]
					m[parent.Cols[fk.RefColumns[k]]] = plan.NewCol(child.Cols[o], child.Table.Columns[o].Type)
				}
				if readsOtherThan(r.p.Root, parent, pcols, m) || exprsRead(rest, pcols, m) {
					continue
				}
				var notNull []*plan.Expr
				for _, o := range fk.Columns {
					if !child.Table.Columns[o].NotNull {
						notNull = append(notNull, plan.NewOp(plan.OpIsNotNull, catalog.Bool, plan.NewCol(child.Cols[o], child.Table.Columns[o].Type)))
					}
				}
				var ins []*plan.Node
				for k, in := range n.Inputs {
					if k == pi {
						continue
					}
					if k == ci && len(notNull) > 0 {
						in = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: notNull}
					}
					ins = append(ins, in)
				}
				n.Inputs = ins
				n.Preds = rest
				plan.ReplaceColsOutside(r.p.Root, nil, m)
				if !r.trustFK {
					var subj string
					for k, o := range fk.Columns {
						if k > 0 {
							subj += ", "
						}
						subj += child.Table.Name + "." + child.Table.Columns[o].Name + " references " + parent.Table.Name + "." + parent.Table.Columns[fk.RefColumns[k]].Name
					}
					r.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
				}
				return true
			}
		}
	}
	return false
}

// readsOtherThan reports whether the plan reads a column of cols that m
// cannot replace, outside the node skip.
func readsOtherThan(root, skip *plan.Node, cols plan.ColSet, m map[plan.ColumnID]*plan.Expr) bool {
	found := false
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		if n == nil || n == skip || found {
			return
		}
		if n.Op != plan.OpJoin || n.Join != plan.InnerJoin {
			n.Exprs(func(s **plan.Expr) {
				plan.WalkDeep(*s, func(x *plan.Expr) {
					if x.Kind == plan.ColRef && cols.Has(x.Col) {
						if _, ok := m[x.Col]; !ok {
							found = true
						}
					}
				})
			})
		}
		for _, g := range n.GroupBy {
			if _, ok := m[g]; cols.Has(g) && !ok {
				found = true
			}
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(root)
	return found
}

func exprsRead(es []*plan.Expr, cols plan.ColSet, m map[plan.ColumnID]*plan.Expr) bool {
	for _, e := range es {
		for _, c := range e.Cols().Ordered() {
			if _, ok := m[c]; cols.Has(c) && !ok {
				return true
			}
		}
	}
	return false
}

// distinctJoinToSemi: Distinct(Project(InnerJoin(l, r, p))) ⇒
// Distinct(Project(SemiJoin(l, r, p))) when nothing above the join reads
// r: under DISTINCT it only matters whether a row of l has a match, not
// how many.
func distinctJoinToSemi(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpDistinct || n.Inputs[0].Op != plan.OpProject {
		return false
	}
	proj := n.Inputs[0]
	j := proj.Inputs[0]
	if j.Op != plan.OpJoin || j.Join != plan.InnerJoin || len(j.Inputs) < 2 {
		return false
	}
	read := plan.ColSet{}
	for _, it := range proj.Proj {
		read.UnionWith(it.Expr.Cols())
	}
	for i := len(j.Inputs) - 1; i >= 0; i-- {
		rt := j.Inputs[i]
		rcols := rt.OutColSet()
		if read.Intersects(rcols) || outerRefs(rt) {
			continue
		}
		var cond, keep []*plan.Expr
		for _, p := range j.Preds {
			if p.Cols().Intersects(rcols) {
				cond = append(cond, p)
			} else {
				keep = append(keep, p)
			}
		}
		var rest []*plan.Node
		rest = append(rest, j.Inputs[:i]...)
		rest = append(rest, j.Inputs[i+1:]...)
		var left *plan.Node
		if len(rest) == 1 && len(keep) == 0 {
			left = rest[0]
		} else {
			left = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: rest, Preds: keep}
		}
		proj.Inputs[0] = &plan.Node{Op: plan.OpJoin, Join: plan.SemiJoin, Inputs: []*plan.Node{left, rt}, Preds: cond}
		return true
	}
	return false
}

// aggDistinctRedundant: MAX(DISTINCT c) ⇒ MAX(c) and MIN likewise, always;
// COUNT/SUM/AVG(DISTINCT c) ⇒ without DISTINCT when c alone is a key of
// the aggregate's input, so its values are already distinct.
func aggDistinctRedundant(r *ruleCtx, slot **plan.Node) bool {
	n := *slot
	if n.Op != plan.OpAggregate {
		return false
	}
	var props *plan.Props
	fired := false
	for _, a := range n.Aggs {
		e := a.Expr
		if !e.Distinct || len(e.Args) != 1 {
			continue
		}
		switch e.Name {
		case "max", "min":
			e.Distinct = false
			fired = true
		case "count", "sum", "avg":
			if e.Args[0].Kind != plan.ColRef {
				continue
			}
			if props == nil {
				props = r.props(n.Inputs[0])
			}
			if props.HasKeyWithin(plan.MakeColSet(e.Args[0].Col)) {
				e.Distinct = false
				fired = true
			}
		}
	}
	return fired
}

// refersToKey reports whether cols contain a key of t (unique and not
// null), so each foreign key value matches at most one row. PostgreSQL
// demands this of a foreign key; schemas written for other engines may
// not.
func refersToKey(t *catalog.Table, cols []int) bool {
	in := map[int]bool{}
	for _, c := range cols {
		in[c] = true
	}
	for _, k := range t.Keys() {
		all := true
		for _, o := range k {
			if !in[o] {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// Package norm rewrites logical plans into a canonical form: equivalent
// surface forms of a query give identical plans. Every rule is small,
// named, sound under bag semantics and three-valued logic, and recorded in
// Plan.Rules when it fires. When a rule cannot prove its precondition from
// the schema's declared constraints, it leaves the plan alone.
package norm

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// maxPasses bounds the fixpoint loop; every rule makes the plan smaller
// or more canonical, so a handful of passes suffices in practice.
const maxPasses = 8

// Normalize rewrites p in place and returns it.
func Normalize(p *plan.Plan) (*plan.Plan, error) {
	return NormalizeContext(context.Background(), p)
}

// NormalizeContext is Normalize that stops, with ctx's error, soon after
// ctx is done: it checks between rule applications and every few hundred
// expressions.
func NormalizeContext(ctx context.Context, p *plan.Plan) (*plan.Plan, error) {
	z := &normalizer{ctx: ctx, p: p, fired: map[string]bool{}}
	z.probe, _ = ctx.Value(firingProbeKey{}).(*firingProbe)
	// The fresh-formatter cross-check costs a walk of the plan per sort
	// key; keep debug builds usable on large plans by checking small ones.
	z.checkKeys = debugChecks && planSize(p.Root, maxCheckedSize) <= maxCheckedSize || verifyCaches
	z.checkCaches = z.checkKeys
	z.baseListed = z.anyListsBase(p.Root)
	if z.stopped() {
		return nil, fmt.Errorf("normalize: %w", z.err)
	}
	if p.Raises, p.RaisesAlways = planRaises(p); p.Raises != "" {
		// PostgreSQL answers with an error: the rules would fold the part
		// that fails away (raises.go).
		return p, nil
	}
	for pass := 0; pass < maxPasses; pass++ {
		z.changed = false
		p.Root = z.node(p.Root, flags{keepOrder: true, keepCols: true})
		if !z.changed || z.err != nil {
			break
		}
	}
	// Canonical ordering last, once the structure is final.
	if z.err == nil {
		p.Root = z.canonicalOrder(p.Root)
	}
	if z.err == errFiringLimit {
		p.Rules = z.order
		return p, nil
	}
	if z.err != nil {
		return nil, fmt.Errorf("normalize: %w", z.err)
	}
	p.Rules = z.order
	if debugChecks {
		if err := plan.CheckDefinitions(p); err != nil {
			return nil, fmt.Errorf("normalize: %w", err)
		}
	}
	return p, nil
}

type normalizer struct {
	ctx     context.Context
	p       *plan.Plan
	fired   map[string]bool
	order   []string
	changed bool
	// err is ctx's error once it is done; every loop then unwinds.
	err   error
	ticks int
	// fm is the anonymous formatter for sort keys, built from the plan as
	// it was when it was last reset. It memoizes the text of computed
	// columns, so it must be reset whenever a change could alter that
	// text: a change inside a column's definition (inDef > 0, which
	// covers subqueries nested in one), or a rule that adds, removes or
	// rewrites definitions (fire). Changes elsewhere (fireLocal outside
	// definitions) leave every definition and its text as they were, so
	// the formatter stays exact; rebuilding it after each of them cost
	// time quadratic in the plan's size.
	fm *plan.Formatter
	// inDef counts the computed-column definitions (projection and
	// aggregate items) being normalized around the current expression.
	inDef int
	// bare renders the keys of expressions that read only base columns
	// and hold no subquery (see bareKey): their text is the same from any
	// formatter, so they need no formatter of the whole plan. fm is
	// rebuilt after every firing that may change a definition, and the
	// keys asked for next were nearly all of such expressions (TPC-DS
	// query 14a: 158 formatters of a 2,300-node plan per normalization).
	bare *plan.Formatter
	// baseListed: a set operation or VALUES list of the plan lists a base
	// column among its outputs, which the formatter would name by its
	// place in the list, or an aggregate computes one (bare is not used
	// then).
	baseListed bool
	// dv memoizes derived properties; it is reset on every change.
	dv *plan.Deriver
	// checkKeys: verify each sort key against a fresh formatter (debug
	// builds, small plans).
	checkKeys bool
	// checkCaches: verify each answer of colsReadOutside's shortened
	// walk against a walk of the whole plan (checkKeys, or verifyCaches
	// in tests).
	checkCaches bool
	// probe, set only by the soundness tests, counts rule firings and
	// may stop normalization after a given number of them.
	probe *firingProbe
	// ints says which integer-typed expressions hold only integers; built
	// on first use (intValued).
	ints *plan.IntegerChecker
	// chain counts the node rules fired in a row on one node (each
	// rewrite is normalized again at once); cycled is set once a chain
	// passes maxRuleChain, and no node rule fires after.
	chain  int
	cycled bool
}

// verifyCaches makes every normalization check its sort keys and the
// columns read outside a node against fresh walks of the whole plan (set
// by tests: CheckCaches).
var verifyCaches = false

// maxRuleChain bounds the node rules fired in a row on one node. Rules
// that undo each other would otherwise recurse until the stack overflows,
// which ends the process whatever its deadline. Every firing keeps the
// plan equivalent, so stopping leaves a correct plan, only a less
// normalized one. A chain is as long as the rewrites it sets off below
// the node (a filter pushed through every level of a deep plan), so the
// bound is far above any plan the limits let through, and far below a
// stack overflow.
const maxRuleChain = 10000

// intValued reports whether e takes only integer values (or NULL): any
// integer-typed expression in PostgreSQL, only those SQLite keeps to
// integers in SQLite (plan.IntegerChecker). Column definitions are read
// once; columns a rule adds later are not integer-valued to it, which
// only keeps a rule from firing.
func (z *normalizer) intValued(e *plan.Expr) bool {
	if e.Typ != catalog.Int {
		return false
	}
	if z.p.Meta == nil || z.p.Meta.Dialect != catalog.SQLite {
		return true
	}
	if z.ints == nil {
		z.ints = plan.NewIntegerChecker(z.p)
	}
	return z.ints.Expr(e)
}

// maxCheckedSize is the largest plan whose sort keys debug builds verify.
const maxCheckedSize = 2000

// planSize counts nodes and expressions under n, subqueries included,
// stopping once past limit.
func planSize(n *plan.Node, limit int) int {
	size := 0
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			size++
			x.Exprs(func(s **plan.Expr) {
				plan.Walk(*s, func(e *plan.Expr) {
					if size++; e.Kind == plan.Subquery && size <= limit {
						walk(e.Sub)
					}
				})
			})
		})
	}
	walk(n)
	return size
}

// checkEvery is how many steps pass between looks at the context: a step
// can rebuild a formatter over the whole plan, so few steps pass between
// looks (ctx.Err costs tens of nanoseconds).
const checkEvery = 16

// stopped reports whether normalization must stop because ctx is done,
// looking at ctx every checkEvery calls.
func (z *normalizer) stopped() bool {
	if z.err != nil {
		return true
	}
	z.ticks++
	if z.ticks%checkEvery == 1 {
		z.err = z.ctx.Err()
	}
	return z.err != nil
}

// derive returns n's properties, memoized until the next change.
func (z *normalizer) derive(n *plan.Node) *plan.Props {
	if z.dv == nil {
		z.dv = plan.NewDeriver(z.p.Meta)
	}
	return z.dv.Derive(n)
}

// formatter returns the anonymous formatter for the current plan.
func (z *normalizer) formatter() *plan.Formatter {
	if z.fm == nil {
		z.fm = plan.NewFormatter(z.p.Meta, z.p.Root, true)
	}
	return z.fm
}

// fire records a rule that may have changed definitions of computed
// columns anywhere in the plan.
func (z *normalizer) fire(rule string) {
	z.fm = nil
	z.fireLocal(rule)
}

// fireLocal records a rule whose change is confined to the expression or
// node it rewrote.
func (z *normalizer) fireLocal(rule string) {
	if z.inDef > 0 {
		z.fm = nil
	}
	z.dv = nil
	z.changed = true
	if z.probe != nil && z.err == nil {
		z.probe.fired++
		z.probe.last = rule
		if z.probe.limit > 0 && z.probe.fired >= z.probe.limit {
			z.err = errFiringLimit
		}
	}
	z.stopped()
	if !z.fired[rule] {
		z.fired[rule] = true
		z.order = append(z.order, rule)
	}
}

// touched notes a change that is not a rule.
func (z *normalizer) touched() {
	if z.inDef > 0 {
		z.fm = nil
	}
	z.dv = nil
}

// eachExpr is n.Exprs in the same order, counting definitions in inDef.
func (z *normalizer) eachExpr(n *plan.Node, f func(slot **plan.Expr)) {
	n.ExprsByRole(func(slot **plan.Expr, definition bool) {
		if definition {
			z.inDef++
			defer func() { z.inDef-- }()
		}
		f(slot)
	})
}

// key is the canonical sort key of an expression: its text without
// instance numbers, so it does not depend on the order tables were seen.
func (z *normalizer) key(e *plan.Expr) string {
	if z.bareKey(e) {
		if z.bare == nil {
			z.bare = plan.NewFormatter(z.p.Meta, nil, true)
		}
		k := z.bare.Expr(e)
		if z.checkKeys {
			z.checkFresh(k, func(f *plan.Formatter) string { return f.Expr(e) })
		}
		return k
	}
	k := z.formatter().Expr(e)
	if z.checkKeys {
		z.checkFresh(k, func(f *plan.Formatter) string { return f.Expr(e) })
	}
	return k
}

// bareKey says a formatter renders e from e alone, whatever the plan
// defines: e holds no subquery and reads only base columns (of a table
// instance), which the anonymous formatter names table.column. Only the
// columns a plan defines (projections, aggregates, windows) or lists as
// a set operation's or VALUES list's outputs read otherwise; no builder
// or rule lists a base column there (baseListed, checked on the plan
// given and on every such node normalized, turns this off if one does).
func (z *normalizer) bareKey(e *plan.Expr) bool {
	if z.baseListed || z.p.Meta == nil {
		return false
	}
	cols := z.p.Meta.Columns
	bare := true
	plan.Walk(e, func(x *plan.Expr) {
		switch x.Kind {
		case plan.Subquery:
			bare = false
		case plan.ColRef:
			if int(x.Col) < 0 || int(x.Col) >= len(cols) || cols[x.Col].Instance < 0 {
				bare = false
			}
		}
	})
	return bare
}

// listsBase says n is a set operation or VALUES list with a base column
// among its outputs, or an aggregate computing one (the formatter takes
// every aggregate's call for its column's definition).
func (z *normalizer) listsBase(n *plan.Node) bool {
	if z.p.Meta == nil {
		return false
	}
	base := func(c plan.ColumnID) bool {
		return int(c) >= 0 && int(c) < len(z.p.Meta.Columns) && z.p.Meta.Columns[c].Instance >= 0
	}
	for _, a := range n.Aggs {
		if base(a.ID) {
			return true
		}
	}
	if n.Op != plan.OpSetOp && n.Op != plan.OpValues {
		return false
	}
	for _, c := range n.Cols {
		if base(c) {
			return true
		}
	}
	return false
}

// anyListsBase is listsBase over every node of the plan at n, subqueries
// included.
func (z *normalizer) anyListsBase(n *plan.Node) bool {
	found := false
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if found || z.listsBase(x) {
				found = true
				return
			}
			x.Exprs(func(s **plan.Expr) {
				plan.Walk(*s, func(e *plan.Expr) {
					if e.Kind == plan.Subquery && e.Sub != nil && !found {
						walk(e.Sub)
					}
				})
			})
		})
	}
	if n != nil {
		walk(n)
	}
	return found
}

func (z *normalizer) nodeKey(n *plan.Node) string {
	k := z.formatter().Node(n)
	if z.checkKeys {
		z.checkFresh(k, func(f *plan.Formatter) string { return f.Node(n) })
	}
	return k
}

// checkFresh verifies, in debug builds, that the kept formatter renders
// as a new one would: that fm was reset wherever it had to be.
func (z *normalizer) checkFresh(got string, render func(*plan.Formatter) string) {
	if want := render(plan.NewFormatter(z.p.Meta, z.p.Root, true)); want != got && z.err == nil {
		z.err = fmt.Errorf("stale sort key %q, fresh %q", got, want)
	}
}

// noAffinity, in the sqlite dialect, says an expression has no type
// affinity (SQLite's: only a column, a CAST and a scalar subquery of one
// have one; a subquery's column has its expression's, a compound's its
// arms' where they agree), so a literal compared with it is not
// converted; nil in PostgreSQL, which types the literal from its
// context.
func (z *normalizer) noAffinity() func(*plan.Expr) bool {
	if z.p.Meta == nil || z.p.Meta.Dialect != catalog.SQLite {
		return nil
	}
	return func(e *plan.Expr) bool {
		switch e.Kind {
		case plan.Cast, plan.Subquery:
			return false
		case plan.ColRef:
			if z.p.Meta.Col(e.Col).Instance >= 0 {
				return false
			}
			// A subquery's or compound's column: the affinity SQLite
			// gives it, read off the plan as written (a compound's arms
			// count even where a rule has since dropped one).
			a := plan.SQLiteColumnAffinities(z.p.Root, z.p.Meta)[e.Col]
			return a == plan.AffNone || a == plan.AffMixed
		}
		return true
	}
}

// scalar normalizes an expression bottom-up to a fixpoint of the scalar
// rules, and normalizes the plans of subqueries inside it.
func (z *normalizer) scalar(e *plan.Expr) *plan.Expr {
	return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
		if z.stopped() {
			return x
		}
		if x.Kind == plan.Subquery {
			// SQLite's scalar subquery of several rows yields its first
			// row: an ORDER BY there picks the row.
			x.Sub = z.node(x.Sub, flags{keepCols: true, readsOrder: x.SubKind == plan.SubScalar})
		}
		// z.err: a rule may not fire past a stop (see firingProbe).
		for i := 0; i < 16 && z.err == nil; i++ {
			var rule string
			for _, r := range scalarRules {
				if r.postgres && !z.postgres() {
					continue
				}
				if y, ok := r.scalar(z, x); ok {
					x, rule = y, r.Name
					break
				}
			}
			if rule == "" {
				return x
			}
			// Scalar rules rewrite only the expression in hand.
			z.fireLocal(rule)
			// A rule may have built new children: normalize them too.
			x.Children(func(s **plan.Expr) { *s = z.scalar(*s) })
		}
		return x
	})
}

// flags say what a node's parent observes of it.
type flags struct {
	// keepOrder: the row order matters (the outermost query's ORDER BY,
	// or a Sort under LIMIT).
	keepOrder bool
	// keepCols: the exact output columns matter (query root, DISTINCT's
	// input, a subquery compared by IN).
	keepCols bool
	// nullSide: an outer join above null-extends this subtree's rows, so
	// a column defined here reads NULL above the join on those rows,
	// whatever its definition says.
	nullSide bool
	// readsOrder: a consumer above reads the order of the rows it gets
	// (string_agg, array_agg, float sum, row_number() OVER () ...), so a
	// subquery's ORDER BY below it may decide its result and is kept
	// (issue 18, cause 15). It passes through every operator but an
	// aggregate or window that reads no order.
	readsOrder bool
}

func childFlags(n *plan.Node, f flags) flags {
	cf := childFlagsOrder(n, f)
	switch n.Op {
	case plan.OpAggregate:
		cf.readsOrder = plan.ReadsInputOrder(n)
	case plan.OpWindow:
		cf.readsOrder = f.readsOrder || plan.ReadsInputOrder(n)
	default:
		cf.readsOrder = f.readsOrder
	}
	return cf
}

func childFlagsOrder(n *plan.Node, f flags) flags {
	switch n.Op {
	case plan.OpProject:
		// Only the query's own ORDER BY sits right below its projection;
		// a derived table's projection below it sees no order.
		in := n.Inputs[0].Op
		return flags{keepOrder: f.keepOrder && (in == plan.OpSort || in == plan.OpLimit)}
	case plan.OpDistinct:
		return flags{keepCols: true}
	case plan.OpLimit:
		return flags{keepOrder: true, keepCols: f.keepCols}
	case plan.OpSort, plan.OpFilter, plan.OpWindow:
		return flags{keepCols: f.keepCols}
	}
	return flags{}
}

// node normalizes the subtree at n, children first.
func (z *normalizer) node(n *plan.Node, f flags) *plan.Node {
	cf := childFlags(n, f)
	cf.nullSide = f.nullSide
	for i, in := range n.Inputs {
		inf := cf
		if n.Op == plan.OpJoin && (n.Join == plan.FullJoin || n.Join == plan.LeftJoin && i == 1 || n.Join == plan.RightJoin && i == 0) {
			inf.nullSide = true
		}
		n.Inputs[i] = z.node(in, inf)
	}
	if z.listsBase(n) {
		z.baseListed = true
	}
	z.eachExpr(n, func(s **plan.Expr) { *s = z.scalar(*s) })
	if n.Op == plan.OpFilter || n.Op == plan.OpJoin {
		if ps, changed := splitConjuncts(n.Preds); changed {
			n.Preds = ps
			z.touched()
		}
	}
	if z.cycled {
		return n
	}
	for _, r := range nodeRules {
		if z.stopped() {
			return n
		}
		if out, ok := r.apply(z, n, f); ok {
			if r.local {
				z.fireLocal(r.name)
			} else {
				z.fire(r.name)
			}
			if z.chain++; z.chain > maxRuleChain {
				z.cycled = true
				return out
			}
			out = z.node(out, f)
			z.chain--
			return out
		}
	}
	return n
}

// splitConjuncts drops TRUE conjuncts and splits ANDs; it reports
// whether that changed anything.
func splitConjuncts(ps []*plan.Expr) ([]*plan.Expr, bool) {
	changed := false
	for _, p := range ps {
		if p.IsTrue() || p.IsOp(plan.OpAnd) {
			changed = true
			break
		}
	}
	if !changed {
		return ps, false
	}
	var out []*plan.Expr
	for _, p := range ps {
		if p.IsTrue() {
			continue
		}
		out = append(out, plan.Conjuncts(p)...)
	}
	return out, true
}

package gmntrain

import (
	"math/rand/v2"
	"reflect"
	"slices"

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

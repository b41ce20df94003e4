// Package prove decides the equivalence of two normalized logical plans
// on a normal form, rather than by comparing their printed texts.
//
// Plans lower to a small algebra: query blocks (a bag of relation
// occurrences, the conjuncts that filter their product, semi- and
// anti-joined sub-blocks, output expressions), unions, distinct and
// grouping nodes, outer joins, sorts and limits. Two plans are proved
// equivalent fragment by fragment:
//
//   - bijection: the relation occurrences of two blocks pair up (same
//     table, or sub-plans proved equivalent), in any join order and with
//     self-join instances in either role; the search backtracks.
//   - predicates: under that pairing the conjuncts are equivalent under
//     three-valued logic (WHERE keeps TRUE only); see pred.go.
//   - outputs: the output expressions take equal values in every row the
//     predicate keeps.
//   - empty: a block whose conjuncts no row satisfies, LIMIT 0, an empty
//     input of a join, returns no row; two empty relations of the same
//     columns are equivalent and an empty UNION ALL branch drops out. An
//     aggregate without GROUP BY over an empty input still yields a row,
//     so it is never empty.
//   - structure: distinct, aggregate (same grouping columns, same
//     aggregate calls over equivalent inputs), set operations (UNION ALL
//     and UNION branches in any order), outer joins, sorts and limits
//     compare their inputs recursively.
//
// Every proof names its steps (Result.Rules), each a rule of the
// registry (registry.go): "name" or "name: detail", the detail saying
// what the step applied to. The procedure is sound by
// construction and incomplete: Proved false means "not proved", never
// "different".
package prove

import (
	"context"
	"errors"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Options are the prover's policies.
type Options struct {
	// TrustForeignKeys says declared foreign keys hold; when false, a
	// proof that needs one names it in Result.Assumptions.
	TrustForeignKeys bool
	// SQLite says the plans are of the sqlite dialect: no date arithmetic
	// is folded (SQLite's dates are text and its date() differs).
	SQLite bool
	// Debug, when set, receives notes on why a proof failed (for
	// debugging a suite: TestDebugSuite).
	Debug func(format string, args ...any)
}

// AssumeForeignKey is the kind of an assumption that a declared foreign
// key holds (the judge's kind of the same name).
const AssumeForeignKey = "foreign_key_holds"

// Assumption is a fact beyond the schema a proof rests on.
type Assumption struct {
	Kind    string
	Subject string
}

// Result is the outcome of Equivalent.
type Result struct {
	// Proved says the plans return the same bag of rows (in the same
	// order, where the reference is ordered) on every database.
	Proved bool
	// Rules names the proof's steps, once each, in order: a registered
	// rule's name, or "name: detail" (see Rule and RuleName).
	Rules []string
	// Assumptions the proof rests on, beyond the declared schema.
	Assumptions []Assumption
}

// MaxPlanSize bounds the nodes and expressions of a plan the prover
// reads; larger plans are not proved (their keys and domains alone would
// cost more than a judgement's budget).
const MaxPlanSize = 4000

// size counts nodes and expressions up to just past MaxPlanSize.
func size(n *plan.Node) int {
	s := 0
	var visit func(n *plan.Node)
	visit = func(n *plan.Node) {
		if s > MaxPlanSize {
			return
		}
		s++
		n.Exprs(func(slot **plan.Expr) {
			plan.Walk(*slot, func(x *plan.Expr) {
				s++
				if x.Kind == plan.Subquery && x.Sub != nil && s <= MaxPlanSize {
					visit(x.Sub)
				}
			})
		})
		for _, in := range n.Inputs {
			visit(in)
		}
	}
	visit(n)
	return s
}

// maxSteps bounds the pairings and enumerations one proof may try.
const maxSteps = 20000

// errBudget ends a proof search that went on too long.
var errBudget = errors.New("prove: search bound reached")

// Equivalent tries to prove that a and b, two normalized plans, are
// equivalent. It honours ctx; an error is ctx's.
func Equivalent(ctx context.Context, a, b *plan.Plan, opts Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if a == nil || b == nil || a.Root == nil || b.Root == nil || size(a.Root) > MaxPlanSize || size(b.Root) > MaxPlanSize {
		return Result{}, nil
	}
	p := &prover{ctx: ctx, opts: opts, a: a, b: b, m: map[plan.ColumnID]plan.ColumnID{}, seen: map[string]bool{}, aliasA: map[plan.ColumnID]plan.ColumnID{}, intA: map[plan.ColumnID]bool{}, intB: map[plan.ColumnID]bool{}, subMemo: map[*plan.Node]subMatch{}}
	p.nullA = nullExtended(a.Root)
	p.nullB = nullExtended(b.Root)
	p.countA, p.countB = countCols(a.Root), countCols(b.Root)
	if len(a.Root.OutCols()) != len(b.Root.OutCols()) {
		return Result{}, nil
	}
	if a.Raises != "" || b.Raises != "" {
		// PostgreSQL answers with an error, not rows, on every database
		// or may: a proof reading the plan as rows (empty, say) would
		// equate an error with a result (issue 33, item 5).
		return Result{}, nil
	}
	if plan.NodeVolatile(a.Root) != "" || plan.NodeVolatile(b.Root) != "" {
		// A volatile call (random()) has no one value to compare, even
		// between two runs of one query (issue 18, cause 13).
		return Result{}, nil
	}
	if p.emptyAnyTypes(a.Root, b.Root) || p.nullColumnsAnyType(a.Root, b.Root) {
		return Result{Proved: true, Rules: p.rules, Assumptions: p.assumed}, nil
	}
	ok, err := p.rel(a.Root, b.Root, true)
	if err == nil && !ok && hasSetOp(a.Root) != hasSetOp(b.Root) {
		// Some fragments (partition) read the union on the candidate's
		// side only: equivalence is symmetric, so try the other way.
		q := &prover{ctx: ctx, opts: opts, a: b, b: a, m: map[plan.ColumnID]plan.ColumnID{}, seen: map[string]bool{}, aliasA: map[plan.ColumnID]plan.ColumnID{}, intA: map[plan.ColumnID]bool{}, intB: map[plan.ColumnID]bool{}, subMemo: map[*plan.Node]subMatch{}, nullA: p.nullB, nullB: p.nullA, countA: p.countB, countB: p.countA, steps: p.steps}
		if ok, err = q.rel(b.Root, a.Root, true); ok {
			p = q
		}
	}
	if err != nil {
		p.note("search ended: %v after %d steps", err, p.steps)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
		return Result{}, nil
	}
	if !ok {
		p.note("not proved after %d steps", p.steps)
		return Result{}, nil
	}
	p.nameDisplayOnly()
	return Result{Proved: true, Rules: p.rules, Assumptions: p.assumed}, nil
}

type mapping struct {
	b   plan.ColumnID
	old plan.ColumnID
	had bool
}

type prover struct {
	ctx            context.Context
	opts           Options
	assumed        []Assumption
	subsA          []*plan.Node                    // the reference's uncorrelated subqueries, by key number
	subSameA       map[*plan.Node]sameSub          // reference subqueries keyed as an earlier one of subsA (subsame.go)
	aliasA         map[plan.ColumnID]plan.ColumnID // reference columns equal to an earlier one
	intA, intB     map[plan.ColumnID]bool          // columns holding an integral EXTRACT (facts of each plan)
	intsA, intsB   *plan.IntegerChecker            // integer-valued expressions of each plan; built on first use
	subMemo        map[*plan.Node]subMatch         // candidate subqueries matched so far
	subUses        map[*plan.Node]int              // occurrences of each subquery plan in a and b (unnest.go)
	a, b           *plan.Plan
	m              map[plan.ColumnID]plan.ColumnID // b's columns to a's
	trail          []mapping
	nullA, nullB   plan.ColSet         // columns an outer join may make NULL
	countA, countB plan.ColSet         // COUNT outputs of aggregates: never NULL where not null-extended
	aggNotEmpty    map[*plan.Node]bool // aggregates without GROUP BY whose input is not proved empty
	notEmpty       map[emptyKey]bool   // nodes empty did not prove empty (emptymemo.go)
	steps          int
	rules          []string
	seen           map[string]bool
}

// displayOnly names a display-only difference a proof identified: the
// values are equal under = (what pgequiv compares) but may print
// differently. The rule says so in the verdict.
func (p *prover) displayOnly(what string) {
	p.ruleOn(ruleDisplayOnly, "%s", what)
}

func (p *prover) assume(a Assumption) {
	for _, x := range p.assumed {
		if x == a {
			return
		}
	}
	p.assumed = append(p.assumed, a)
}

// mark and undo let the search backtrack over column pairings, rules and
// assumptions.
type mark struct{ trail, rules, assumed int }

func (p *prover) mark() mark { return mark{len(p.trail), len(p.rules), len(p.assumed)} }

func (p *prover) undo(k mark) {
	for i := len(p.trail) - 1; i >= k.trail; i-- {
		t := p.trail[i]
		if t.had {
			p.m[t.b] = t.old
		} else {
			delete(p.m, t.b)
		}
	}
	p.trail = p.trail[:k.trail]
	for _, r := range p.rules[k.rules:] {
		delete(p.seen, r)
	}
	p.rules = p.rules[:k.rules]
	p.assumed = p.assumed[:k.assumed]
}

func (p *prover) set(bc, ac plan.ColumnID) {
	old, had := p.m[bc]
	p.trail = append(p.trail, mapping{b: bc, old: old, had: had})
	p.m[bc] = ac
}

func (p *prover) tick() error {
	p.steps++
	if p.steps > maxSteps {
		return errBudget
	}
	if p.steps&63 == 0 {
		return p.ctx.Err()
	}
	return nil
}

func (p *prover) colA(c plan.ColumnID) (plan.ColumnID, bool) {
	if a, ok := p.aliasA[c]; ok {
		return a, true
	}
	return c, true
}

func (p *prover) colB(c plan.ColumnID) (plan.ColumnID, bool) {
	a, ok := p.m[c]
	return a, ok
}

// nullable says whether a reference column can hold NULL: computed
// columns can, base columns unless declared NOT NULL and never
// null-extended by an outer join on either side.
func (p *prover) nullable(c plan.ColumnID) bool {
	meta := p.a.Meta.Col(c)
	if p.nullA.Has(c) {
		return true
	}
	if (meta.Instance < 0 || !meta.NotNull) && !p.countA.Has(c) {
		return true
	}
	for bc, ac := range p.m {
		if ac == c && p.nullB.Has(bc) {
			return true
		}
	}
	return false
}

func (p *prover) nullableB(c plan.ColumnID) bool {
	meta := p.b.Meta.Col(c)
	return p.nullB.Has(c) || (meta.Instance < 0 || !meta.NotNull) && !p.countB.Has(c)
}

// countCols collects the outputs of COUNT and REGR_COUNT calls of the
// aggregates in n and its subqueries: a count is a number, never NULL,
// unless an outer join above pads it (nullExtended says where).
func countCols(n *plan.Node) plan.ColSet {
	var s plan.ColSet
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x.Op == plan.OpAggregate {
				for _, a := range x.Aggs {
					if a.Expr.Kind == plan.Agg && (a.Expr.Name == "count" || a.Expr.Name == "regr_count") {
						s.Add(a.ID)
					}
				}
			}
			x.Exprs(func(slot **plan.Expr) {
				plan.Walk(*slot, func(e *plan.Expr) {
					if e.Kind == plan.Subquery && e.Sub != nil {
						walk(e.Sub)
					}
				})
			})
		})
	}
	walk(n)
	return s
}

// nullExtended collects the columns of the inputs an outer join pads with
// NULLs.
func nullExtended(n *plan.Node) plan.ColSet {
	var s plan.ColSet
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x.Op == plan.OpJoin {
				switch x.Join {
				case plan.LeftJoin:
					s.UnionWith(allCols(x.Inputs[1]))
				case plan.RightJoin:
					s.UnionWith(allCols(x.Inputs[0]))
				case plan.FullJoin:
					s.UnionWith(allCols(x.Inputs[0]))
					s.UnionWith(allCols(x.Inputs[1]))
				}
			}
			x.Exprs(func(slot **plan.Expr) {
				plan.Walk(*slot, func(e *plan.Expr) {
					if e.Kind == plan.Subquery && e.Sub != nil {
						walk(e.Sub)
					}
				})
			})
		})
	}
	walk(n)
	return s
}

// allCols is every column produced at or below n.
func allCols(n *plan.Node) plan.ColSet {
	var s plan.ColSet
	n.WalkNodes(func(x *plan.Node) {
		s.UnionWith(x.OutColSet())
		for _, it := range x.Aggs {
			s.Add(it.ID)
		}
	})
	return s
}

// mapOutputs pairs the outputs of a and b by position.
func (p *prover) mapOutputs(a, b *plan.Node) bool {
	ao, bo := a.OutCols(), b.OutCols()
	if len(ao) != len(bo) {
		return false
	}
	for i := range ao {
		if ta, tb := p.a.Meta.Col(ao[i]).Type, p.b.Meta.Col(bo[i]).Type; ta != tb && !p.countsAlike(ao[i], bo[i], ta, tb) {
			return false
		}
	}
	for i := range ao {
		p.set(bo[i], ao[i])
	}
	return true
}

// countsAlike reports whether outputs a and b, of types ta and tb, are
// counts that print alike: a COUNT (bigint) against a SUM of COUNTs
// (PostgreSQL's numeric of scale 0, the same digits; sum-of-counts reads
// it only as a value).
func (p *prover) countsAlike(a, b plan.ColumnID, ta, tb catalog.Type) bool {
	pair := ta == catalog.Int && tb == catalog.Numeric || ta == catalog.Numeric && tb == catalog.Int
	return pair && p.countA.Has(a) && p.countB.Has(b)
}

// positional checks that b's outputs map to a's, in order.
func (p *prover) positional(a, b *plan.Node) bool {
	ao, bo := a.OutCols(), b.OutCols()
	if len(ao) != len(bo) {
		return false
	}
	for i := range ao {
		if m, ok := p.m[bo[i]]; !ok || m != ao[i] {
			return false
		}
	}
	return true
}

// note passes a note on why a proof failed to Options.Debug, if set.
func (p *prover) note(format string, args ...any) {
	if p.opts.Debug != nil {
		p.opts.Debug(format, args...)
	}
}

func hasSetOp(n *plan.Node) bool {
	found := false
	n.WalkNodes(func(x *plan.Node) {
		if x.Op == plan.OpSetOp {
			found = true
		}
	})
	return found
}

// looseEq says whether = on reference column c is looser than equality of
// values: char(n) ignores trailing spaces, citext case, a collation
// (declared or nondeterministic) may ignore case or order otherwise.
func (p *prover) looseEq(c plan.ColumnID) bool {
	if coll, nondet := p.a.Meta.Collation(c); nondet || coll != "" {
		return true
	}
	meta := p.a.Meta.Col(c)
	if meta.Instance < 0 || meta.Instance >= len(p.a.Meta.Instances) {
		return false
	}
	t := p.a.Meta.Instances[meta.Instance].Table
	if t == nil || meta.Ordinal < 0 || meta.Ordinal >= len(t.Columns) {
		return false
	}
	name := strings.ToLower(strings.TrimSpace(t.Columns[meta.Ordinal].TypeSQL))
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = strings.TrimSpace(name[:i])
	}
	switch name {
	case "char", "character", "bpchar", "nchar", "citext":
		return true
	}
	return strings.Contains(name, "collate")
}

// newSpace is a space of the reference's columns with the prover's
// policies.
func (p *prover) newSpace() *space {
	s := newSpace(p.colA, p.nullable)
	s.declared = func(c plan.ColumnID) string { return declaredType(p.a.Meta, c) }
	s.displayOnly = p.displayOnly
	s.ints = p.intsOf(true)
	s.looseEq = p.looseEq
	s.nondet = p.a.Meta.LooseCol
	s.noDates = p.opts.SQLite
	s.sqliteLike = p.opts.SQLite
	return s
}

// intsOf is the integer checker of a (onA) or b: which integer-typed
// expressions hold only integers (all in PostgreSQL; in SQLite only what
// the engine keeps to integers).
func (p *prover) intsOf(onA bool) *plan.IntegerChecker {
	if onA {
		if p.intsA == nil {
			p.intsA = plan.NewIntegerChecker(p.a)
		}
		return p.intsA
	}
	if p.intsB == nil {
		p.intsB = plan.NewIntegerChecker(p.b)
	}
	return p.intsB
}

// intsFn is intsOf(onA).Expr for foldInts; nil outside SQLite, where
// every integer-typed expression holds integers.
func (p *prover) intsFn(onA bool) func(*plan.Expr) bool {
	c := p.intsOf(onA)
	if !c.SQLite() {
		return nil
	}
	return c.Expr
}

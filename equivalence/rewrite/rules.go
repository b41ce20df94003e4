// Package rewrite holds the ESM+ rules: the judge's second stage, after
// planning. Each rule rewrites one plan toward a canonical form when, and
// only when, the schema facts it names hold; a rule that needs a fact the
// schema does not enforce reports it as an Assumption, which the verdict
// then names. The judge (package equivalence) runs Run on both queries of
// a pair and compares the results.
package rewrite

import (
	"context"

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

// Assumption kinds a rule may rest on (equivalence.AssumptionKind names
// the same).
const (
	AssumeNonEmpty   = "non_empty"
	AssumeForeignKey = "foreign_key_holds"
)

// Assumption is a fact a rewrite rests on beyond what the schema enforces.
type Assumption struct {
	Kind    string
	Subject string // a table, or "child.col -> parent.col"
}

// Ctx is what a rule may consult (the plan, the schema, memoized
// properties) and where it reports firings and assumptions.
type Ctx struct {
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
func (r *Ctx) formatter(anonymous bool) *plan.Formatter {
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
func (r *Ctx) props(n *plan.Node) *plan.Props {
	if r.deriver == nil {
		r.deriver = plan.NewDeriver(r.p.Meta)
	}
	return r.deriver.Derive(n)
}

// changed forgets what was derived or formatted of the plan before a
// rewrite.
func (r *Ctx) changed() {
	r.formatters = [2]*plan.Formatter{}
	if r.deriver != nil {
		r.deriver.Reset()
	}
}

// applyRules runs every rule over every node (subquery plans included)
// once; it reports whether any fired. It stops with ctx's error when ctx
// ends.
//
// It looks at the context before every rule at every node: once a rule
// has fired, the next may re-derive the properties of a whole subtree, so
// a count of nodes between looks bounds nothing (a chain of 400 EXCEPTs
// overran its deadline by 30 ms that way). A look costs tens of
// nanoseconds.
func applyRules(r *Ctx, o Options) (bool, error) {
	any := false
	var err error
	// Normalization between rounds rewrites the plan.
	r.changed()
	if o.BeforeRound != nil {
		o.BeforeRound(r.p)
	}
	rules := o.Rules
	if rules == nil {
		rules = esmRules
	}
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
		for _, rule := range rules {
			if err = r.ctx.Err(); err != nil {
				return
			}
			if rule.Apply(r, slot) {
				r.changed()
				r.fired(rule.Name)
				any = true
				if o.AfterRule != nil {
					o.AfterRule(r.p, rule.Name)
				}
			}
		}
	}
	visit(&r.p.Root)
	return any, err
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

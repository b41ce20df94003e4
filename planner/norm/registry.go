package norm

import (
	"slices"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// Rule is one rewrite the normalizer may record in Plan.Rules, declared
// once below so that the verdicts name rules from a fixed vocabulary,
// each with its own executed tests (testdata/<family>/<name>.txt).
type Rule struct {
	Name       string // unique, kebab-case: what Plan.Rules records
	Family     string // the group of rules it belongs to (a testdata folder)
	Fragment   string // before ⇒ after, one line
	Conditions string // the side conditions, one line

	// node, when set, makes it a node rule, tried at every node after its
	// inputs are normalized (nodeRules); scalar, a scalar rule, tried at
	// every expression after its children (scalarRules). A rule with
	// neither fires from the code that applies it (canonicalOrder,
	// subqueryToSemiJoin).
	node   func(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool)
	scalar func(z *normalizer, e *plan.Expr) (*plan.Expr, bool)
	// local: a node rule that only moves filters and operators other than
	// Project, Aggregate and Window, so it adds, drops or rewrites no
	// column definition.
	local bool
	// postgres: a scalar rule that holds in PostgreSQL only.
	postgres bool
}

// Rule names, as recorded in Plan.Rules and printed in verdicts.
const (
	RuleDropSubqueryOrder       = "drop-subquery-order"
	RuleRemoveProject           = "remove-passthrough-project"
	RuleMergeFilters            = "merge-filters"
	RuleRightToLeft             = "right-join-to-left"
	RuleSubqueryToSemi          = "subquery-to-semi-join"
	RuleOuterToInner            = "outer-join-to-inner"
	RuleFullJoinNullRejected    = "outer-join-null-rejected"
	RuleInnerOverOuter          = "inner-join-rejects-outer-nulls"
	RuleAggOuterToInner         = "aggregate-rejects-outer-nulls"
	RuleInlineValuesRow         = "inline-single-row-values"
	RulePruneValuesColumn       = "prune-values-columns"
	RulePruneUnionAllColumns    = "prune-union-all-columns"
	RuleContradictoryEqualities = "contradictory-equalities"
	RuleLeftJoinIsNull          = "left-join-is-null-to-anti-join"
	RuleFilterPastOuter         = "push-filter-past-outer-join"
	RuleFilterIntoSemiJoin      = "push-filter-into-semi-join"
	RuleFilterIntoJoin          = "filter-into-join"
	RuleFlattenInnerJoin        = "flatten-inner-join"
	RulePushJoinPredicate       = "push-join-predicate"
	RuleHavingToWhere           = "having-to-where"
	RuleFilterPastDistinct      = "push-filter-past-distinct"
	RuleGroupByToDistinct       = "group-by-without-aggregates-to-distinct"
	RuleReduceGroupBy           = "reduce-group-by-by-fd"
	RuleRemoveDistinct          = "remove-redundant-distinct"
	RuleJoinEquivalence         = "substitute-join-equivalent-columns"
	RuleDistinctOnNonNull       = "is-distinct-on-non-null-to-comparison"
	RuleSelfEquality            = "self-equality-not-null"
	RuleRedundantSortKey        = "redundant-sort-key"
	RuleEqualBounds             = "equal-bounds-to-equality"
	RuleLimitConstant           = "limit-constant"
	RuleNotExistsToAnti         = "not-exists-to-anti-join"
	RuleNotInToAnti             = "not-in-to-anti-join"
	RuleExpandBetween           = "expand-between"
	RuleExpandInList            = "expand-in-list"
	RuleSortInList              = "sort-in-list"
	RulePushNot                 = "push-not"
	RuleFoldConstants           = "fold-constants"
	RuleArithIdentity           = "arithmetic-identity"
	RuleBoolEqualsConst         = "bool-equals-constant"
	RuleFoldConstCalls          = "fold-constant-calls"
	RuleSubqueryConstRow        = "subquery-of-constant-row"
	RuleCoerceLiteral           = "coerce-literal"
	RuleCanonicalLiteral        = "canonical-literal"
	RuleExpandIsDistinct        = "expand-is-distinct-from"
	RuleFlattenAndOr            = "flatten-and-or"
	RuleOrientComparison        = "orient-comparison"
	RuleIntegerBound            = "integer-strict-bound"
	RuleSortCommutative         = "sort-commutative-operands"
	RuleSortJoinInputs          = "sort-join-inputs"

	// Built-in calls of literals evaluated by the executor (rules_eval.go).
	RuleFoldConstRegex    = "fold-constant-regex"
	RuleFoldConstJSONB    = "fold-constant-jsonb"
	RuleFoldConstDatetime = "fold-constant-datetime"
	RuleFoldConstIntOps   = "fold-constant-integer-ops"
	RulePushProjIntoVals  = "push-projection-into-values"
	RuleDateTimestampBnd  = "date-timestamp-bound"
	RuleTimestampStrict   = "timestamp-strict-bound"
	RuleFoldConstBytea    = "fold-constant-bytea"
)

// The families, one testdata folder each.
const (
	famOrder     = "order"     // sorts and limits
	famProject   = "project"   // projections, VALUES and UNION ALL columns
	famFilter    = "filter"    // filters moved, merged or decided
	famJoin      = "join"      // join kinds and join trees
	famSubquery  = "subquery"  // subqueries read as joins or values
	famGroup     = "group"     // grouping and duplicate removal
	famPredicate = "predicate" // comparisons and connectives spelled one way
	famConstant  = "constant"  // constants folded and literals spelled one way
)

// registered lists every rule in declaration order (by family); register
// is its only writer, run while the package initializes.
var registered []*Rule

// nodeRules are the node rules in the order of nodeOrder, scalarRules the
// scalar rules in the order of scalarOrder: at a node or expression the
// first that fires wins, and normalization restarts on its result.
var (
	nodeRules   []nodeRule
	scalarRules []*Rule
)

type nodeRule struct {
	name  string
	apply func(z *normalizer, n *plan.Node, f flags) (*plan.Node, bool)
	local bool
}

// register adds r; a second rule of one name is a programming error in
// the declarations, reached only while the package initializes.
func register(r Rule) {
	if _, dup := LookupRule(r.Name); dup {
		panic("norm: rule " + r.Name + " registered twice")
	}
	registered = append(registered, &r)
}

// Rules returns a copy of every registered rule, in declaration order.
func Rules() []Rule {
	out := make([]Rule, len(registered))
	for i, r := range registered {
		out[i] = *r
	}
	return out
}

// LookupRule returns the registered rule named name.
func LookupRule(name string) (Rule, bool) {
	for _, r := range registered {
		if r.Name == name {
			return *r, true
		}
	}
	return Rule{}, false
}

// The tables are filled in init, not by variable initializers: the rules
// normalize what they build (z.node, z.scalar), which reads the tables.
// A rule missing from its order, or named there without its function, is
// a programming error in the declarations.
func init() {
	for _, r := range ruleDecls {
		register(r)
	}
	byName := map[string]*Rule{}
	for _, r := range registered {
		byName[r.Name] = r
	}
	for _, name := range nodeOrder {
		r := byName[name]
		if r == nil || r.node == nil {
			panic("norm: node order names " + name + ", no node rule")
		}
		nodeRules = append(nodeRules, nodeRule{name: r.Name, apply: r.node, local: r.local})
	}
	for _, name := range scalarOrder {
		r := byName[name]
		if r == nil || r.scalar == nil {
			panic("norm: scalar order names " + name + ", no scalar rule")
		}
		scalarRules = append(scalarRules, r)
	}
	for _, r := range registered {
		if r.node != nil && !slices.Contains(nodeOrder, r.Name) || r.scalar != nil && !slices.Contains(scalarOrder, r.Name) {
			panic("norm: rule " + r.Name + " missing from its order")
		}
	}
}

package rewrite

import "github.com/pgequiv/pgequiv/planner/plan"

// Rule is one ESM+ rule, declared once in esmRules so that a verdict
// names rules from a fixed vocabulary, each with its own tests
// (testdata/<family>/<name>.txt): Apply rewrites the node in slot and
// reports whether it did.
type Rule struct {
	Name       string // unique, kebab-case: what Verdict.Rules prints
	Family     string // the group of rules it belongs to (a testdata folder)
	Fragment   string // before ⇒ after, one line
	Conditions string // the side conditions that make it sound, one line
	Apply      func(r *Ctx, slot **plan.Node) bool
}

// The families, one testdata folder each (and one file of rules each).
const (
	famNull  = "null"
	famOrder = "order"
	famSetOp = "setop"
	famJoin  = "join"
)

// esmRules lists every rule in the order each node tries them.
var esmRules = register([]Rule{
	{Name: RuleNullsOrderNotNull, Family: famNull, Apply: nullsOrderNotNull,
		Fragment:   "sort[c NULLS FIRST/LAST] ⇒ sort[c] with PostgreSQL's default NULLS order",
		Conditions: "the sort key is a column never NULL in the sort's input: the NULLS order means nothing, and dialects agree"},
	{Name: RuleAggDistinctOnKey, Family: famNull, Apply: aggDistinctRedundant,
		Fragment:   "MAX(DISTINCT c) ⇒ MAX(c) (MIN alike); COUNT/SUM/AVG(DISTINCT c) ⇒ COUNT/SUM/AVG(c)",
		Conditions: "MIN and MAX always; COUNT, SUM and AVG when c alone is a key of the aggregate's input, so its values are already distinct"},
	{Name: RuleCountStarNotNull, Family: famNull, Apply: countStarNotNull,
		Fragment:   "COUNT(c) ⇒ COUNT(*)",
		Conditions: "c is never NULL: a column NOT NULL in the input, or a constant other than NULL (COUNT(1)); not under DISTINCT"},
	{Name: RuleIsNotNullDropped, Family: famNull, Apply: isNotNullRedundant,
		Fragment:   "σ[c IS NOT NULL](x) ⇒ x",
		Conditions: "c is never NULL in x"},
	{Name: RuleNullIgnoringAgg, Family: famNull, Apply: isNotNullUnderNullIgnoringAgg,
		Fragment:   "γ[; f(c)…](σ[c IS NOT NULL](x)) ⇒ γ[; f(c)…](x)",
		Conditions: "no GROUP BY, and every call ignores the NULLs of c, its one argument (COUNT(DISTINCT c), MAX(c), ...): the rows the filter removes never reach a result"},
	{Name: RuleMaxSubqueryToLimit, Family: famOrder, Apply: maxSubqueryToLimit,
		Fragment:   "σ[c = (SELECT MAX(c) FROM t WHERE φ)](σ[φ](t)) ⇒ σ[φ](t) ORDER BY c DESC LIMIT 1 (MIN: ASC)",
		Conditions: "the same φ on both sides, and c alone is a key of t (unique and NOT NULL): no ties give several rows on one side and one on the other (ESM+ 1)"},
	{Name: RuleOrderLimitToMax, Family: famOrder, Apply: orderLimitToMax,
		Fragment:   "π[c](x ORDER BY c DESC LIMIT 1) ⇒ π[MAX(c)](γ[](x)) (ASC: MIN)",
		Conditions: "c is not NULL in x, or NULLs sort last; x is not empty (over no row MAX gives one NULL row, LIMIT none): assumed, and named (ESM+ 9)"},
	{Name: RuleIntersectToAnd, Family: famSetOp, Apply: setOpToPredicate(plan.Intersect),
		Fragment:   "(SELECT k FROM t WHERE φ) INTERSECT (SELECT k FROM t WHERE ψ) ⇒ SELECT k FROM t WHERE φ AND ψ",
		Conditions: "one table on both sides, the same columns selected, and they contain a key of t (unique and NOT NULL): the duplicate removal removes nothing (ESM+ 3)"},
	{Name: RuleUnionToOr, Family: famSetOp, Apply: setOpToPredicate(plan.Union),
		Fragment:   "(SELECT k FROM t WHERE φ) UNION (SELECT k FROM t WHERE ψ) ⇒ SELECT k FROM t WHERE φ OR ψ",
		Conditions: "UNION without ALL over one table, the same columns selected, and they contain a key of t (unique and NOT NULL) (ESM+ 4)"},
	{Name: RuleSelfUnion, Family: famSetOp, Apply: selfUnion,
		Fragment:   "q UNION q ⇒ DISTINCT q",
		Conditions: "the two inputs print alike, columns at the same positions; the DISTINCT stays (the published rule drops it, wrong where q has duplicates) (ESM+ 18)"},
	{Name: RuleExceptToAntiJoin, Family: famSetOp, Apply: exceptToAntiJoin,
		Fragment:   "L EXCEPT R ⇒ L ▷[l = r] R",
		Conditions: "EXCEPT without ALL, and L's output contains a key of L (unique, NOT NULL): no duplicate to remove, and with no NULL on the left EXCEPT's NULL matching and = agree (ESM+ 6)"},
	{Name: RuleSemiJoinOnKey, Family: famJoin, Apply: semiJoinOnKey,
		Fragment:   "l ⋉[l.a = r.k] r ⇒ π[l](l ⋈[l.a = r.k] r)",
		Conditions: "r.k is a key of r and r reads no outer column: each row of l matches at most one row of r (ESM+ 12, 17)"},
	{Name: RuleSelfJoinOnKey, Family: famJoin, Apply: selfJoinOnKey,
		Fragment:   "t a ⋈[a.k = b.k] t b ⇒ t a, b's filters and references moved onto a",
		Conditions: "the two occurrences of one table are equated on a key of it: each row joins exactly itself (ESM+ 17)"},
	{Name: RuleFKJoinElimination, Family: famJoin, Apply: fkJoinElimination,
		Fragment:   "child ⋈[child.fk = parent.pk] parent ⇒ child (σ[child.fk IS NOT NULL](child) where fk may be NULL)",
		Conditions: "the foreign key child.fk → parent.pk, the parent unfiltered and no other column of it read: each child row with a non-NULL fk matches one parent row; an unenforced foreign key is assumed, and named (ESM+ 13)"},
	{Name: RuleDistinctJoinToSemi, Family: famJoin, Apply: distinctJoinToSemi,
		Fragment:   "δ(π(l ⋈[p] r)) ⇒ δ(π(l ⋉[p] r))",
		Conditions: "nothing above the join reads r: under DISTINCT only whether a row of l has a partner matters, not how many"},
})

// register checks that no two rules share a name and returns rules.
func register(rules []Rule) []Rule {
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.Name] {
			panic("rewrite: rule " + r.Name + " registered twice")
		}
		seen[r.Name] = true
	}
	return rules
}

// Rules returns the rule set, in the order each node tries them.
func Rules() []Rule { return append([]Rule(nil), esmRules...) }

// LookupRule returns the registered rule named name.
func LookupRule(name string) (Rule, bool) {
	for _, r := range esmRules {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

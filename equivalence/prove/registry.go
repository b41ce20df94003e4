package prove

import (
	"fmt"
	"strings"
)

// Rule is one step a proof may take, declared once below so that a proof
// trace names steps from a fixed vocabulary, each with its own tests
// (testdata/<family>/<name>.txt). A trace entry is the rule's Name, or
// "Name: detail" where the step names what it applied to (a foreign key,
// a table, an aggregate call); RuleName reads the name back.
type Rule struct {
	Name       string // unique, kebab-case: what the trace prints
	Family     string // the group of rules it belongs to (a testdata folder)
	Fragment   string // before ⇒ after, one line
	Conditions string // the side conditions, one line
}

// The families, one testdata folder each.
const (
	famChase     = "chase"
	famJoin      = "join"
	famBlock     = "block"
	famPredicate = "predicates"
	famAggregate = "aggregate"
	famSubquery  = "subquery"
	famSetOp     = "setop"
	famEmpty     = "empty"
	famSimplify  = "simplify"
	famOrder     = "order"
	famWindow    = "window"
	famDisplay   = "display"
)

// registered lists every rule in declaration order; register is its only
// writer, run while the package initializes.
var registered []*Rule

func register(r Rule) *Rule {
	for _, x := range registered {
		if x.Name == r.Name {
			panic("prove: rule " + r.Name + " registered twice")
		}
	}
	registered = append(registered, &r)
	return &r
}

// Rules returns a copy of every registered rule, in declaration order.
func Rules() []Rule {
	out := make([]Rule, len(registered))
	for i, r := range registered {
		out[i] = *r
	}
	return out
}

// RuleName is the registered name a trace entry of Result.Rules starts
// with (the entry up to ": ", or all of it).
func RuleName(entry string) string {
	name, _, _ := strings.Cut(entry, ": ")
	return name
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

// trace is the entry a proof records for r applied to detail (none when
// empty).
func (r *Rule) trace(detail string) string {
	if detail == "" {
		return r.Name
	}
	return r.Name + ": " + detail
}

// rule records that the proof took step r.
func (p *prover) rule(r *Rule) { p.record(r.trace("")) }

// ruleOn records that the proof took step r on what format names.
func (p *prover) ruleOn(r *Rule, format string, args ...any) {
	p.record(r.trace(fmt.Sprintf(format, args...)))
}

func (p *prover) record(entry string) {
	if !p.seen[entry] {
		p.seen[entry] = true
		p.rules = append(p.rules, entry)
	}
}

// Chase: joins that a foreign key makes redundant or inner.
var (
	ruleFKJoinDrop = register(Rule{Name: "fk-join-drop", Family: famChase,
		Fragment:   "R ⋈[R.fk = S.key] S ⇒ R",
		Conditions: "the foreign key's columns are NOT NULL or tested so, S's columns are unread, the key is S's; the foreign key is trusted or assumed"})
	ruleFKLeftJoinInner = register(Rule{Name: "fk-left-join-inner", Family: famChase,
		Fragment:   "R ⟕[R.fk = S.key] S ⇒ R ⋈[R.fk = S.key] S",
		Conditions: "every R row has a partner: the foreign key's columns are NOT NULL; the foreign key is trusted or assumed"})
)

// Joins: semi-joins, self-joins and anti-joins rewritten as other joins.
var (
	ruleSemiJoinOnKey = register(Rule{Name: "semi-join-on-key", Family: famJoin,
		Fragment:   "R ⋉[R.x = S.key] S ⇒ R ⋈[R.x = S.key] S",
		Conditions: "the semi-joined sub-block has one relation whose (declared or derived) key is equated with the outer block: one partner per row"})
	ruleSelfJoinOnKey = register(Rule{Name: "self-join-on-key", Family: famJoin,
		Fragment:   "R r1 ⋈[r1.key = r2.key] R r2 ⇒ R",
		Conditions: "the two occurrences of one table are equated on a key: each row pairs with itself only"})
	ruleDedupJoinSemi = register(Rule{Name: "dedup-join-semi", Family: famJoin,
		Fragment:   "R ⋈[R.x = D.all] δ(D) ⇒ R ⋉[R.x = D.all] D",
		Conditions: "the deduplicated table's columns are all equated with the block and read nowhere else"})
	ruleExceptAntiJoin = register(Rule{Name: "except-anti-join", Family: famJoin,
		Fragment:   "A EXCEPT B ⇒ δ(A ▷[A.all IS NOT DISTINCT FROM B.all] B)",
		Conditions: "EXCEPT without ALL; NULLs of the compared columns match as EXCEPT's do"})
	ruleLeaflessAnti = register(Rule{Name: "leafless-anti", Family: famJoin,
		Fragment:   "R ▷ (one row WHERE c) ⇒ R WHERE (c) IS NOT TRUE",
		Conditions: "the anti-joined sub-block has no relation left (its one table was the enclosing row, or constants)"})
	ruleLeaflessSemi = register(Rule{Name: "leafless-semi", Family: famJoin,
		Fragment:   "R ⋉ (one row WHERE c) ⇒ R WHERE c",
		Conditions: "the semi-joined sub-block has no relation left (its one table was the enclosing row, or constants)"})
	ruleSemiJoinImplied = register(Rule{Name: "semi-join-implied", Family: famJoin,
		Fragment:   "R ⋉ S1 ⋉ S2 ⇒ R ⋉ S1",
		Conditions: "S1 implies S2: every row with an S1 partner has an S2 partner"})
	ruleSelfOuterJoinTotal = register(Rule{Name: "self-outer-join-total", Family: famJoin,
		Fragment:   "T t1 ⟕[t1.c = t2.c] T t2 ⇒ T t1 ⋈[t1.c = t2.c] T t2 (a FULL JOIN: LEFT or inner)",
		Conditions: "each conjunct equates a NOT NULL column (a float on PostgreSQL only: NaN = NaN there) with itself across two occurrences of one table, and the side that must find partners reads the whole table: every row is its own partner"})
	ruleLeftJoinUnread = register(Rule{Name: "left-join-unread", Family: famJoin,
		Fragment:   "π(R ⟕[S.key = e(R)] S) ⇒ π(R)",
		Conditions: "the projection reads no column of S and the condition equates a key of S with expressions of R: at most one partner per R row"})
	ruleLeftJoinSelfKey = register(Rule{Name: "left-join-self-key", Family: famJoin,
		Fragment:   "π(X ⟕[t2.key ≐ t3.key] T t3) ⇒ π(X) with t3's columns read from t2",
		Conditions: "t2 is an occurrence of T inside X; the condition only equates (= or IS NOT DISTINCT FROM) the columns of a NOT NULL key of T across t2 and t3: t3 finds t2's own row, or none where t2 is null-extended"})
	ruleAggJoinScalar = register(Rule{Name: "agg-join-scalar", Family: famJoin,
		Fragment:   "R × γ[](S) ⇒ R with (SELECT agg FROM S) inlined",
		Conditions: "the joined aggregate has no grouping: exactly one row"})
)

// Block comparison: pairing relations, sub-blocks and outputs.
var (
	ruleLeafBijection = register(Rule{Name: "leaf-bijection", Family: famBlock,
		Fragment:   "block(R1..Rn) ≡ block(S1..Sn) by Ri ↔ Sπ(i)",
		Conditions: "the relations pair one to one as equivalent and the conjuncts of each side imply the other's under the pairing"})
	ruleSubBlocksPaired = register(Rule{Name: "sub-blocks-paired", Family: famBlock,
		Fragment:   "R ⋉/▷ S ≡ R' ⋉/▷ S' by S ↔ S'",
		Conditions: "the semi- (or anti-) joined sub-blocks pair one to one as equivalent under the outer pairing"})
	ruleOutputsOrderedDerived = register(Rule{Name: "outputs-ordered-derived", Family: famBlock,
		Fragment:   "outputs(A) = outputs(B) under an ordered or limited derived table's conditions",
		Conditions: "the outputs are equal once the conditions that hold of the rows an ordered or limited derived table keeps are added"})
	ruleOutputsEnumeration = register(Rule{Name: "outputs-enumeration", Family: famBlock,
		Fragment:   "outputs(A) = outputs(B) by enumerating the domains of their columns",
		Conditions: "the outputs agree on every combination of the values the block's conjuncts leave the columns (small finite domains)"})
	ruleSumOfCounts = register(Rule{Name: "sum-of-counts", Family: famAggregate,
		Fragment:   "γ[K; SUM(c)](∪all γ[K_i; COUNT(x) AS c](B_i)) ⇒ γ[K; COUNT(x)](∪all π[K_i, x](B_i))",
		Conditions: "PostgreSQL; plain COUNT(*) or COUNT(x) partials; without K only over ungrouped partials (each gives 0 when empty, where no partial gives SUM NULL); the SUM is numeric of scale 0 where COUNT is bigint: it prints alike, and is compared as the integer only where it is output or compared"})
	ruleUnionColumnsPermuted = register(Rule{Name: "union-columns-permuted", Family: famSetOp,
		Fragment:   "∪all(π[x, y](A), π[x', y'](B)) read by column ≡ ∪all(π[y, x](A), π[y', x'](B))",
		Conditions: "UNION ALL on both sides; the consumer reads the union by column, not position (an aggregate's input, a join leaf); one permutation pairs every branch"})
	ruleUnionConstPull = register(Rule{Name: "union-const-pull", Family: famSetOp,
		Fragment:   "∪[all](π[c, X](A), π[c, Y](B)) ⇒ π[c, cols](∪[all](π[X](A), π[Y](B)))",
		Conditions: "column k holds one non-NULL constant of the union column's type in every branch: projected, or pinned by the branch's filter with identity = (PostgreSQL only); another column remains"})
	ruleOutputPinned = register(Rule{Name: "output-pinned", Family: famBlock,
		Fragment:   "π[f(col)](R WHERE col = c) ⇒ π[f(c)](R WHERE col = c)",
		Conditions: "col = c is a conjunct of the block and identity on col's values (integer, date, boolean of the constant's own type; no loose collation; SQLite: integer-valued only)"})
	rulePartitionUnion = register(Rule{Name: "partition-union", Family: famBlock,
		Fragment:   "block ⇒ block WHERE c1 ∪all ... ∪all block WHERE ck",
		Conditions: "each branch keeps a subset of the block's rows with its outputs, and every kept row satisfies exactly one branch"})
)

// Predicates: conjuncts proved equivalent.
var (
	ruleCommonConjuncts = register(Rule{Name: "common-conjuncts", Family: famPredicate,
		Fragment:   "(c ∧ x) ∨ (c ∧ y) ⇒ c ∧ (x ∨ y)",
		Conditions: "none: three-valued logic keeps it"})
	ruleEqualColumns = register(Rule{Name: "equal-columns", Family: famPredicate,
		Fragment:   "c1 = c2 AND p(c1) ⇒ c1 = c2 AND p(c2)",
		Conditions: "a conjunct of the same list equates the two columns; integers (holding only integers), dates or booleans: equal values are one value"})
	rulePredEnumeration = register(Rule{Name: "pred-enumeration", Family: famPredicate,
		Fragment:   "conjuncts(A) ⇔ conjuncts(B) by enumerating the domains of their columns",
		Conditions: "each conjunct of one side holds on every combination of values the other side's conjuncts allow (small finite domains)"})
)

// Aggregates and grouping.
var (
	ruleAggSame = register(Rule{Name: "agg-same", Family: famAggregate,
		Fragment:   "γ[K](R) ≡ γ[K'](R') by K ↔ K', calls paired",
		Conditions: "the inputs are equivalent and the grouping columns and aggregate calls pair one to one"})
	ruleAggPushKey = register(Rule{Name: "agg-push-key", Family: famAggregate,
		Fragment:   "γ[K ⊇ key(R)](R ⋈[R.c = S.f] S) ⇒ R ⋈[R.c = S.f] γ[S.f](S)",
		Conditions: "the grouping holds a key of R, aggregates read S alone (or MIN/MAX/ANY_VALUE of R), other conjuncts are one-sided"})
	ruleAggGroupConstant = register(Rule{Name: "agg-group-constant", Family: famAggregate,
		Fragment:   "γ[K](MIN(x)) ≡ γ[K](MAX(x)) ≡ γ[K](ANY_VALUE(x))",
		Conditions: "x takes one value in each group: a constant, an integer or boolean grouping column, or a column of a table occurrence whose key lies within K"})
	ruleCountNotNull = register(Rule{Name: "count-not-null", Family: famAggregate,
		Fragment:   "COUNT(x) ⇒ COUNT(*)",
		Conditions: "x is a NOT NULL column not made NULL by an outer join"})
	ruleCountExprNotNull = register(Rule{Name: "count-expr-not-null", Family: famAggregate,
		Fragment:   "COUNT(e) ⇒ COUNT(*); REGR_COUNT(e1, e2) ⇒ COUNT(*)",
		Conditions: "each argument is never NULL: a non-NULL constant or strict expressions over NOT NULL columns not made NULL by an outer join, none of which may raise (COUNT(i + 1) fails on the largest i)"})
	ruleGroupKeyDetermined = register(Rule{Name: "group-key-determined", Family: famAggregate,
		Fragment:   "γ[K, g](R) ⇒ γ[K](R) with ANY_VALUE(g) AS g",
		Conditions: "K stays non-empty and fixes g: a filter pins g to a non-NULL constant, or the projection below computes g from columns of K whose equal values are one value, by an expression that cannot raise (no arithmetic, cast or function call)"})
	ruleGroupPinnedNonempty = register(Rule{Name: "group-pinned-nonempty", Family: famAggregate,
		Fragment:   "σ[COUNT(*) ≥ 1](γ[](R)) ≡ γ[P](R) ≡ γ[K ⊆ P](R)",
		Conditions: "P, the columns of R that filters pin to non-NULL constants, is non-empty: one group exactly when R has rows"})
	ruleAggDistinctRedundant = register(Rule{Name: "agg-distinct-redundant", Family: famAggregate,
		Fragment:   "γ[K](f(DISTINCT x)) ⇒ γ[K](f(x))",
		Conditions: "x is a column and the input has a key within K ∪ {x}: no two rows of a group hold one x"})
	ruleGroupLiftFilter = register(Rule{Name: "group-lift-filter", Family: famAggregate,
		Fragment:   "γ[k](R WHERE k = o) ⇒ γ[k](R) WHERE k = o",
		Conditions: "the condition reads grouping columns and values of no input column only: it holds for a whole group or none"})
	ruleGroupLiftJoin = register(Rule{Name: "group-lift-join", Family: famAggregate,
		Fragment:   "γ[k](R ⋉[k = s] S) ⇒ γ[k](R) ⋉[k = s] S",
		Conditions: "semi- or anti-join on grouping columns; S reads no column of R"})
	ruleAggThroughUnionAll = register(Rule{Name: "agg-through-union-all", Family: famAggregate,
		Fragment:   "γ[K; g(s)](∪all γ[K_i; f(x_i) AS s](B_i)) ⇒ γ[K; f(x)](∪all π[K_i, x_i](B_i))",
		Conditions: "g is f's combine in the aggregate descriptors (SUM, MIN, MAX; not AVG); f's result type is g's over it (SUM of numeric, of bigint); without K, g over no partial equals f over no row; PostgreSQL; no DISTINCT, FILTER or HAVING"})
	ruleEagerAggJoin = register(Rule{Name: "eager-agg-join", Family: famAggregate,
		Fragment:   "π[k, a.c * b.n](γ[k; f(x) c](R) ⋈[k = j] γ[j; COUNT(*) n](S)) ⇒ γ[k; f(x)](R ⋈[k = j] S)",
		Conditions: "inner join equating the whole grouping keys one to one (= identity); f scales with repetition (COUNT, SUM of an exact type) times the other side's COUNT(*), of f's own type, or is duplicate-insensitive (MIN, MAX) alone; PostgreSQL"})
)

// Subqueries.
var (
	ruleDecorrelateScalar = register(Rule{Name: "decorrelate-scalar", Family: famSubquery,
		Fragment:   "SELECT (SELECT agg(r.c) FROM R WHERE corr) FROM X ⇒ γ[key(X)](X ⟕[corr] R)",
		Conditions: "agg is SUM, AVG, MIN, MAX or COUNT of a plain column of R (not COUNT(*)); X has a key; R is uncorrelated otherwise"})
	ruleUnnestScalar = register(Rule{Name: "unnest-scalar", Family: famSubquery,
		Fragment:   "x op f((SELECT agg(e) FROM R WHERE r.k = o AND p)) ⇒ ⋈ γ[r.k](R WHERE p) ON g.k = o AND x op f(g.t)",
		Conditions: "equality correlation of one type; agg is NULL over no row (not COUNT); f strict; a conjunct of a filter or inner join"})
	ruleDistinctUnderIn = register(Rule{Name: "distinct-under-in", Family: famSubquery,
		Fragment:   "x IN (SELECT DISTINCT y ...) ⇒ x IN (SELECT y ...)",
		Conditions: "the subquery is read by IN, NOT IN or EXISTS only"})
	ruleSubqueryPlans = register(Rule{Name: "subquery-plans", Family: famSubquery,
		Fragment:   "(subquery A) ≡ (subquery B)",
		Conditions: "uncorrelated subqueries whose plans are proved equivalent"})
	ruleSubquerySameValue = register(Rule{Name: "subquery-same-value", Family: famSubquery,
		Fragment:   "… (subquery Q) … (subquery Q) … ⇒ one value of Q",
		Conditions: "two uncorrelated subqueries of one query with the same plan, proved equivalent, whose value does not depend on row order (no LIMIT, window, or order-dependent aggregate)"})
	ruleExistsLimitNull = register(Rule{Name: "exists-limit-null", Family: famSubquery,
		Fragment:   "(SELECT constant ... LIMIT 1) IS [NOT] NULL ⇒ [NOT] EXISTS (...)",
		Conditions: "the subquery's output is a non-NULL constant and it reads at most one row"})
	ruleAnySemiJoin = register(Rule{Name: "any-semi-join", Family: famSubquery,
		Fragment:   "R WHERE x op ANY (SELECT y FROM S) ⇒ R ⋉[x op y] S",
		Conditions: "the ANY is a conjunct of a filter: FALSE and NULL both drop the row"})
	ruleAnyValuesDisjunction = register(Rule{Name: "any-values-disjunction", Family: famSubquery,
		Fragment:   "x op ANY (VALUES (v1)..(vk)) ⇒ x op v1 OR ... OR x op vk (ALL: AND)",
		Conditions: "k ≥ 1 non-NULL constants of x's type; PostgreSQL: three-valued ANY is OR's truth table, ALL is AND's"})
	ruleExistsOuterConjunct = register(Rule{Name: "exists-outer-conjunct", Family: famSubquery,
		Fragment:   "R ⋉[c ∧ d] S ⇒ σ[c](R) ⋉[d] S",
		Conditions: "c reads R's columns only, with comparisons, boolean operators, NULL tests and + - * (no overflow assumed): no volatile call, subquery or other possible error; semi-joins only"})
	ruleAnyExtremeAggregate = register(Rule{Name: "any-extreme-aggregate", Family: famSubquery,
		Fragment:   "R ⋈[x > m] γ[MIN(y) m](S) ⇒ R WHERE x > ANY (SELECT y FROM S) (< <=: MAX)",
		Conditions: "an inner join's condition, the only reader of the aggregate without GROUP BY over uncorrelated S; the condition, read over the cases S empty, S only NULLs, S with NULLs, S without NULLs (and x op m TRUE, FALSE, NULL), is TRUE exactly where the ANY is"})
	ruleAllExtremeCountGuard = register(Rule{Name: "all-extreme-count-guard", Family: famSubquery,
		Fragment:   "R ⋈[c = 0 OR (ck = c AND x > m)] γ[MAX(y) m, COUNT(*) c, COUNT(y) ck](S) ⇒ R WHERE x > ALL (SELECT y FROM S) (< <=: MIN; CASE forms too)",
		Conditions: "as any-extreme-aggregate: the condition is TRUE exactly where the ALL is (TRUE over an empty S; never with a NULL in S); a filter's TRUE only: not in a SELECT list"})
	ruleNotAnyAntiJoin = register(Rule{Name: "not-any-anti-join", Family: famSubquery,
		Fragment:   "R WHERE NOT (x op ANY (SELECT y FROM S)) ⇒ R ▷[(x op y) IS NOT FALSE] S; x op ALL (S) is NOT (x op' ANY (S))",
		Conditions: "a conjunct of a filter; S uncorrelated with one column: the row is kept exactly when x op y is FALSE for every row of S (a NULL x or a NULL in S keeps none)"})
)

// Set operations.
var (
	ruleUnionOfDisjuncts = register(Rule{Name: "union-of-disjuncts", Family: famSetOp,
		Fragment:   "R WHERE c1 OR ... OR ck ⇒ R WHERE c1 UNION ... UNION R WHERE ck",
		Conditions: "the query is duplicate-free (a key or DISTINCT in its output)"})
	ruleIntersectCount = register(Rule{Name: "intersect-count", Family: famSetOp,
		Fragment:   "γ[g](R WHERE x IN (v1..vk)) HAVING COUNT(DISTINCT x) = k ⇒ ∩ of (R WHERE x = vi)[g]",
		Conditions: "the k constants are distinct and the output is the grouping columns"})
	ruleUnionAllDropEmpty = register(Rule{Name: "union-all-drop-empty", Family: famSetOp,
		Fragment:   "A ∪all ∅ ⇒ A",
		Conditions: "the dropped branch is proved to return no row"})
	ruleUnionAllPermuted = register(Rule{Name: "union-all-permuted", Family: famSetOp,
		Fragment:   "A₁ ∪all … ∪all Aₙ ⇒ A_π(1) ∪all … ∪all A_π(n)",
		Conditions: "UNION ALL is a bag sum: branches (nested UNION ALLs flattened, empty ones dropped) pair one to one, each pair proved equal with its columns in order; a repeated branch needs a partner each time"})
	ruleSetOpAsSets = register(Rule{Name: "setop-as-sets", Family: famSetOp,
		Fragment:   "A op B ≡ A' op B' with δ ignored in the branches",
		Conditions: "UNION, INTERSECT or EXCEPT without ALL: branches compared as sets"})
	ruleDistinctUnionAllSame = register(Rule{Name: "distinct-union-all-same", Family: famSetOp,
		Fragment:   "δ(A ∪all A') ⇒ δ(A)",
		Conditions: "the branches are proved equivalent"})
	ruleDistinctLeftJoinUnread = register(Rule{Name: "distinct-left-join-unread", Family: famSetOp,
		Fragment:   "δ(R ⟕ S) ⇒ δ(R)",
		Conditions: "no column of S is read above the join"})
	ruleDistinctUnionAllBranches = register(Rule{Name: "distinct-union-all-branches", Family: famSetOp,
		Fragment:   "δ(∪all δ(A_i)) ⇒ δ(∪all A_i)",
		Conditions: "the consumer is blind to duplicates (DISTINCT, or duplicate-insensitive calls); the removed DISTINCT's columns have = as identity; nothing volatile on the way"})
	ruleDistinctJoinInputs = register(Rule{Name: "distinct-join-inputs", Family: famSetOp,
		Fragment:   "δ(π[O](δ(R') ⋈[c] δ(S'))) ⇒ δ(π[O](R' ⋈[c] S')) (inner or left join)",
		Conditions: "the consumer is blind to duplicates; the join and projection read only R' and S' columns; the removed DISTINCT's columns have = as identity; nothing volatile on the way"})
)

// Empty results.
var (
	ruleEmptyBoth = register(Rule{Name: "empty-both", Family: famEmpty,
		Fragment:   "∅ ≡ ∅",
		Conditions: "both sides are proved to return no row"})
	ruleEmptyLimitZero = register(Rule{Name: "empty-limit-zero", Family: famEmpty,
		Fragment:   "R LIMIT 0 ⇒ ∅",
		Conditions: "none"})
	ruleEmptyContradiction = register(Rule{Name: "empty-contradiction", Family: famEmpty,
		Fragment:   "R WHERE c ⇒ ∅",
		Conditions: "c is never TRUE (contradictory conjuncts)"})
	ruleEmptyOffsetPastRows = register(Rule{Name: "empty-offset-past-rows", Family: famEmpty,
		Fragment:   "R OFFSET o ⇒ ∅",
		Conditions: "R has at most o rows (a VALUES list, a constant LIMIT below, an aggregate without GROUP BY)"})
	ruleOuterJoinEmptySide = register(Rule{Name: "outer-join-empty-side", Family: famEmpty,
		Fragment:   "R ⟕ ∅ ⇒ π[R, NULL...](R) (also R ⟗ ∅, ∅ ⟗ R, and R ⟕[c] S with c never TRUE)",
		Conditions: "the null-extended side is proved to return no row (or the LEFT JOIN's condition is contradictory), whatever the condition"})
	ruleOuterJoinAlwaysPartner = register(Rule{Name: "outer-join-always-partner", Family: famEmpty,
		Fragment:   "R ⟕ S ⇒ R × S; R ⟗ S ⇒ R × S",
		Conditions: "no join condition, and the side(s) whose rows could go unmatched always return a row (VALUES with rows, an aggregate without GROUP BY, a UNION with such a branch)"})
	ruleEmptyAnyTypes = register(Rule{Name: "empty-any-types", Family: famEmpty,
		Fragment:   "∅ ≡ ∅ whatever the column types (SELECT NULL, NULL WHERE false ≡ an empty typed result)",
		Conditions: "both whole results are proved to return no row, with as many columns, and neither raises an error: no value is there to have a type"})
	ruleNullAnyType = register(Rule{Name: "null-any-type", Family: famEmpty,
		Fragment:   "VALUES (NULL::t, c) ≡ VALUES (NULL::u, c) as whole results (SELECT SUM(x) FROM t WHERE false ≡ SELECT NULL)",
		Conditions: "both whole results are (or fold to) constant rows, alike row by row, and each column whose types differ is NULL in every row on both sides; neither raises an error"})
	ruleEmptyCheckFalse = register(Rule{Name: "empty-check-false", Family: famEmpty,
		Fragment:   "scan T ⇒ ∅",
		Conditions: "T (its own rows: children are separate scans) has a valid CHECK (false), which no row satisfies (NULL would, false never)"})
	ruleAggOverEmpty = register(Rule{Name: "agg-over-empty", Family: famEmpty,
		Fragment:   "γ[](∅) ⇒ VALUES (0 for each COUNT, NULL for each other call)",
		Conditions: "no GROUP BY, the input proved empty, and every call one whose value over no row is known (count and regr_count 0; sum, avg, min, max, bool_and/or, every, array_agg, string_agg, json(b)_agg, bit_and/or, stddev/variance NULL; SQLite's total is left)"})
	ruleAntiJoinEmpty = register(Rule{Name: "anti-join-empty", Family: famEmpty,
		Fragment:   "R ▷ ∅ ⇒ R; R ▷ S ⇒ ∅",
		Conditions: "the sub-block is proved empty; or it always returns a row (VALUES with rows, an aggregate without GROUP BY) and the anti-join has no condition"})
)

// Local simplifications of one plan node.
var (
	ruleFilterValues = register(Rule{Name: "filter-values", Family: famSimplify,
		Fragment:   "VALUES (r1)..(rk) WHERE c ⇒ VALUES of the rows where c is TRUE",
		Conditions: "the rows are constants, so c is evaluated row by row"})
	ruleProjectValues = register(Rule{Name: "project-values", Family: famSimplify,
		Fragment:   "π[f(x)](VALUES (c1)..(ck)) ⇒ VALUES (f(c1))..(f(ck))",
		Conditions: "the rows are constants; each item a constant, a column, or one integer +, -, * of those whose result fits a 4-byte integer (no overflow error), of the item's type; the other side is VALUES or folds so too"})
	ruleFilterIntoUnionAll = register(Rule{Name: "filter-into-union-all", Family: famSimplify,
		Fragment:   "(A ∪all B) WHERE c ⇒ (A WHERE c) ∪all (B WHERE c)",
		Conditions: "none"})
	ruleFilterIntoUnion = register(Rule{Name: "filter-into-union", Family: famSimplify,
		Fragment:   "(A ∪ B) WHERE c ⇒ (A WHERE c) ∪ (B WHERE c)",
		Conditions: "UNION without ALL; c reads only columns whose = is identity on values, no subquery, nothing volatile: every row of a group of equal rows passes c alike"})
	ruleProjectIntoUnionAll = register(Rule{Name: "project-into-union-all", Family: famSimplify,
		Fragment:   "π[cols](A ∪all B) ⇒ π[cols](A) ∪all π[cols](B)",
		Conditions: "a column selection (no computed item)"})
	ruleProjectAllSetOp = register(Rule{Name: "project-all-setop", Family: famSimplify,
		Fragment:   "π[all columns in order](A op B) ⇒ A op B",
		Conditions: "the projection keeps every column of the set operation, in order"})
	ruleLimitOneRow = register(Rule{Name: "limit-one-row", Family: famSimplify,
		Fragment:   "R LIMIT n ⇒ R",
		Conditions: "n ≥ 1 and R has at most one row"})
	ruleLimitMerge = register(Rule{Name: "limit-merge", Family: famSimplify,
		Fragment:   "(R LIMIT l1 OFFSET o1) LIMIT l2 OFFSET o2 ⇒ R LIMIT min(l2, l1−o2) OFFSET o1+o2",
		Conditions: "the two limits are adjacent (no sort between them) with non-negative integer constants: they cut one stream of rows; where a sort that ties rows feeds them, the merged LIMIT + OFFSET is the inner one's (PostgreSQL bounds the sort by it, and a top-N sort returns tied rows in another order)"})
	ruleCountEmptyZero = register(Rule{Name: "count-empty-zero", Family: famSimplify,
		Fragment:   "γ[](COUNT over ∅) ⇒ VALUES (0)",
		Conditions: "the aggregate's input is proved empty and its calls are COUNTs"})
	ruleAggOverDistinct = register(Rule{Name: "agg-over-distinct", Family: famSimplify,
		Fragment:   "γ[K](MIN/MAX over δ(R)) ⇒ γ[K](MIN/MAX over R)",
		Conditions: "every aggregate is duplicate-insensitive (MIN, MAX, COUNT/SUM DISTINCT...)"})
	ruleConstGroupKey = register(Rule{Name: "const-group-key", Family: famSimplify,
		Fragment:   "γ[k, K](R) ⇒ π(γ[K](R)) with k the constant",
		Conditions: "k is a constant: it does not split groups"})
	rulePinnedGroupKey = register(Rule{Name: "pinned-group-key", Family: famSimplify,
		Fragment:   "γ[k, K](R WHERE k = c) ⇒ π[c AS k, K, aggs](γ[K](R WHERE k = c))",
		Conditions: "k = c is identity on values (an integer, a text under a deterministic collation, ...): the filter makes k the constant c, which splits no group; another key remains"})
	ruleGroupOnKey = register(Rule{Name: "group-on-key", Family: famSimplify,
		Fragment:   "γ[K ⊇ key(R)](R) ⇒ π(R)",
		Conditions: "K holds a key of R: every group is one row, whose aggregates are read off the row"})
)

// Order, windows, display.
var (
	ruleSortKeysEqual = register(Rule{Name: "sort-keys-equal", Family: famOrder,
		Fragment:   "sort[k](R) ≡ sort[k'](R')",
		Conditions: "the sort keys are equal under the input's equalities"})
	ruleNthValueFirst = register(Rule{Name: "nth-value-first", Family: famWindow,
		Fragment:   "nth_value(x, 1) OVER w ⇒ first_value(x) OVER w",
		Conditions: "same window"})
	ruleWindowSame = register(Rule{Name: "window-same", Family: famWindow,
		Fragment:   "ω[calls](R) ≡ ω[calls'](R')",
		Conditions: "equivalent inputs and window calls paired one to one (partition columns in any order)"})
	ruleDisplayOnly = register(Rule{Name: "display-only", Family: famDisplay,
		Fragment:   "outputs equal under = that may print differently",
		Conditions: "the difference is display only (numeric scale, float width); the verdict says so"})
)

// Constants fixed by equalities and outer joins simplified (issue 35,
// items 2 and 4).
var (
	ruleLeftJoinHoist = register(Rule{Name: "left-join-hoist", Family: famJoin,
		Fragment:   "(A ⟕[p] B) ⋈[q] C ⇒ (A ⋈[q] C) ⟕[p] B",
		Conditions: "q reads no column of B (the null-extended side) and no subquery: it keeps or drops each of A's partnered and padded rows alike"})
	ruleNotNullRejectedAbove = register(Rule{Name: "not-null-rejected-above", Family: famPredicate,
		Fragment:   "σ[p(y)](… σ[y IS NOT NULL](R) …) ⇒ σ[p(y)](… R …)",
		Conditions: "p (a filter or inner join condition) is never TRUE with y NULL; between them only filters, projections passing y on, inner joins, the preserved side of a left, semi- or anti-join"})
	ruleAggNullRowsDropped = register(Rule{Name: "agg-null-rows-dropped", Family: famAggregate,
		Fragment:   "σ[p](γ[K; f(y)…](… σ[y IS NOT NULL](R) …)) ⇒ σ[p](γ[K; f(y)…](… R …))",
		Conditions: "every call skips rows with its one argument y NULL; with K, p is never TRUE where a call NULL over no row (SUM, MIN, MAX, AVG...) is NULL (the all-NULL groups one side has); without K, no p needed; the path down as not-null-rejected-above"})
	ruleIsTrueConjunct = register(Rule{Name: "is-true-conjunct", Family: famPredicate,
		Fragment:   "σ[x IS TRUE] ⇒ σ[x]; σ[x IS NOT FALSE] ⇒ σ[x]",
		Conditions: "a conjunct of a filter or inner join condition (only TRUE keeps a row); IS NOT FALSE only of a comparison of non-NULL constants and columns the input or the other conjuncts keep non-NULL"})
	ruleAggLeftJoinInner = register(Rule{Name: "agg-left-join-inner", Family: famAggregate,
		Fragment:   "σ[p](γ[K; f(s)…](… R ⟕ S …)) ⇒ σ[p](γ[K; f(s)…](… R ⋈ S …))",
		Conditions: "every call skips rows with its one argument NULL, a column of S reaching the aggregate unchanged through filters, passing projections and inner joins: padded rows add to no call; with K, p is never TRUE where a call NULL over no row is NULL; without K, no p needed"})
	ruleAggConstantCall = register(Rule{Name: "agg-constant-call", Family: famAggregate,
		Fragment:   "γ[K](MIN(c)) ⇒ π[c](γ[K]) (MAX, ANY_VALUE alike)",
		Conditions: "c is a non-NULL constant of the call's type and K is not empty: every group has a row, each holding c"})
	ruleDistinctPinnedLimit = register(Rule{Name: "distinct-pinned-limit", Family: famSimplify,
		Fragment:   "δ(π[P](X)) ⇒ π[P](X LIMIT 1)",
		Conditions: "every output is a non-NULL constant or a column X's filter pins with an identity =; X is filters over a scan comparing columns and constants of one type (no error on a row LIMIT 1 may skip)"})
	ruleGroupOnEqualKey = register(Rule{Name: "group-on-equal-key", Family: famSimplify,
		Fragment:   "γ[K](R WHERE g = k) ⇒ π(R WHERE g = k), g ∈ K, k in a key of R",
		Conditions: "a key of R lies within K and the columns R's conditions equate (= identity on both) with K's: every group is one row, whose calls are read off the row (as group-on-key)"})
	ruleLeftJoinProjectPull = register(Rule{Name: "left-join-project-pull", Family: famJoin,
		Fragment:   "R ⟕[p] π[S.., f AS c](S) ⇒ π[R.., S.., g AS c](R ⟕[p[c := f]] S)",
		Conditions: "g is f where f is NULL whenever S's columns are (strict, or a CASE whose WHENs reject them and whose ELSE is so), else CASE WHEN m IS NOT NULL THEN f END for a column m never NULL in S; no subquery in f"})
	ruleAggLeftJoinUnread = register(Rule{Name: "agg-left-join-unread", Family: famJoin,
		Fragment:   "γ[K; calls](R ⟕[p] S) ⇒ γ[K; calls](R)",
		Conditions: "no grouping column or call reads S; the condition equates a key of S with expressions of R (one row per R row), or every call is blind to duplicates (MIN, MAX, DISTINCT..., or none)"})
	ruleLimitAboveRowBound = register(Rule{Name: "limit-above-row-bound", Family: famSimplify,
		Fragment:   "R LIMIT n ⇒ R",
		Conditions: "no OFFSET and R has at most n rows: bounded by a LIMIT or VALUES below, an ungrouped aggregate, through filters, projections, sorts, DISTINCT, inner joins (the product), semi- and anti-joins, and left joins binding a key of the right input"})
	ruleLimitPastLeftJoin = register(Rule{Name: "limit-past-left-join", Family: famJoin,
		Fragment:   "sort[K](R ⟕ S) LIMIT n OFFSET o ⇒ sort[K]((sort[K](R) LIMIT n OFFSET o) ⟕ S)",
		Conditions: "the condition binds a key of S (each R row gives one joined row) and the sort keys, if any, read R alone; constant LIMIT and OFFSET"})
	ruleScalarValuesColumn = register(Rule{Name: "scalar-values-column", Family: famSimplify,
		Fragment:   "(SELECT c_k FROM (VALUES (e_1, …, e_n)) v(c_1, …, c_n)) ⇒ e_k",
		Conditions: "one VALUES row, one column read, of e_k's type; the unread expressions are not evaluated, as PostgreSQL pulls the VALUES up and does not either"})
	ruleLeftJoinSwap = register(Rule{Name: "left-join-swap", Family: famJoin,
		Fragment:   "(A ⟕[p] B) ⟕[q] C ⇒ (A ⟕[q] C) ⟕[p] B",
		Conditions: "q reads no column of B and no subquery, C reads B in no way; B and C scan tables, the one of the smaller name goes below (one order for both plans)"})
)

// ORM formulations: what a Django upgrade or refactor rewrites (issue 35,
// acceptance 4; equivalence's TestDjangoUpgrades).
var (
	ruleDecorrelateGrouped = register(Rule{Name: "decorrelate-grouped", Family: famSubquery,
		Fragment:   "SELECT COALESCE((SELECT COUNT(*) FROM R WHERE r.k = x.c GROUP BY r.k), 0) FROM X ⇒ γ[key(X)](X ⟕[r.k = x.c] R; COUNT(r.nn))",
		Conditions: "every grouping column is equated with an outer column (one group at most); COUNT only under COALESCE(…, 0), COUNT(*) read as COUNT of a NOT NULL column of R; SUM, AVG, MIN, MAX as decorrelate-scalar"})
	ruleAggFilterWhere = register(Rule{Name: "agg-filter-where", Family: famAggregate,
		Fragment:   "γ[](R; f(x) FILTER (WHERE p), …) ⇒ γ[](σ[p](R); f(x), …)",
		Conditions: "no GROUP BY (one row either way) and every call has the same FILTER p, without a subquery"})
	ruleCountCaseFilter = register(Rule{Name: "count-case-filter", Family: famAggregate,
		Fragment:   "COUNT(CASE WHEN p THEN e END) ⇒ COUNT(*) FILTER (WHERE p); SUM(CASE WHEN p THEN 1 ELSE 0 END) ⇒ COUNT(*) FILTER (WHERE p)",
		Conditions: "e never NULL; the SUM of integer 1 and 0 under a GROUP BY (no empty group), or without one only where read as COALESCE(…, 0)"})
	ruleDistinctJoinSemi = register(Rule{Name: "distinct-join-semi", Family: famJoin,
		Fragment:   "δ(π[R.key, R.c…](R ⋈[q] S)) ⇒ π[R.key, R.c…](R ⋉[q] S)",
		Conditions: "the projection reads R (one input of the inner join, or the join of several) alone (S's columns equated with R's by q count as R's where equal values are one value: integers, dates, booleans) and holds a key of R as plain columns; not SQLite"})
	ruleSortKeyPrefix = register(Rule{Name: "sort-key-prefix", Family: famOrder,
		Fragment:   "ORDER BY k1, …, ki, ki+1, … ⇒ ORDER BY k1, …, ki",
		Conditions: "k1…ki are plain columns holding a key of the sorted input (NULLs alike, as the sort takes them): the later keys break no tie; none of them may raise (PostgreSQL evaluates every key)"})
	ruleAntiJoinFK = register(Rule{Name: "anti-join-fk", Family: famChase,
		Fragment:   "R ▷[R.f = P.k] P ⇒ σ[R.f IS NULL](R)",
		Conditions: "f → P(k) is a declared foreign key, each conjunct equates one of its columns with the one it references (= identity), P the referenced table unfiltered; several columns: any of them NULL; an assumption on SQLite"})
	ruleHavingCountZero = register(Rule{Name: "having-count-zero", Family: famJoin,
		Fragment:   "σ[COUNT(r.c) = 0](γ[K](X ⟕[q] R)) ⇒ π[K, 0](X ▷[q] R)",
		Conditions: "K is columns of X holding a key of X; the one call is COUNT of a column never NULL in R"})
	ruleLeftJoinAggFilter = register(Rule{Name: "left-join-agg-filter", Family: famAggregate,
		Fragment:   "γ[K](X ⟕[q] R; f(r.c) FILTER (WHERE p)) ⇒ γ[K](X ⟕[q] σ[p](R); f(r.c))",
		Conditions: "K is columns of X; every call has the same FILTER p reading R alone and skips a NULL argument, a column of R (COUNT(c), SUM, MIN, MAX, AVG)"})
	ruleCountDistinctValues = register(Rule{Name: "count-distinct-values", Family: famAggregate,
		Fragment:   "γ[](δ(π[x](σ[x IS NOT NULL](R))); COUNT(*)) ⇒ γ[](R; COUNT(DISTINCT x))",
		Conditions: "no GROUP BY; one column x, kept non-NULL by a conjunct (which goes) or by the input"})
	ruleGroupKeySwap = register(Rule{Name: "group-key-swap", Family: famAggregate,
		Fragment:   "γ[U, K…](R) ⇒ γ[PK, K…](R) with ANY_VALUE(u) AS u",
		Conditions: "U and the primary key PK are keys of one scan reached through row-preserving operators (filters, projections, joins, sorts, limits, DISTINCT), PK an output of the input: each row carries one of its rows or padding's NULLs in both"})
	ruleLikeForms = register(Rule{Name: "like-forms", Family: famPredicate,
		Fragment:   "x LIKE REPLACE(…'L'…) || '%' ⇒ x LIKE 'L%'; x LIKE 'L%' ∧ x LIKE '%S%' ⇒ x LIKE 'L%' (S in L)",
		Conditions: "PostgreSQL; conjuncts of a filter; REPLACE and || of non-NULL text constants fold; x a text or varchar column of a deterministic collation; the implied pattern '%', a prefix of L then '%', or '%S%', without wildcards or backslashes"})
	ruleTimestamptzBound = register(Rule{Name: "timestamptz-bound", Family: famPredicate,
		Fragment:   "x <= c ⇒ x < c + 1µs; x > c ⇒ x >= c + 1µs (c a timestamptz literal, written in UTC)",
		Conditions: "a filter's comparison with a literal cast to timestamptz from text with an explicit numeric offset, at most six fractional digits and fields PostgreSQL takes as written: timestamptz holds whole microseconds"})
	ruleUniqueJoinSemi = register(Rule{Name: "unique-join-semi", Family: famJoin,
		Fragment:   "π[R…](R ⋈[q] S) ⇒ π[R…](R ⋉[q] S)",
		Conditions: "the projection reads R alone (S's columns equated with R's by identity = read as R's); S is filters over scans whose rows the conditions fix for each row of R (keys closed over equalities with R, constants, fixed columns and deterministic expressions of them): at most one partner; not SQLite"})
)

// LIMIT moves (issue 35): sortedlimit.go.
var (
	ruleSortOverSortedLimit = register(Rule{Name: "sort-over-sorted-limit", Family: famOrder,
		Fragment:   "sort[K](L(sort[K, K'](R))) ⇒ L(sort[K, K'](R))",
		Conditions: "L is at least one limit, with filters and projections passing K's columns on: the rows come in K's order; K plain columns, same directions and NULLS order; where K ties rows, PostgreSQL only (it plans no second sort)"})
	ruleSelfJoinKeySubset = register(Rule{Name: "self-join-key-subset", Family: famJoin,
		Fragment:   "X ⋈[x.c ≐ t.c, …] T t ⇒ X' (t's columns read from x's)",
		Conditions: "X is filters, sorts, limits and projections over one scan x of T's table, T a plain scan of it; each conjunct compares a column of x with the same column of t, by IS NOT DISTINCT FROM or by an identity = on a NOT NULL column, and they cover a key of T: each row of X meets its own row once; only under a sort that ties no rows (the join's output order is the sort's), where sort-over-sorted-limit then applies; not SQLite"})
	ruleSortLimitUnionAll = register(Rule{Name: "sort-limit-union-all", Family: famSetOp,
		Fragment:   "sort[K](sort[K](A) LIMIT m ∪all B) LIMIT n OFFSET o ⇒ sort[K](A ∪all B) LIMIT n OFFSET o",
		Conditions: "m ≥ n + o (a projection passing all columns on, in order, may sit above the outer limit), the branch limit has no OFFSET and its sort's keys start with K's, read through the branch's columns; K's plain columns are all of the union's columns, each compared as identity: rows K ties are equal rows, so which of them a sort puts first changes nothing"})
)

// Aggregates of columns the grouping determines (issue 35): aggdetermined.go.
var (
	ruleAggDeterminedValue = register(Rule{Name: "agg-determined-value", Family: famAggregate,
		Fragment:   "γ[K; MIN(x) AS m, …](R) ⇒ π[K, x AS m, …](δ(π[K, x, …](R)))",
		Conditions: "every call is MIN, MAX or ANY_VALUE of a column x, no FILTER, of x's type; K is non-empty and determines x in R (x in K's closure under R's equalities and NOT NULL keys); x compares as identity (integers, booleans, dates, text under a deterministic collation)"})
)

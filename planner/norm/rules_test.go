package norm_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/norm"
)

// Each test below exercises one plan rule: cases where its precondition
// holds (it fires) and where it does not (the plan keeps its shape).

func TestRuleDropSubqueryOrder(t *testing.T) {
	runRuleCases(t, norm.RuleDropSubqueryOrder, []ruleCase{
		{name: "derived-table", sql: "SELECT x.name FROM (SELECT name FROM dogs ORDER BY age) x", fire: true, hasNot: []string{"sort"}},
		{name: "in-subquery", sql: "SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners ORDER BY city)", fire: true, hasNot: []string{"sort"}},
		{name: "union-operand", sql: "SELECT city FROM owners UNION (SELECT city FROM professionals ORDER BY city)", fire: true, hasNot: []string{"sort"}},
		{name: "top-level", sql: "SELECT name FROM dogs ORDER BY age", fire: false, has: []string{"ordered\n", "sort t1.age"}},
		{name: "under-limit", sql: "SELECT x.name FROM (SELECT name FROM dogs ORDER BY age LIMIT 3) x", fire: false, has: []string{"sort t1.age", "limit 3"}},
		{name: "scalar-under-limit", sql: "SELECT (SELECT name FROM dogs ORDER BY age DESC LIMIT 1) FROM owners", fire: false, has: []string{"sort t1.age desc"}},
		{name: "top-level-distinct", sql: "SELECT DISTINCT age FROM dogs ORDER BY age", fire: false, has: []string{"sort t1.age", "distinct"}},
		{name: "top-level-offset", sql: "SELECT name FROM dogs ORDER BY age OFFSET 2", fire: false, has: []string{"sort t1.age"}},
		// Issue 18, cause 15: a consumer that reads the order of its rows
		// keeps the ORDER BY below it.
		{name: "string-agg-consumer", sql: "SELECT string_agg(x.name, ',') FROM (SELECT name FROM dogs ORDER BY age) x", fire: false, has: []string{"sort t1.age"}},
		{name: "float-sum-consumer", sql: "SELECT sum(x.w) FROM (SELECT weight::float8 AS w, age FROM dogs ORDER BY age) x", fire: false, has: []string{"sort t1.age"}},
		{name: "row-number-over-empty", sql: "SELECT x.name, row_number() OVER () FROM (SELECT name FROM dogs ORDER BY age) x", fire: false, has: []string{"sort t1.age"}},
		{name: "scalar-subquery-first-row", sql: "SELECT (SELECT name FROM dogs ORDER BY age) FROM owners", fire: false, has: []string{"sort t1.age"}},
		{name: "count-consumer", sql: "SELECT count(x.name) FROM (SELECT name FROM dogs ORDER BY age) x", fire: true, hasNot: []string{"sort"}},
		{name: "row-number-ordered-window", sql: "SELECT x.name, row_number() OVER (ORDER BY x.name) FROM (SELECT name FROM dogs ORDER BY age) x", fire: true, hasNot: []string{"sort t1.age"}},
		{name: "string-agg-over-unordering-aggregate", sql: "SELECT string_agg(y.name, ',') FROM (SELECT x.name FROM (SELECT name FROM dogs ORDER BY age) x GROUP BY x.name) y", fire: true, hasNot: []string{"sort t1.age"}},
	})
}

func TestRuleRemovePassthroughProject(t *testing.T) {
	runRuleCases(t, norm.RuleRemoveProject, []ruleCase{
		{name: "derived-table", sql: "SELECT x.name FROM (SELECT name, age FROM dogs) x", fire: true},
		{name: "derived-computed", sql: "SELECT x.a FROM (SELECT age + 1 AS a FROM dogs) x WHERE x.a > 3", fire: true,
			has: []string{"((t1.age + 1) >= 4)"}},
		{name: "root-kept", sql: "SELECT name FROM dogs", fire: false, has: []string{"project t1.name"}},
		{name: "distinct-input-kept", sql: "SELECT DISTINCT x.name FROM (SELECT name, age FROM dogs) x", fire: true, has: []string{"distinct\n  project t1.name"}},
		{name: "subquery-column-not-duplicated", sql: "SELECT x.c FROM (SELECT (SELECT count(*) FROM owners) AS c FROM dogs) x WHERE x.c > 1", fire: false},
		{name: "group-by-expression-kept", sql: "SELECT count(*) FROM dogs GROUP BY age % 3", fire: false, has: []string{"(t1.age % 3)"}},
		// Issue 18, cause 13: a volatile call read twice stays one call.
		{name: "volatile-read-twice-kept", sql: "SELECT x.r, x.r FROM (SELECT random() AS r FROM dogs) x", fire: false},
		{name: "volatile-read-once", sql: "SELECT x.r FROM (SELECT random() AS r, name FROM dogs) x", fire: true},
	})
}

func TestRuleMergeFilters(t *testing.T) {
	runRuleCases(t, norm.RuleMergeFilters, []ruleCase{
		{name: "nested-where", sql: "SELECT x.name FROM (SELECT name, age FROM dogs WHERE age > 1) x WHERE x.name = 'a'", fire: true,
			has: []string{"filter (t1.age >= 2), (t1.name = 'a')"}},
		{name: "single", sql: "SELECT name FROM dogs WHERE age > 1", fire: false},
		{name: "true-filter-dropped", sql: "SELECT name FROM dogs WHERE 1 = 1", fire: true, hasNot: []string{"filter"}},
	})
}

func TestRuleRightJoinToLeft(t *testing.T) {
	runRuleCases(t, norm.RuleRightToLeft, []ruleCase{
		{name: "right", sql: "SELECT o.first_name, d.name FROM dogs d RIGHT JOIN owners o ON o.owner_id = d.owner_id", fire: true,
			has: []string{"join left", "scan owners as t1\n    scan dogs as t2"}},
		{name: "left", sql: "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id", fire: false},
		{name: "full-untouched", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id", fire: false, has: []string{"join full"}},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"right-equals-left", "SELECT o.first_name, d.name FROM dogs d RIGHT JOIN owners o ON o.owner_id = d.owner_id",
			"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id", true},
		{"right-is-not-left-with-same-order", "SELECT o.first_name, d.name FROM dogs d RIGHT JOIN owners o ON o.owner_id = d.owner_id",
			"SELECT o.first_name, d.name FROM dogs d LEFT JOIN owners o ON o.owner_id = d.owner_id", false},
	})
}

func TestRuleOuterJoinToInner(t *testing.T) {
	runRuleCases(t, norm.RuleOuterToInner, []ruleCase{
		{name: "strict-comparison", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 3", fire: true, hasNot: []string{"join left"}},
		{name: "is-not-null", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name IS NOT NULL", fire: true},
		{name: "not-is-null", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE NOT (d.name IS NULL)", fire: true},
		{name: "like", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name LIKE 'R%'", fire: true},
		{name: "arithmetic", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age + 1 > o.owner_id", fire: true},
		{name: "arithmetic-equality", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age * 2 = 4", fire: true},
		{name: "or-both-branches", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 3 OR d.age < 1", fire: true},
		{name: "is-null", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age IS NULL", fire: false, has: []string{"join left"}},
		{name: "coalesce", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE coalesce(d.age, 0) = 0", fire: false, has: []string{"join left"}},
		{name: "is-distinct-from", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age IS DISTINCT FROM 3", fire: false, has: []string{"join left"}},
		{name: "or-one-branch", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 3 OR o.city = 'Oslo'", fire: false, has: []string{"join left"}},
		{name: "case", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE CASE WHEN d.age IS NULL THEN true ELSE d.age > 3 END", fire: false, has: []string{"join left"}},
		{name: "preserved-side-only", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo'", fire: false, has: []string{"join left"}},
		{name: "not-in-all", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age <> ALL (SELECT age FROM dogs WHERE age > 100)", fire: false, has: []string{"join left"}},
		{name: "is-not-true", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE (d.age > 3) IS NOT TRUE", fire: false, has: []string{"join left"}},
	})
}

func TestRuleLeftJoinIsNullToAnti(t *testing.T) {
	runRuleCases(t, norm.RuleLeftJoinIsNull, []ruleCase{
		{name: "pk-is-null", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.dog_id IS NULL", fire: true, has: []string{"join anti"}},
		{name: "not-null-column", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.owner_id IS NULL", fire: true, has: []string{"join anti"}},
		{name: "nullable-column", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age IS NULL", fire: false, hasNot: []string{"join anti"}},
		{name: "right-side-read", sql: "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.dog_id IS NULL", fire: false, hasNot: []string{"join anti"}},
		{name: "right-side-read-by-other-conjunct", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.dog_id IS NULL AND coalesce(d.name, 'x') = 'x'", fire: false, hasNot: []string{"join anti"}},
		{name: "right-side-counted", sql: "SELECT count(d.name) FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.dog_id IS NULL", fire: false, hasNot: []string{"join anti"}},
		{name: "preserved-column", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city IS NULL", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"equals-not-exists", "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.dog_id IS NULL",
			"SELECT o.first_name FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", true},
	})
}

func TestRulePushFilterPastOuterJoin(t *testing.T) {
	runRuleCases(t, norm.RuleFilterPastOuter, []ruleCase{
		{name: "preserved-side", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo'", fire: true,
			has: []string{"join left on (t2.owner_id = t1.owner_id)\n    filter (t1.city = 'Oslo')\n      scan owners as t1"}},
		{name: "null-side-is-null-stays", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age IS NULL", fire: false,
			has: []string{"filter (t2.age is null)\n    join left"}},
		{name: "both-sides-stays", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE coalesce(d.name, o.city) = 'x'", fire: false,
			has: []string{"filter (coalesce(t2.name, t1.city) = 'x')\n    join left"}},
	})
}

func TestRuleFilterIntoJoin(t *testing.T) {
	runRuleCases(t, norm.RuleFilterIntoJoin, []ruleCase{
		{name: "comma-join", sql: "SELECT d.name FROM dogs d, owners o WHERE d.owner_id = o.owner_id", fire: true, has: []string{"join inner on (t1.owner_id = t2.owner_id)"}},
		{name: "left-join-not", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE coalesce(d.name, o.city) = 'x'", fire: false, has: []string{"join left on (t2.owner_id = t1.owner_id)\n"}},
		// (o.city IS NULL keeps the rows only d contributes: the join stays full.)
		{name: "full-join-not", sql: "SELECT o.first_name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city IS NULL", fire: false, has: []string{"filter (t1.city is null)\n    join full"}},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"where-vs-on", "SELECT d.name FROM dogs d, owners o WHERE d.owner_id = o.owner_id", "SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", true},
	})
}

func TestRuleFlattenInnerJoin(t *testing.T) {
	runRuleCases(t, norm.RuleFlattenInnerJoin, []ruleCase{
		{name: "three-way", sql: "SELECT t.cost FROM treatments t JOIN dogs d ON t.dog_id = d.dog_id JOIN owners o ON d.owner_id = o.owner_id", fire: true},
		{name: "inner-under-left", sql: "SELECT o.first_name FROM owners o LEFT JOIN (dogs d JOIN breeds b ON d.breed_code = b.breed_code) ON o.owner_id = d.owner_id", fire: false},
		// (coalesce keeps the padded rows joinable: the join stays left.)
		{name: "left-under-inner-stays-nested", sql: "SELECT t.cost FROM treatments t JOIN (owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id) ON t.dog_id = coalesce(d.dog_id, o.owner_id)", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"association", "SELECT t.cost FROM treatments t JOIN dogs d ON t.dog_id = d.dog_id JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT t.cost FROM treatments t JOIN (dogs d JOIN owners o ON d.owner_id = o.owner_id) ON t.dog_id = d.dog_id", true},
		{"inner-vs-left-differ", "SELECT o.first_name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id",
			"SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id", false},
	})
}

func TestRulePushJoinPredicate(t *testing.T) {
	runRuleCases(t, norm.RulePushJoinPredicate, []ruleCase{
		{name: "inner-either-side", sql: "SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id AND o.city = 'Oslo' AND d.age > 2", fire: true,
			has: []string{"filter (t1.age >= 3)", "filter (t2.city = 'Oslo')"}},
		{name: "left-null-side", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND d.age > 2", fire: true,
			has: []string{"join left on (t2.owner_id = t1.owner_id)\n    scan owners as t1\n    filter (t2.age >= 3)"}},
		{name: "left-preserved-side-stays", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND o.city = 'Oslo'", fire: false,
			has: []string{"(t1.city = 'Oslo')"}, hasNot: []string{"filter"}},
		{name: "two-sides-stays", sql: "SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", fire: false},
		{name: "full-join-stays", sql: "SELECT o.first_name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id AND d.age > 2", fire: false, hasNot: []string{"filter"}},
		{name: "semi-join-stays", sql: "SELECT o.first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id AND o.city = 'x')", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"left-on-preserved-differs-from-where", "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND o.city = 'Oslo'",
			"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo'", false},
		{"left-on-null-side-differs-from-where", "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND d.age > 2",
			"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 2", false},
	})
}

func TestRuleHavingToWhere(t *testing.T) {
	runRuleCases(t, norm.RuleHavingToWhere, []ruleCase{
		{name: "group-column", sql: "SELECT city, count(*) FROM owners GROUP BY city HAVING city = 'Oslo'", fire: true,
			has: []string{"aggregate group by (t1.city), count(*)\n    filter (t1.city = 'Oslo')"}},
		{name: "aggregate-stays", sql: "SELECT city, count(*) FROM owners GROUP BY city HAVING count(*) > 1", fire: false, has: []string{"filter (count(*) >= 2)\n    aggregate"}},
		{name: "mixed-stays", sql: "SELECT city, count(*) FROM owners GROUP BY city HAVING city = 'Oslo' OR count(*) > 1", fire: false},
		{name: "no-group-by", sql: "SELECT count(*) FROM owners HAVING 1 = 1 AND count(*) >= 0", fire: false},
		{name: "no-group-by-constant", sql: "SELECT count(*) FROM owners HAVING false", fire: false, has: []string{"filter false\n    aggregate group by ()"}},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"having-vs-where", "SELECT city, count(*) FROM owners GROUP BY city HAVING city = 'Oslo'",
			"SELECT city, count(*) FROM owners WHERE city = 'Oslo' GROUP BY city", true},
		{"having-without-group-by-differs", "SELECT count(*) FROM owners HAVING count(*) > 0",
			"SELECT count(*) FROM owners", false},
	})
}

func TestRulePushFilterPastDistinct(t *testing.T) {
	runRuleCases(t, norm.RuleFilterPastDistinct, []ruleCase{
		{name: "derived-distinct", sql: "SELECT x.city FROM (SELECT DISTINCT city FROM owners) x WHERE x.city = 'Oslo'", fire: true,
			has: []string{"distinct\n    filter (t1.city = 'Oslo')\n      project t1.city"}},
		{name: "plain", sql: "SELECT DISTINCT city FROM owners WHERE city = 'Oslo'", fire: false},
	})
}

func TestRuleGroupByToDistinct(t *testing.T) {
	runRuleCases(t, norm.RuleGroupByToDistinct, []ruleCase{
		{name: "no-aggregates", sql: "SELECT city FROM owners GROUP BY city", fire: true, has: []string{"distinct"}, hasNot: []string{"aggregate"}},
		{name: "reordered", sql: "SELECT last_name, city FROM owners GROUP BY city, last_name", fire: true, hasNot: []string{"aggregate"}},
		{name: "with-aggregate", sql: "SELECT city, count(*) FROM owners GROUP BY city", fire: false, has: []string{"aggregate"}},
		{name: "subset-projected", sql: "SELECT city FROM owners GROUP BY city, last_name", fire: false, has: []string{"aggregate"}},
		{name: "having", sql: "SELECT city FROM owners GROUP BY city HAVING count(*) > 1", fire: false, has: []string{"aggregate"}},
		{name: "repeated-output", sql: "SELECT city, city FROM owners GROUP BY city, last_name", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"distinct", "SELECT city FROM owners GROUP BY city", "SELECT DISTINCT city FROM owners", true},
		{"subset-differs", "SELECT city FROM owners GROUP BY city, last_name", "SELECT DISTINCT city FROM owners", false},
	})
}

func TestRuleRemoveRedundantDistinct(t *testing.T) {
	runRuleCases(t, norm.RuleRemoveDistinct, []ruleCase{
		{name: "primary-key", sql: "SELECT DISTINCT owner_id, city FROM owners", fire: true, hasNot: []string{"distinct"}},
		{name: "not-null-unique", sql: "SELECT DISTINCT breed_name FROM breeds", fire: true, hasNot: []string{"distinct"}},
		{name: "unique-index-not-null", sql: "SELECT DISTINCT label FROM tags", fire: true, hasNot: []string{"distinct"}},
		{name: "composite-key", sql: "SELECT DISTINCT dog_id, visit_no FROM visits", fire: true},
		{name: "key-through-many-to-one", sql: "SELECT DISTINCT d.dog_id, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", fire: true},
		{name: "group-by-key", sql: "SELECT DISTINCT city, count(*) FROM owners GROUP BY city", fire: true},
		{name: "nullable-unique", sql: "SELECT DISTINCT email FROM owners", fire: false, has: []string{"distinct"}},
		{name: "nullable-unique-index-column", sql: "SELECT DISTINCT tag FROM visits", fire: false, has: []string{"distinct"}},
		{name: "partial-composite-key", sql: "SELECT DISTINCT dog_id FROM visits", fire: false, has: []string{"distinct"}},
		{name: "fan-out-join", sql: "SELECT DISTINCT o.owner_id FROM owners o JOIN dogs d ON d.owner_id = o.owner_id", fire: false, has: []string{"distinct"}},
		{name: "cross-join", sql: "SELECT DISTINCT o.owner_id FROM owners o, breeds b", fire: false, has: []string{"distinct"}},
		{name: "left-join-fan-out", sql: "SELECT DISTINCT o.owner_id FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id", fire: false, has: []string{"distinct"}},
		{name: "left-join-to-one", sql: "SELECT DISTINCT d.dog_id FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id", fire: true},
		{name: "union-all", sql: "SELECT DISTINCT x.owner_id FROM (SELECT owner_id FROM owners UNION ALL SELECT owner_id FROM owners) x", fire: false, has: []string{"distinct"}},
		{name: "non-key-column", sql: "SELECT DISTINCT city FROM owners", fire: false, has: []string{"distinct"}},
	})
}

func TestRuleReduceGroupBy(t *testing.T) {
	runRuleCases(t, norm.RuleReduceGroupBy, []ruleCase{
		{name: "pk-determines", sql: "SELECT owner_id, city, count(*) FROM owners GROUP BY owner_id, city", fire: true, has: []string{"any_value(t1.city)"}},
		{name: "through-join", sql: "SELECT d.owner_id, o.city, count(*) FROM dogs d JOIN owners o ON d.owner_id = o.owner_id GROUP BY d.owner_id, o.city", fire: true},
		{name: "composite-key", sql: "SELECT dog_id, visit_no, note, count(*) FROM visits GROUP BY dog_id, visit_no, note", fire: true, has: []string{"any_value(t1.note)"}},
		{name: "partial-composite-key", sql: "SELECT dog_id, note, count(*) FROM visits GROUP BY dog_id, note", fire: false},
		{name: "nullable-unique", sql: "SELECT email, city, count(*) FROM owners GROUP BY email, city", fire: false},
		{name: "no-key", sql: "SELECT city, last_name, count(*) FROM owners GROUP BY city, last_name", fire: false},
		{name: "other-instance", sql: "SELECT a.owner_id, b.city, count(*) FROM owners a, owners b GROUP BY a.owner_id, b.city", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"non-key-differs", "SELECT city, count(*) FROM owners GROUP BY city, last_name", "SELECT city, count(*) FROM owners GROUP BY city", false},
	})
}

func TestRuleSubqueryToSemiJoin(t *testing.T) {
	runRuleCases(t, norm.RuleSubqueryToSemi, []ruleCase{
		{name: "in", sql: "SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners WHERE city = 'Oslo')", fire: true, has: []string{"join semi on (t1.owner_id = t2.owner_id)"}},
		{name: "exists-correlated", sql: "SELECT first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", fire: true, has: []string{"join semi on (t2.owner_id = t1.owner_id)"}},
		{name: "exists-limit", sql: "SELECT first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id LIMIT 1)", fire: true, hasNot: []string{"limit"}},
		{name: "exists-limit-zero-kept", sql: "SELECT first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id LIMIT 0)", fire: true, has: []string{"limit 0"}},
		{name: "exists-offset-kept", sql: "SELECT first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id LIMIT 1 OFFSET 1)", fire: true, has: []string{"offset 1"}},
		{name: "in-limit-kept", sql: "SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners ORDER BY city LIMIT 2)", fire: true, has: []string{"limit 2", "sort"}},
		{name: "not-in-nullable", sql: "SELECT name FROM dogs WHERE breed_code NOT IN (SELECT breed_code FROM dogs)", fire: false, has: []string{"not (t1.breed_code) = any"}},
		{name: "in-under-or", sql: "SELECT name FROM dogs WHERE age > 3 OR owner_id IN (SELECT owner_id FROM owners)", fire: false},
		{name: "scalar", sql: "SELECT name FROM dogs WHERE age > (SELECT avg(age) FROM dogs)", fire: false},
		{name: "any-not-equal", sql: "SELECT name FROM dogs WHERE age > ANY (SELECT age FROM dogs)", fire: false},
		{name: "all", sql: "SELECT name FROM dogs WHERE age = ALL (SELECT age FROM dogs)", fire: false},
		{name: "in-select-list", sql: "SELECT owner_id IN (SELECT owner_id FROM dogs) FROM owners", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"in-vs-exists", "SELECT name FROM dogs d WHERE owner_id IN (SELECT owner_id FROM owners WHERE city = 'Oslo')",
			"SELECT name FROM dogs d WHERE EXISTS (SELECT 1 FROM owners o WHERE o.city = 'Oslo' AND o.owner_id = d.owner_id)", true},
		{"in-vs-not-in", "SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners)",
			"SELECT name FROM dogs WHERE owner_id NOT IN (SELECT owner_id FROM owners)", false},
		{"exists-aggregate-differs-from-exists", "SELECT name FROM dogs d WHERE EXISTS (SELECT count(*) FROM owners o WHERE o.owner_id = d.owner_id)",
			"SELECT name FROM dogs d WHERE EXISTS (SELECT 1 FROM owners o WHERE o.owner_id = d.owner_id)", false},
	})
}

func TestRuleNotExistsAndNotInToAntiJoin(t *testing.T) {
	runRuleCases(t, norm.RuleNotExistsToAnti, []ruleCase{
		{name: "not-exists", sql: "SELECT first_name FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", fire: true, has: []string{"join anti on (t2.owner_id = t1.owner_id)"}},
		{name: "exists", sql: "SELECT first_name FROM owners o WHERE EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", fire: false},
	})
	runRuleCases(t, norm.RuleNotInToAnti, []ruleCase{
		{name: "both-not-null", sql: "SELECT first_name FROM owners WHERE owner_id NOT IN (SELECT owner_id FROM dogs)", fire: true, has: []string{"join anti"}},
		{name: "subquery-filter-makes-not-null", sql: "SELECT name FROM dogs WHERE dog_id NOT IN (SELECT age FROM dogs WHERE age > 3)", fire: true, has: []string{"join anti"}},
		{name: "left-nullable", sql: "SELECT name FROM dogs WHERE age NOT IN (SELECT owner_id FROM owners)", fire: false, hasNot: []string{"join anti"}},
		{name: "right-nullable", sql: "SELECT first_name FROM owners WHERE owner_id NOT IN (SELECT age FROM dogs)", fire: false, hasNot: []string{"join anti"}},
		{name: "right-computed", sql: "SELECT first_name FROM owners WHERE owner_id NOT IN (SELECT dog_id + 1 FROM dogs)", fire: false, hasNot: []string{"join anti"}},
		{name: "right-null-extended", sql: "SELECT first_name FROM owners WHERE owner_id NOT IN (SELECT d.owner_id FROM breeds b LEFT JOIN dogs d ON d.breed_code = b.breed_code)", fire: false, hasNot: []string{"join anti"}},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"not-in-nullable-differs-from-not-exists", "SELECT name FROM dogs WHERE age NOT IN (SELECT age FROM dogs WHERE name = 'x')",
			"SELECT name FROM dogs d WHERE NOT EXISTS (SELECT 1 FROM dogs e WHERE e.name = 'x' AND e.age = d.age)", false},
		{"not-in-not-null-equals-not-exists", "SELECT first_name FROM owners WHERE owner_id NOT IN (SELECT owner_id FROM dogs)",
			"SELECT first_name FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", true},
	})
}

func TestRuleSubstituteJoinEquivalents(t *testing.T) {
	runRuleCases(t, norm.RuleJoinEquivalence, []ruleCase{
		{name: "projection", sql: "SELECT o.owner_id FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", fire: true, has: []string{"project t1.owner_id\n"}},
		{name: "where-equality", sql: "SELECT owner_id FROM dogs WHERE dog_id = owner_id", fire: true, has: []string{"project t1.dog_id\n"}},
		{name: "representative-already", sql: "SELECT d.owner_id FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", fire: false},
		{name: "left-join-null-side-not-equal", sql: "SELECT o.owner_id FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id", fire: false,
			has: []string{"project t1.owner_id\n  join left on (t2.owner_id = t1.owner_id)\n    scan dogs as t2\n    scan owners as t1"}},
		{name: "different-types", sql: "SELECT b.breed_code FROM dogs d JOIN breeds b ON d.age = b.breed_code::int", fire: false},
	})
	runFingerprintPairs(t, []fingerprintPair{
		{"either-side", "SELECT d.owner_id FROM dogs d JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT o.owner_id FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", true},
		{"left-join-sides-differ", "SELECT d.owner_id FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.owner_id FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id", false},
		{"full-join-sides-differ", "SELECT d.owner_id FROM owners o FULL JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.owner_id FROM owners o FULL JOIN dogs d ON d.owner_id = o.owner_id", false},
	})
}

func TestRuleSortJoinInputsAndCommutativeOperands(t *testing.T) {
	runFingerprintPairs(t, []fingerprintPair{
		{"join-order", "SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT d.name FROM owners o JOIN dogs d ON d.owner_id = o.owner_id", true},
		{"conjunct-order", "SELECT name FROM dogs WHERE age > 1 AND name = 'x'", "SELECT name FROM dogs WHERE name = 'x' AND age > 1", true},
		{"disjunct-order", "SELECT name FROM dogs WHERE age > 1 OR name = 'x'", "SELECT name FROM dogs WHERE name = 'x' OR age > 1", true},
		{"and-vs-or", "SELECT name FROM dogs WHERE age > 1 OR name = 'x'", "SELECT name FROM dogs WHERE name = 'x' AND age > 1", false},
		{"left-join-order-matters", "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.first_name FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id", false},
	})
	s := testSchema(t)
	p := normalized(t, s, "SELECT d.name FROM owners o JOIN dogs d ON d.owner_id = o.owner_id")
	if !fired(p, norm.RuleSortJoinInputs) {
		t.Errorf("sort-join-inputs did not fire: %v", p.Rules)
	}
	p = normalized(t, s, "SELECT d.name FROM dogs d JOIN owners o ON d.owner_id = o.owner_id")
	if fired(p, norm.RuleSortJoinInputs) {
		t.Errorf("sort-join-inputs fired on sorted inputs: %v", p.Rules)
	}
	p = normalized(t, s, "SELECT name FROM dogs WHERE name = 'x' OR age > 1")
	if !fired(p, norm.RuleSortCommutative) {
		t.Errorf("sort-commutative-operands did not fire: %v", p.Rules)
	}
}

func TestRuleExpandIsDistinct(t *testing.T) {
	runRuleCases(t, norm.RuleExpandIsDistinct, []ruleCase{
		{name: "distinct-from-literal", sql: "SELECT name FROM dogs WHERE age IS DISTINCT FROM 3", fire: true,
			has: []string{"((t1.age <> 3) or (t1.age is null))"}},
		{name: "not-distinct-from-literal", sql: "SELECT name FROM dogs WHERE age IS NOT DISTINCT FROM 3", fire: true,
			has: []string{"(t1.age = 3), (t1.age is not null)"}},
		{name: "null-literal-stays", sql: "SELECT name FROM dogs WHERE age IS DISTINCT FROM NULL", fire: false},
		{name: "two-columns-stay", sql: "SELECT name FROM dogs WHERE age IS DISTINCT FROM weight", fire: false},
	})
}

func TestRuleIntegerBound(t *testing.T) {
	runRuleCases(t, norm.RuleIntegerBound, []ruleCase{
		{name: "int-greater", sql: "SELECT name FROM dogs WHERE age > 3", fire: true, has: []string{"(t1.age >= 4)"}},
		{name: "int-less", sql: "SELECT name FROM dogs WHERE age < 3", fire: true, has: []string{"(t1.age <= 2)"}},
		{name: "count", sql: "SELECT owner_id FROM dogs GROUP BY owner_id HAVING COUNT(*) > 2", fire: true, has: []string{"(count(*) >= 3)"}},
		{name: "numeric-stays", sql: "SELECT name FROM dogs WHERE weight > 3", fire: false, has: []string{"(t1.weight > 3"}},
		{name: "non-strict-stays", sql: "SELECT name FROM dogs WHERE age >= 3", fire: false},
	})
}

func TestRulePushFilterIntoSemiJoin(t *testing.T) {
	runRuleCases(t, norm.RuleFilterIntoSemiJoin, []ruleCase{
		{name: "left-only-into-anti", sql: "SELECT first_name FROM owners WHERE city = 'Oslo' AND owner_id NOT IN (SELECT owner_id FROM dogs)", fire: true,
			has: []string{"join anti on (t2.owner_id = t1.owner_id)\n    filter (t1.city = 'Oslo')\n      scan owners as t1"}},
		{name: "left-only-into-semi", sql: "SELECT first_name FROM owners WHERE city = 'Oslo' AND EXISTS (SELECT 1 FROM dogs WHERE dogs.owner_id = owners.owner_id)", fire: true,
			has: []string{"join semi on (t2.owner_id = t1.owner_id)\n    filter (t1.city = 'Oslo')"}},
		{name: "no-semi-join", sql: "SELECT first_name FROM owners WHERE city = 'Oslo'", fire: false},
	})
}

func TestRuleDistinctOnNonNull(t *testing.T) {
	runRuleCases(t, norm.RuleDistinctOnNonNull, []ruleCase{
		{name: "self-join-on-key", sql: "SELECT a.name FROM dogs a, dogs b WHERE a.dog_id IS NOT DISTINCT FROM b.dog_id AND a.owner_id IS NOT DISTINCT FROM b.owner_id", fire: true,
			has: []string{"(t1.dog_id = t2.dog_id)", "(t1.owner_id = t2.owner_id)"}, hasNot: []string{"distinct from"}},
		{name: "is-distinct", sql: "SELECT name FROM dogs d JOIN owners o ON d.owner_id IS DISTINCT FROM o.owner_id", fire: true,
			has: []string{"(t1.owner_id <> t2.owner_id)"}},
		{name: "inside-or", sql: "SELECT a.name FROM dogs a, dogs b WHERE a.dog_id IS NOT DISTINCT FROM b.dog_id OR a.age = 1", fire: true,
			has: []string{"(t1.dog_id = t2.dog_id)"}},
		// A nullable operand keeps its meaning: NULL IS NOT DISTINCT FROM NULL.
		{name: "nullable-column", sql: "SELECT a.name FROM dogs a, dogs b WHERE a.age IS NOT DISTINCT FROM b.age", fire: false,
			has: []string{"is not distinct from"}},
		// Above a LEFT JOIN the right side's NOT NULL key reads NULL on
		// unmatched rows.
		{name: "null-extended-key", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id WHERE d.dog_id IS NOT DISTINCT FROM o.owner_id", fire: false,
			has: []string{"is not distinct from"}},
	})
}

func TestRuleEqualBounds(t *testing.T) {
	runRuleCases(t, norm.RuleEqualBounds, []ruleCase{
		{name: "text-range", sql: "SELECT name FROM dogs WHERE 'rex' <= name AND name <= 'rex'", fire: true,
			has: []string{"(t1.name = 'rex')"}, hasNot: []string{"<=", ">="}},
		{name: "inside-or", sql: "SELECT name FROM dogs WHERE (name >= 'a' AND name <= 'a') OR (name >= 'b' AND name <= 'b')", fire: true,
			has: []string{"(t1.name = 'a')", "(t1.name = 'b')"}, hasNot: []string{"<=", ">="}},
		{name: "numeric-range", sql: "SELECT name FROM dogs WHERE weight >= 2.5 AND weight <= 2.5", fire: true,
			has: []string{"(t1.weight = 2.5)"}},
		{name: "different-bounds", sql: "SELECT name FROM dogs WHERE name >= 'a' AND name <= 'b'", fire: false},
		{name: "same-direction", sql: "SELECT name FROM dogs WHERE name >= 'a' AND name >= 'a'", fire: false},
		{name: "different-columns", sql: "SELECT a.name FROM dogs a, dogs b WHERE a.name >= 'a' AND b.name <= 'a'", fire: false},
	})
}

// Issue 33: spellings of one LIMIT or OFFSET plan alike, as PostgreSQL
// casts both bounds to bigint; bounds it refuses or cannot be sure of
// stay as written. LimitSpellings in equivalence checks each on the
// engine.
func TestRuleLimitConstant(t *testing.T) {
	runRuleCases(t, norm.RuleLimitConstant, []ruleCase{
		{name: "offset-zero", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2 OFFSET 0", fire: true, has: []string{"limit 2\n"}, hasNot: []string{"offset"}},
		{name: "offset-null", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2 OFFSET NULL", fire: true, hasNot: []string{"offset"}},
		{name: "offset-folded", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2 OFFSET 1 - 1", fire: true, hasNot: []string{"offset"}},
		{name: "numeric-rounds-half-up", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2.5", fire: true, has: []string{"limit 3\n"}},
		{name: "numeric-rounds-down", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2.4", fire: true, has: []string{"limit 2\n"}},
		{name: "float-rounds-half-even", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2.5::float8", fire: true, has: []string{"limit 2\n"}},
		{name: "numeric-small-negative-is-zero", sql: "SELECT name FROM dogs ORDER BY age LIMIT -0.4", fire: true, has: []string{"limit 0\n"}},
		{name: "numeric-half-negative-kept", sql: "SELECT name FROM dogs ORDER BY age LIMIT -0.5", fire: false},
		{name: "scalar-subquery", sql: "SELECT name FROM dogs ORDER BY age LIMIT (SELECT 2)", fire: true, has: []string{"limit 2\n"}, hasNot: []string{"scalar"}},
		{name: "only-offset-zero", sql: "SELECT name FROM dogs ORDER BY age OFFSET 0", fire: true, hasNot: []string{"limit", "offset"}},
		{name: "negative-kept", sql: "SELECT name FROM dogs ORDER BY age LIMIT -1", fire: false, has: []string{"limit -1"}},
		{name: "plain", sql: "SELECT name FROM dogs ORDER BY age LIMIT 2 OFFSET 1", fire: false, has: []string{"limit 2 offset 1"}},
		{name: "column-bound-kept", sql: "SELECT d.name FROM owners o, LATERAL (SELECT name FROM dogs ORDER BY age LIMIT 2) d", fire: false},
	})
}

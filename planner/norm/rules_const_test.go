package norm_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/planner/norm"
)

func TestRuleArithIdentity(t *testing.T) {
	runRuleCases(t, norm.RuleArithIdentity, []ruleCase{
		{name: "int-times-one", sql: "SELECT age * 1 FROM dogs", fire: true, has: []string{"project t1.age\n"}},
		{name: "one-times-int", sql: "SELECT 1 * (age + age) FROM dogs", fire: true, has: []string{"project (t1.age + t1.age)\n"}},
		{name: "int-plus-zero", sql: "SELECT 0 + age, age - 0, age / 1 FROM dogs", fire: true, has: []string{"project t1.age, t1.age, t1.age\n"}},
		{name: "numeric-times-one", sql: "SELECT d * 1, d + 0, d - 0 FROM readings", fire: true, has: []string{"project t1.d, t1.d, t1.d\n"}},
		{name: "float-times-one", sql: "SELECT f * 1.0, 1.0 * (f + f), f / 1.0, f - 0.0 FROM readings", fire: true,
			has: []string{"project t1.f, (t1.f + t1.f), t1.f, t1.f\n"}},
		// -0 + 0 is 0 in floating point.
		{name: "float-plus-zero-stays", sql: "SELECT f + 0.0, 0 + f FROM readings", fire: false},
		// real * 1.0 is a double precision value, printed with more digits.
		{name: "real-stays", sql: "SELECT r * 1.0 FROM readings", fire: false},
		// numeric / 1 computes a quotient of at least 16 significant digits,
		// and * 1.0 widens the scale.
		{name: "numeric-scale-stays", sql: "SELECT d / 1, d * 1.0, d + 0.0 FROM readings", fire: false},
		// An integer times 1.0 is numeric.
		{name: "int-times-numeric-one-stays", sql: "SELECT age * 1.0 FROM dogs", fire: false},
		{name: "double-negation-stays", sql: "SELECT -(-age) FROM dogs", fire: false},
		{name: "times-two-stays", sql: "SELECT age * 2, age + 1 FROM dogs", fire: false},
	})
}

func TestRuleInlineValuesRow(t *testing.T) {
	runRuleCases(t, norm.RuleInlineValuesRow, []ruleCase{
		{name: "derived-one-row", sql: "SELECT v.c + 1 FROM (VALUES (1)) AS v(c)", fire: true, has: []string{"project 2\n  values ()"}},
		{name: "joined", sql: "SELECT v.c, d.name FROM (VALUES (1)) AS v(c) LEFT JOIN dogs d ON d.dog_id = 1", fire: true,
			has: []string{"project 1, t1.name"}},
		// Under the null-extended side a padded row reads NULL: the
		// projection of the constant stays below the join.
		{name: "null-extended-side", sql: "SELECT d.name, v.c FROM dogs d LEFT JOIN (VALUES (1)) AS v(c) ON d.age = v.c", fire: true,
			has: []string{"project 1\n"}},
		{name: "two-rows-stay", sql: "SELECT v.c FROM (VALUES (1), (2)) AS v(c)", fire: false, has: []string{"values (1), (2)"}},
		{name: "column-reference-stays", sql: "SELECT d.name FROM dogs d, LATERAL (VALUES (d.age)) AS v(c) WHERE v.c > 1", fire: false},
	})
}

func TestRulePruneValuesColumns(t *testing.T) {
	runRuleCases(t, norm.RulePruneValuesColumn, []ruleCase{
		{name: "unread-column", sql: "SELECT v.a FROM (VALUES (1, 2), (3, 4)) AS v(a, b)", fire: true, has: []string{"values (1), (3)"}},
		{name: "all-read", sql: "SELECT v.a, v.b FROM (VALUES (1, 2), (3, 4)) AS v(a, b)", fire: false, has: []string{"values (1, 2), (3, 4)"}},
		{name: "read-in-filter", sql: "SELECT v.a FROM (VALUES (1, 2), (3, 4)) AS v(a, b) WHERE v.b > 2", fire: false},
		// A division may fail: the entry stays, so its error does.
		{name: "failing-entry-stays", sql: "SELECT v.a FROM (VALUES (1, 1 / 0), (3, 4)) AS v(a, b)", fire: false},
		{name: "distinct-input", sql: "SELECT DISTINCT v.a FROM (VALUES (1, 2), (1, 4)) AS v(a, b)", fire: true, has: []string{"values (1), (1)"}},
	})
}

func TestRuleOuterJoinNullRejected(t *testing.T) {
	runRuleCases(t, norm.RuleFullJoinNullRejected, []ruleCase{
		{name: "full-right-rejected", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 3", fire: true,
			hasNot: []string{"join full"}, has: []string{"join left"}},
		{name: "full-left-rejected", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo'", fire: true,
			has: []string{"join left", "scan owners as t1\n"}},
		{name: "full-both-rejected", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = d.name", fire: true,
			hasNot: []string{"join full", "join left"}},
		{name: "or-of-one-side", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 3 OR d.name = 'rex'", fire: true,
			hasNot: []string{"join left"}},
		{name: "or-of-two-sides", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo' OR d.age > 3", fire: false,
			has: []string{"join full"}},
		{name: "is-null-keeps", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age IS NULL", fire: false,
			has: []string{"join full"}},
		{name: "coalesce-keeps", sql: "SELECT o.first_name, d.name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id WHERE coalesce(d.age, 5) > 3", fire: false},
	})
}

func TestRuleInnerJoinRejectsOuterNulls(t *testing.T) {
	runRuleCases(t, norm.RuleInnerOverOuter, []ruleCase{
		{name: "full-under-inner", sql: "SELECT o.first_name, d.name, p.first_name FROM owners o FULL JOIN dogs d ON o.owner_id = d.owner_id JOIN professionals p ON d.age + 1 = p.professional_id", fire: true,
			hasNot: []string{"join full"}},
		{name: "left-under-inner", sql: "SELECT o.first_name, p.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id JOIN professionals p ON d.name = p.first_name", fire: true,
			hasNot: []string{"join left"}},
		{name: "preserved-side-only", sql: "SELECT o.first_name, p.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id JOIN professionals p ON o.city = p.city", fire: false,
			has: []string{"join left"}},
		{name: "is-not-distinct-keeps", sql: "SELECT o.first_name, p.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id JOIN professionals p ON d.name IS NOT DISTINCT FROM p.first_name", fire: false,
			has: []string{"join left"}},
	})
}

func TestRuleSelfEquality(t *testing.T) {
	runRuleCases(t, norm.RuleSelfEquality, []ruleCase{
		{name: "not-null-column", sql: "SELECT name FROM dogs WHERE owner_id = owner_id AND age > 1", fire: true, hasNot: []string{"(t1.owner_id = t1.owner_id)"}},
		{name: "join-condition", sql: "SELECT d.name FROM dogs d LEFT JOIN owners o ON o.owner_id = d.owner_id AND d.owner_id = d.owner_id", fire: true,
			hasNot: []string{"(t1.owner_id = t1.owner_id)", "(t2.owner_id = t2.owner_id)"}},
		// A nullable column: NULL = NULL is NULL, the row goes.
		{name: "nullable-stays", sql: "SELECT name FROM dogs WHERE age = age", fire: false, has: []string{"(t1.age = t1.age)"}},
		// Above a LEFT JOIN the right side's NOT NULL key reads NULL on
		// unmatched rows.
		{name: "null-extended-stays", sql: "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id WHERE d.dog_id = d.dog_id OR o.city = 'x'", fire: false},
	})
}

func TestRuleBoolEqualsConst(t *testing.T) {
	runRuleCases(t, norm.RuleBoolEqualsConst, []ruleCase{
		{name: "equals-true", sql: "SELECT name FROM dogs WHERE (age > 1) = true", fire: true, has: []string{"filter (t1.age >= 2)"}},
		{name: "equals-false", sql: "SELECT name FROM dogs WHERE (age > 1) = false", fire: true, has: []string{"(t1.age <= 1)"}},
		{name: "true-equals", sql: "SELECT name FROM dogs WHERE true = (name = 'rex')", fire: true, has: []string{"filter (t1.name = 'rex')"}},
		// IS TRUE is not = TRUE: NULL IS TRUE is FALSE.
		{name: "is-true-stays", sql: "SELECT (age > 1) IS TRUE FROM dogs", fire: false},
		{name: "equals-null-stays", sql: "SELECT (age > 1) = NULL::boolean FROM dogs", fire: false},
	})
}

func TestRuleSelfEqualityNotDistinct(t *testing.T) {
	runRuleCases(t, norm.RuleSelfEquality, []ruleCase{
		{name: "not-distinct-nullable", sql: "SELECT name FROM dogs WHERE age IS NOT DISTINCT FROM age AND name = 'a'", fire: true,
			hasNot: []string{"distinct"}},
		{name: "distinct-stays", sql: "SELECT name FROM dogs WHERE age IS DISTINCT FROM age", fire: false},
	})
}

func TestRuleEqualBoundsCast(t *testing.T) {
	runRuleCases(t, norm.RuleEqualBounds, []ruleCase{
		{name: "cast-bounds-either-side", sql: "SELECT name FROM dogs WHERE CAST('2020-01-01' AS date) <= date_of_birth AND date_of_birth <= CAST('2020-01-01' AS date)", fire: true,
			hasNot: []string{"<=", ">="}},
		{name: "different-casts", sql: "SELECT name FROM dogs WHERE CAST('2020-01-01' AS date) <= date_of_birth AND date_of_birth <= CAST('2020-01-02' AS date)", fire: false},
		{name: "column-bound-stays", sql: "SELECT name FROM dogs WHERE age <= dog_id AND age >= dog_id", fire: false},
	})
}

func TestRuleFoldConstCalls(t *testing.T) {
	runRuleCases(t, norm.RuleFoldConstCalls, []ruleCase{
		{name: "length-upper-lower", sql: "SELECT length('abc'), upper('xyz'), lower('DEF') FROM dogs", fire: true, has: []string{"project 3, 'XYZ', 'def'"}},
		{name: "like", sql: "SELECT 'foo' LIKE 'foobar', 'foo' NOT LIKE 'f_o', 'foo' ILIKE 'FO%' FROM dogs", fire: true, has: []string{"project false, false, true"}},
		// Outside ASCII, case and length follow the locale and encoding.
		{name: "non-ascii-stays", sql: "SELECT upper('straße') FROM dogs", fire: false},
		// A backslash escapes the next pattern character (or fails at the end).
		{name: "escape-stays", sql: "SELECT 'a' LIKE 'a\\' FROM dogs", fire: false},
		{name: "column-stays", sql: "SELECT length(name) FROM dogs", fire: false},
	})
}

func TestFoldConstantsIntegerRange(t *testing.T) {
	runRuleCases(t, norm.RuleFoldConstants, []ruleCase{
		{name: "division", sql: "SELECT 7 / 2, -7 / 2, -7 % 3 FROM dogs", fire: true, has: []string{"project 3, -3, -1"}},
		// int4 + int4 overflows in PostgreSQL: the error stays.
		{name: "int4-overflow-stays", sql: "SELECT 2147483647 + 1 FROM dogs", fire: false},
		{name: "int8-operand", sql: "SELECT 2147483648 + 1 FROM dogs", fire: true, has: []string{"project 2147483649"}},
		{name: "division-by-zero-stays", sql: "SELECT 1 / 0 FROM dogs", fire: false},
	})
}

func TestRuleSubqueryConstRow(t *testing.T) {
	runRuleCases(t, norm.RuleSubqueryConstRow, []ruleCase{
		{name: "in-one-constant", sql: "SELECT name FROM dogs WHERE age IN (SELECT 4)", fire: true, has: []string{"(t1.age = 4)"}},
		{name: "exists-false", sql: "SELECT EXISTS (SELECT 1 WHERE false) FROM dogs", fire: true, has: []string{"project false"}},
		{name: "exists-one-row", sql: "SELECT name FROM dogs WHERE EXISTS (SELECT 1)", fire: true},
		{name: "in-table-stays", sql: "SELECT name FROM dogs WHERE age IN (SELECT age FROM dogs)", fire: false},
		{name: "in-two-rows-stays", sql: "SELECT name FROM dogs WHERE age IN (SELECT 4 UNION ALL SELECT 5)", fire: false},
	})
}

func TestRuleRedundantSortKey(t *testing.T) {
	runRuleCases(t, norm.RuleRedundantSortKey, []ruleCase{
		{name: "repeated-key", sql: "SELECT name, age FROM dogs ORDER BY age, name, age DESC", fire: true, has: []string{"sort t1.age, t1.name\n"}},
		{name: "pinned-key", sql: "SELECT name, age FROM dogs WHERE age = 3 ORDER BY age, name", fire: true, has: []string{"sort t1.name\n"}},
		{name: "pinned-through-join", sql: "SELECT d.name, o.city FROM dogs d JOIN owners o ON o.owner_id = d.owner_id WHERE d.age = 3 ORDER BY o.city, d.age, d.name", fire: true,
			hasNot: []string{"t1.age nulls", "t2.age nulls"}},
		// The null-extended side of a LEFT JOIN reads NULL on padded rows.
		{name: "null-extended-stays", sql: "SELECT o.city, d.age FROM owners o LEFT JOIN (SELECT * FROM dogs WHERE age = 3) d ON o.owner_id = d.owner_id ORDER BY d.age, o.city", fire: false},
		{name: "range-stays", sql: "SELECT name, age FROM dogs WHERE age > 3 ORDER BY age, name", fire: false},
	})
}

func TestRulePruneUnionAllColumns(t *testing.T) {
	runRuleCases(t, norm.RulePruneUnionAllColumns, []ruleCase{
		{name: "unread-column", sql: "SELECT 1 FROM dogs d JOIN (SELECT age, name FROM dogs UNION ALL SELECT owner_id, city FROM owners) u ON d.age = u.age", fire: true,
			hasNot: []string{"setop.c2"}},
		{name: "none-read", sql: "SELECT 1 FROM (SELECT age FROM dogs UNION ALL SELECT owner_id FROM owners) u", fire: true, has: []string{"union all [] []"}},
		// UNION (distinct) counts a row once per distinct value of all its columns.
		{name: "distinct-union-stays", sql: "SELECT u.age FROM (SELECT age, name FROM dogs UNION SELECT owner_id, city FROM owners) u", fire: false},
		{name: "all-read", sql: "SELECT u.age, u.name FROM (SELECT age, name FROM dogs UNION ALL SELECT owner_id, city FROM owners) u", fire: false},
	})
}

func TestRuleContradictoryEqualities(t *testing.T) {
	runRuleCases(t, norm.RuleContradictoryEqualities, []ruleCase{
		{name: "two-integers", sql: "SELECT name FROM dogs WHERE age = 1 AND name = 'a' AND age = 2", fire: true, has: []string{"filter false"}},
		{name: "two-texts", sql: "SELECT name FROM dogs WHERE name = 'a' AND name = 'b'", fire: true, has: []string{"filter false"}},
		{name: "same-constant", sql: "SELECT name FROM dogs WHERE age = 1 AND age = 1", fire: false},
		// 2 = 2.0 on numeric: a numeric column may equal both.
		{name: "numeric-stays", sql: "SELECT name FROM dogs WHERE weight = 2 AND weight = 2.0", fire: false},
		{name: "or-stays", sql: "SELECT name FROM dogs WHERE age = 1 OR age = 2", fire: false},
	})
}

func TestRuleAggregateRejectsOuterNulls(t *testing.T) {
	runRuleCases(t, norm.RuleAggOuterToInner, []ruleCase{
		{name: "max-equals", sql: "SELECT x.m FROM (SELECT o.owner_id, max(d.age) AS m FROM owners o LEFT JOIN dogs d ON true GROUP BY o.owner_id) x WHERE x.m = 1", fire: true,
			hasNot: []string{"join left"}},
		{name: "min-and-count", sql: "SELECT x.m, x.n FROM (SELECT o.owner_id, min(d.age) AS m, count(d.name) AS n FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id GROUP BY o.owner_id) x WHERE x.m > 2", fire: true,
			hasNot: []string{"join left"}},
		// COUNT is 0, not NULL, on a group of null-extended rows.
		{name: "count-filter-stays", sql: "SELECT x.n FROM (SELECT o.owner_id, count(d.age) AS n FROM owners o LEFT JOIN dogs d ON true GROUP BY o.owner_id) x WHERE x.n = 0", fire: false},
		// COUNT(*) counts the null-extended row.
		{name: "count-star-stays", sql: "SELECT x.m FROM (SELECT o.owner_id, max(d.age) AS m, count(*) AS n FROM owners o LEFT JOIN dogs d ON true GROUP BY o.owner_id) x WHERE x.m = 1", fire: false},
		// An argument from the preserved side is not NULL on padded rows.
		{name: "left-argument-stays", sql: "SELECT x.m FROM (SELECT o.owner_id, max(o.city) AS m, max(d.age) AS a FROM owners o LEFT JOIN dogs d ON true GROUP BY o.owner_id) x WHERE x.m = 'x'", fire: false},
		{name: "coalesce-stays", sql: "SELECT x.m FROM (SELECT o.owner_id, max(coalesce(d.age, 1)) AS m FROM owners o LEFT JOIN dogs d ON true GROUP BY o.owner_id) x WHERE x.m = 1", fire: false},
	})
}

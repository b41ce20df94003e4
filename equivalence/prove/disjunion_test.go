package prove_test

import (
	"testing"
)

// TestDisjunctionAsUnion: a duplicate-free query with a disjunction is
// the UNION of its disjuncts, and a grouping on G with HAVING
// COUNT(DISTINCT x) = k over x IN (k constants) the INTERSECT of x = each.
// Each "false" row differs on some database (without the key the filter
// repeats rows UNION merges; UNION ALL keeps a row both branches return
// twice; COUNT without DISTINCT counts repeats; a projection of part of
// the grouping merges groups; a repeated constant), so a proof of it
// would be wrong.
func TestDisjunctionAsUnion(t *testing.T) {
	cases := []ruleCase{
		{name: "intersect as a count",
			a:    "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'a' INTERSECT SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'b'",
			b:    "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name IN ('a', 'b') GROUP BY o.name HAVING COUNT(DISTINCT d.name) = 2",
			want: true, rule: "intersect-count"},
		{name: "intersect as a count, sqlite, or-list", sqlite: true,
			a:    "SELECT o.name, o.state FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age = 3 INTERSECT SELECT o.name, o.state FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age = 5",
			b:    "SELECT o.name, o.state FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age = 3 OR d.age = 5 GROUP BY o.state, o.name HAVING COUNT(DISTINCT d.age) = 2",
			want: true, rule: "intersect-count"},
		{name: "count without distinct",
			a: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'a' INTERSECT SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'b'",
			b: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name IN ('a', 'b') GROUP BY o.name HAVING COUNT(d.name) = 2"},
		{name: "part of the grouping",
			a: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'a' INTERSECT SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'b'",
			b: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name IN ('a', 'b') GROUP BY o.name, o.owner_id HAVING COUNT(DISTINCT d.name) = 2"},
		{name: "a repeated constant",
			a: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'a' INTERSECT SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name = 'a'",
			b: "SELECT o.name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id WHERE d.name IN ('a', 'a') GROUP BY o.name HAVING COUNT(DISTINCT d.name) = 2"},
		{name: "keyed branches",
			a:    "SELECT owner_id, name FROM owners WHERE state = 'A' UNION SELECT owner_id, name FROM owners WHERE owner_id IN (SELECT owner_id FROM dogs WHERE age > 3)",
			b:    "SELECT owner_id, name FROM owners WHERE state = 'A' OR owner_id IN (SELECT owner_id FROM dogs WHERE age > 3)",
			want: true, rule: "union-of-disjuncts"},
		{name: "keyed branches, sqlite", sqlite: true,
			a:    "SELECT owner_id, name FROM owners WHERE name = 'x' AND state = 'A' UNION SELECT owner_id, name FROM owners WHERE name = 'x' AND state = 'B'",
			b:    "SELECT owner_id, name FROM owners WHERE name = 'x' AND (state = 'A' OR state = 'B')",
			want: true, rule: "union-of-disjuncts"},
		{name: "three disjuncts",
			a:        "SELECT dog_id FROM dogs WHERE age = 1 UNION SELECT dog_id FROM dogs WHERE age = 2 UNION SELECT dog_id FROM dogs WHERE name = 'x'",
			b:        "SELECT dog_id FROM dogs WHERE age = 1 OR age = 2 OR name = 'x'",
			unproved: "a nested UNION is not read as three branches"},
		{name: "no key among the outputs",
			a: "SELECT name FROM owners WHERE state = 'A' UNION SELECT name FROM owners WHERE state = 'B'",
			b: "SELECT name FROM owners WHERE state = 'A' OR state = 'B'"},
		{name: "union all",
			a: "SELECT owner_id, name FROM owners WHERE state = 'A' UNION ALL SELECT owner_id, name FROM owners WHERE name = 'B'",
			b: "SELECT owner_id, name FROM owners WHERE state = 'A' OR name = 'B'"},
		{name: "another disjunct",
			a: "SELECT owner_id, name FROM owners WHERE state = 'A' UNION SELECT owner_id, name FROM owners WHERE name = 'B'",
			b: "SELECT owner_id, name FROM owners WHERE state = 'A' OR name = 'C'"},
	}
	runRuleCases(t, spiderDDL, cases)
}

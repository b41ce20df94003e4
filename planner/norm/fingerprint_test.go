package norm_test

import "testing"

// TestFingerprints: surface forms the rules make alike share a
// fingerprint (testdata/*/*.txt holds more, as a and b of a case), and
// queries that differ, though close, do not.
func TestFingerprints(t *testing.T) {
	runFingerprintPairs(t, []fingerprintPair{
		{"right-is-not-left-with-same-order", "SELECT o.first_name, d.name FROM dogs d RIGHT JOIN owners o ON o.owner_id = d.owner_id",
			"SELECT o.first_name, d.name FROM dogs d LEFT JOIN owners o ON o.owner_id = d.owner_id", false},
		{"inner-vs-left-differ", "SELECT o.first_name FROM owners o JOIN dogs d ON o.owner_id = d.owner_id",
			"SELECT o.first_name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id", false},
		{"left-on-preserved-differs-from-where", "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND o.city = 'Oslo'",
			"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE o.city = 'Oslo'", false},
		{"left-on-null-side-differs-from-where", "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id AND d.age > 2",
			"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON o.owner_id = d.owner_id WHERE d.age > 2", false},
		{"having-without-group-by-differs", "SELECT count(*) FROM owners HAVING count(*) > 0",
			"SELECT count(*) FROM owners", false},
		{"subset-differs", "SELECT city FROM owners GROUP BY city, last_name",
			"SELECT DISTINCT city FROM owners", false},
		{"non-key-differs", "SELECT city, count(*) FROM owners GROUP BY city, last_name",
			"SELECT city, count(*) FROM owners GROUP BY city", false},
		{"in-vs-not-in", "SELECT name FROM dogs WHERE owner_id IN (SELECT owner_id FROM owners)",
			"SELECT name FROM dogs WHERE owner_id NOT IN (SELECT owner_id FROM owners)", false},
		{"exists-aggregate-differs-from-exists", "SELECT name FROM dogs d WHERE EXISTS (SELECT count(*) FROM owners o WHERE o.owner_id = d.owner_id)",
			"SELECT name FROM dogs d WHERE EXISTS (SELECT 1 FROM owners o WHERE o.owner_id = d.owner_id)", false},
		{"not-in-nullable-differs-from-not-exists", "SELECT name FROM dogs WHERE age NOT IN (SELECT age FROM dogs WHERE name = 'x')",
			"SELECT name FROM dogs d WHERE NOT EXISTS (SELECT 1 FROM dogs e WHERE e.name = 'x' AND e.age = d.age)", false},
		{"left-join-sides-differ", "SELECT d.owner_id FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.owner_id FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id", false},
		{"full-join-sides-differ", "SELECT d.owner_id FROM owners o FULL JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.owner_id FROM owners o FULL JOIN dogs d ON d.owner_id = o.owner_id", false},
		{"conjunct-order", "SELECT name FROM dogs WHERE age > 1 AND name = 'x'",
			"SELECT name FROM dogs WHERE name = 'x' AND age > 1", true},
		{"and-vs-or", "SELECT name FROM dogs WHERE age > 1 OR name = 'x'",
			"SELECT name FROM dogs WHERE name = 'x' AND age > 1", false},
		{"left-join-order-matters", "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON d.owner_id = o.owner_id",
			"SELECT o.first_name FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id", false},
	})
}

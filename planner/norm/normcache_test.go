package norm_test

import (
	"testing"

	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/planner/norm"
)

// cacheQueries reach the read index (UNION ALL and VALUES columns read
// or not, at the root, under joins, in subqueries, a CTE read twice) and
// the keys of constants, column references and computed columns.
var cacheQueries = []string{
	"SELECT a FROM (SELECT dog_id AS a, name AS b FROM dogs UNION ALL SELECT owner_id, city FROM owners) u",
	"SELECT a, b FROM (SELECT dog_id AS a, name AS b FROM dogs UNION ALL SELECT owner_id, city FROM owners) u",
	"SELECT count(*) FROM (SELECT dog_id AS a, name AS b FROM dogs UNION ALL SELECT owner_id, city FROM owners) u",
	"SELECT u.a, d.name FROM (SELECT dog_id AS a, age AS b FROM dogs UNION ALL SELECT owner_id, 1 FROM owners) u JOIN dogs d ON d.dog_id = u.a WHERE d.age BETWEEN 2 AND 2",
	"SELECT x FROM (VALUES (1, 'a'), (2, 'b')) v(x, y)",
	"SELECT x, y FROM (VALUES (1, 'a'), (2, 'b')) v(x, y) WHERE x >= 1 AND x <= 1",
	"WITH u AS (SELECT dog_id AS a, name AS b FROM dogs UNION ALL SELECT owner_id, city FROM owners) SELECT u1.a FROM u u1, u u2 WHERE u1.a = u2.a",
	"WITH u AS (SELECT dog_id AS a, name AS b FROM dogs UNION ALL SELECT owner_id, city FROM owners) SELECT a FROM u WHERE a IN (SELECT a FROM u WHERE b = 'x')",
	"SELECT name FROM dogs d WHERE EXISTS (SELECT 1 FROM (SELECT dog_id AS a, age AS b FROM dogs UNION ALL SELECT dog_id, visit_no FROM visits) u WHERE u.a = d.dog_id)",
	"SELECT (SELECT max(a) FROM (SELECT dog_id AS a, age AS b FROM dogs UNION ALL SELECT 3, 4) u) FROM owners",
	"SELECT a FROM (SELECT a, b FROM (SELECT dog_id AS a, age AS b FROM dogs UNION ALL SELECT dog_id, visit_no FROM visits) u1 UNION ALL SELECT 1, 2) u2 WHERE 3 < a",
	"SELECT a FROM (SELECT a, b FROM (VALUES (1, 2), (3, 4)) v(a, b) UNION ALL SELECT dog_id, age FROM dogs) u ORDER BY a",
}

// TestCachesMatchFresh normalizes every rule file's queries and the
// queries above with every read index answer and sort key checked
// against a fresh walk of the plan as it is at that moment: a cache kept
// past a change to the plan (a rewrite put in its parent's place, a rule
// that rewrote in place) fails normalization with "stale ...".
func TestCachesMatchFresh(t *testing.T) {
	defer norm.CheckCaches()()
	s := testSchema(t)
	for _, q := range cacheQueries {
		normalized(t, s, q)
	}
	rulefile.Run(t, "testdata", registry(), rulefile.Options{}, func(t *testing.T, f *rulefile.File) {
		for _, c := range f.Cases {
			normalized(t, s, c.A)
			if c.B != "" {
				normalized(t, s, c.B)
			}
		}
	})
}

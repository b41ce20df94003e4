package equivalence

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestProverIssueExamples: the examples of issue 10 the prover must
// decide, on the bundled schema. The first four were wrong
// not_equivalent labels once (ORDER BY over at most one row, over a
// constant key, over nothing); the others need the prover.
func TestProverIssueExamples(t *testing.T) {
	cases := []struct {
		name, ref, cand string
		dialect         catalog.Dialect
		want            Label
		rule            string // a step the proof must name, when set
	}{
		{"order over one row", "SELECT name FROM dogs WHERE dog_id = 1 ORDER BY age", "SELECT name FROM dogs WHERE dog_id = 1", catalog.Postgres, Equivalent, ""},
		{"order over nothing", "SELECT name FROM dogs WHERE false ORDER BY age", "SELECT name FROM dogs WHERE false", catalog.Postgres, Equivalent, ""},
		{"order by a constant", "SELECT dog_id FROM dogs ORDER BY 'a'", "SELECT dog_id FROM dogs", catalog.Postgres, Equivalent, ""},
		{"order over a union of at most one row", "((SELECT dog_id FROM dogs LIMIT 0) UNION ALL (SELECT dog_id FROM dogs ORDER BY dog_id LIMIT 1)) ORDER BY dog_id",
			"(SELECT dog_id FROM dogs LIMIT 0) UNION ALL (SELECT dog_id FROM dogs ORDER BY dog_id LIMIT 1)", catalog.Postgres, Equivalent, ""},
		{"role-swapped self-join", "SELECT a.name, b.name FROM dogs a JOIN dogs b ON a.owner_id = b.owner_id WHERE a.age > b.age",
			"SELECT a.name, b.name FROM dogs b JOIN dogs a ON b.owner_id = a.owner_id WHERE b.age < a.age", catalog.Postgres, Equivalent, "bijection"},
		{"left join along a NOT NULL foreign key", "SELECT d.name, o.owner_id, o.city FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT d.name, o.owner_id, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", catalog.Postgres, Equivalent, "fk-left-join-inner"},
		{"left join along an unenforced foreign key", "SELECT d.name, o.owner_id, o.city FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id",
			"SELECT d.name, o.owner_id, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", catalog.SQLite, EquivalentUnderAssumptions, "fk-left-join-inner"},
		{"left join along a nullable foreign key", "SELECT d.name, b.breed_name FROM dogs d LEFT JOIN breeds b ON d.breed_code = b.breed_code",
			"SELECT d.name, b.breed_name FROM dogs d JOIN breeds b ON d.breed_code = b.breed_code", catalog.Postgres, Unknown, ""},
		{"self-join with the comparison reversed", "SELECT a.name, b.name FROM dogs a JOIN dogs b ON a.owner_id = b.owner_id WHERE a.age > b.age",
			"SELECT a.name, b.name FROM dogs b JOIN dogs a ON b.owner_id = a.owner_id WHERE b.age > a.age", catalog.Postgres, Unknown, ""},
		{"count(*) trap", "SELECT dogs.dog_id, COUNT(*) FROM dogs LEFT JOIN treatments AS t ON t.dog_id = dogs.dog_id GROUP BY dogs.dog_id",
			"SELECT dog_id, (SELECT COUNT(*) FROM treatments AS t WHERE t.dog_id = dogs.dog_id) FROM dogs", catalog.Postgres, Unknown, ""},
		{"count(col) decorrelated", "SELECT dogs.dog_id, COUNT(t.cost) FROM dogs LEFT JOIN treatments AS t ON t.dog_id = dogs.dog_id GROUP BY dogs.dog_id",
			"SELECT dog_id, (SELECT COUNT(cost) FROM treatments AS t WHERE t.dog_id = dogs.dog_id) FROM dogs", catalog.Postgres, Equivalent, "decorrelate"},
		{"case split missing NULLs", "SELECT name, CASE WHEN age > 10 THEN 'old' ELSE 'young' END FROM dogs",
			"SELECT name, 'old' FROM dogs WHERE age > 10 UNION ALL SELECT name, 'young' FROM dogs WHERE age <= 10", catalog.Postgres, Unknown, ""},
		{"contradiction", "SELECT name FROM dogs WHERE age > 5 AND age < 3", "SELECT name FROM dogs WHERE false", catalog.Postgres, Equivalent, "empty"},
		{"integer gap", "SELECT name FROM dogs WHERE age > 5 AND age < 7", "SELECT name FROM dogs WHERE age = 6", catalog.Postgres, Equivalent, ""},
		{"numeric gap", "SELECT name FROM dogs WHERE weight > 5 AND weight < 7", "SELECT name FROM dogs WHERE weight = 6", catalog.Postgres, Unknown, ""},
		{"chase: join along a foreign key in an anti-join", "SELECT o.city FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d JOIN breeds b ON d.breed_code = b.breed_code WHERE d.owner_id = o.owner_id)",
			"SELECT o.city FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id AND d.breed_code IS NOT NULL)", catalog.Postgres, Equivalent, "fk-join-drop"},
		{"chase without the nullable column's test", "SELECT o.city FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d JOIN breeds b ON d.breed_code = b.breed_code WHERE d.owner_id = o.owner_id)",
			"SELECT o.city FROM owners o WHERE NOT EXISTS (SELECT 1 FROM dogs d WHERE d.owner_id = o.owner_id)", catalog.Postgres, Unknown, ""},
		{"uncorrelated subqueries", "SELECT name FROM dogs WHERE age > (SELECT avg(age) FROM dogs WHERE weight > 3)",
			"SELECT name FROM dogs WHERE age > (SELECT avg(d.age) FROM dogs d WHERE d.weight > 3 AND d.weight IS NOT NULL) AND age IS NOT NULL", catalog.Postgres, Equivalent, "subquery"},
		{"different uncorrelated subqueries", "SELECT name FROM dogs WHERE age > (SELECT avg(age) FROM dogs WHERE weight > 3)",
			"SELECT name FROM dogs WHERE age > (SELECT avg(d.age) FROM dogs d WHERE d.weight > 4)", catalog.Postgres, Unknown, ""},
		{"two different columns", "SELECT name FROM dogs", "SELECT breed_code FROM dogs", catalog.Postgres, Unknown, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := catalog.LoadDDL(catalog.ExampleDDL(), c.dialect)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Judge(context.Background(), s, c.ref, c.cand, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != c.want && !(c.want == Unknown && v.Label == NotEquivalent) {
				t.Fatalf("label %s, want %s (rules %v, differences %v)", v.Label, c.want, v.Rules, v.Differences)
			}
			if c.rule != "" && !strings.Contains(strings.Join(v.Rules, "; "), c.rule) {
				t.Errorf("rules %v do not name %q", v.Rules, c.rule)
			}
		})
	}
}

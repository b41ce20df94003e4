package refute

import (
	"context"
	"strings"
	"testing"
)

func TestDeadColumns(t *testing.T) {
	s := exampleSchema(t)
	cases := []struct {
		sql  string
		dead map[string]string // table: its dead columns, by name
	}{
		{"SELECT name FROM dogs WHERE age > 3", map[string]string{"dogs": "dog_id owner_id breed_code weight date_of_birth"}},
		{"SELECT COUNT(*) FROM dogs", map[string]string{"dogs": "dog_id owner_id breed_code name age weight date_of_birth"}},
		{"SELECT DISTINCT * FROM dogs", map[string]string{"dogs": ""}},
		{"SELECT * FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", map[string]string{"dogs": "", "owners": ""}},
		{"SELECT d.name FROM dogs d WHERE EXISTS (SELECT 1 FROM owners o WHERE o.owner_id = d.owner_id AND o.city = 'Oslo')",
			map[string]string{"dogs": "dog_id breed_code age weight date_of_birth", "owners": "first_name last_name email"}},
		{"SELECT name FROM dogs UNION SELECT first_name FROM owners",
			map[string]string{"dogs": "dog_id owner_id breed_code age weight date_of_birth", "owners": "owner_id last_name city email"}},
		{"SELECT owner_id, MAX(age) FROM dogs GROUP BY owner_id ORDER BY 2 LIMIT 1",
			map[string]string{"dogs": "dog_id breed_code name weight date_of_birth"}},
	}
	for _, c := range cases {
		dead := deadColumns(mustPlan(t, s, c.sql))
		for table, want := range c.dead {
			var got []string
			for i, d := range dead[table] {
				if d {
					got = append(got, s.Table(table).Columns[i].Name)
				}
			}
			if strings.Join(got, " ") != want {
				t.Errorf("%s: dead columns of %s are %q, want %q", c.sql, table, strings.Join(got, " "), want)
			}
		}
	}
}

// TestDeadColumnsKeepCounterexamples checks that skipping the runs of
// candidates that change only dead columns finds the counterexamples
// running them finds.
func TestDeadColumnsKeepCounterexamples(t *testing.T) {
	s := exampleSchema(t)
	pairs := [][2]string{
		{"SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE age >= 3"},
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE weight > 10"},
		{"SELECT d.name, o.city FROM dogs d JOIN owners o ON d.owner_id = o.owner_id", "SELECT d.name, o.city FROM dogs d LEFT JOIN owners o ON d.owner_id = o.owner_id WHERE d.age > 1"},
		{"SELECT owner_id FROM dogs", "SELECT DISTINCT owner_id FROM dogs"},
		{"SELECT name, age FROM dogs", "SELECT age, name FROM dogs"},
	}
	for _, p := range pairs {
		ref, cand := mustPlan(t, s, p[0]), mustPlan(t, s, p[1])
		skipDeadColumns = false
		want, err := Refute(context.Background(), s, ref, cand, testOpts())
		skipDeadColumns = true
		if err != nil {
			t.Fatal(err)
		}
		got, err := Refute(context.Background(), s, ref, cand, testOpts())
		if err != nil {
			t.Fatal(err)
		}
		if !want.Found || describe(got) != describe(want) {
			t.Errorf("%s / %s:\n got %s\nwant %s", p[0], p[1], describe(got), describe(want))
		}
	}
}

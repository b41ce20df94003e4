package prove_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestPredicates: the predicate procedure under three-valued logic, on
// pairs that differ only in their WHERE clause or select list. Each
// "false" row is a pair that differs on some database, so a proof of it
// would be wrong.
func TestPredicates(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b string
		want bool
	}{
		{"age > 1 AND age <= 1", "false", true},
		{"age = 1 OR NULL", "age = 1", true},
		{"age = 1 AND NULL", "false", true},
		{"NOT (age = 1)", "age <> 1", true},
		{"NOT (age = 1)", "age <> 1 OR age IS NULL", false},
		{"age IN (1, 2)", "age = 2 OR age = 1", true},
		{"age NOT IN (1, NULL)", "false", true},
		{"age IS NOT DISTINCT FROM 3", "age = 3", true},
		{"age IS DISTINCT FROM 3", "age <> 3", false},
		{"CASE WHEN age = 1 THEN NULL ELSE TRUE END", "CASE WHEN age = 1 THEN FALSE ELSE TRUE END", true},
		{"CASE WHEN age > 10 THEN true ELSE age < 3 END", "age > 10 OR age < 3", true},
		{"COALESCE(age, 0) > 5", "age > 5", true},
		{"COALESCE(age, 7) > 5", "age > 5", false},
		{"age > weight", "weight < age", true},
		{"weight > age AND age > 3", "weight > age AND age > 3 AND weight > 3", true},
		{"age > weight AND weight > 3", "age > weight AND age > 4", false},
		{"name = 'a' AND name IS NOT NULL", "name = 'a'", true},
		{"name < 'b'", "name <= 'a'", false},
		{"name LIKE 'a%' AND name IS NOT NULL", "name LIKE 'a%'", true},
		{"upper(name) = 'A'", "upper(name) = 'A' AND name IS NOT NULL", true},
		{"upper(name) = 'A'", "lower(name) = 'a'", false},
		{"date_of_birth < date '2020-01-01' + interval '1' month", "date_of_birth < date '2020-02-01'", true},
		{"date_of_birth < date '2020-01-01' + interval '1' day", "date_of_birth < date '2020-02-01'", false},
		{"age = 3 AND owner_id = age + 5", "age = 3 AND owner_id = 8", true},
		{"dog_id > 2 AND dog_id < 4", "dog_id = 3", true},
		{"weight > 2 AND weight < 4", "weight = 3", false},
		{"(age = 1 AND name = 'a') OR (age = 1 AND name = 'b')", "age = 1 AND (name = 'a' OR name = 'b')", true},
		{"(age = 1 AND name = 'a') OR age = 1", "age = 1", true},
		{"(age = 1 AND name = 'a') OR (weight = 1 AND name = 'b')", "name IN ('a', 'b') AND (age = 1 OR weight = 1)", false},
		{"(age = 1 AND name = 'a') OR (age = 1 AND name = 'b')", "age = 1", false},
		// Parameters: each one unknown value, equal only to itself.
		{"age > $1 AND age > $1", "age > $1", true},
		{"age > $1 AND name = $2", "$2 = name AND $1 < age", true},
		{"age IN ($1, $1)", "age = $1", true},
		{"age > $1", "age > $2", false},
		{"age > $1", "age >= $1", false},
		{"age > $1", "age > 1", false},
		{"age = $1 AND age = 1", "age = 1", false},
		{"age = $1 AND age = $2", "age = $1", false},
		{"$1 = $1", "true", false},
		{"age = $1 OR age IS NULL", "age = $1", false},
	}
	ctx := context.Background()
	for _, c := range cases {
		a, err := planner.Plan(ctx, s, "SELECT dog_id, name FROM dogs WHERE "+c.a, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.a, err)
		}
		b, err := planner.Plan(ctx, s, "SELECT dog_id, name FROM dogs WHERE "+c.b, planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.b, err)
		}
		r := proveBoth(t, ctx, a, b, prove.Options{TrustForeignKeys: true})
		if r.Proved != c.want {
			t.Errorf("WHERE %s vs WHERE %s: proved %v, want %v (%v)", c.a, c.b, r.Proved, c.want, r.Rules)
		}
	}
}

// TestOutputs: select-list expressions equal in every row, or not.
func TestOutputs(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b string
		want bool
	}{
		{"(age IS NULL) = (age IS NULL)", "TRUE", true},
		{"age IS NOT DISTINCT FROM age", "TRUE", true},
		{"age = age", "TRUE", false}, // NULL when age is NULL
		{"CASE WHEN age = 1 THEN name ELSE name END", "name", true},
		{"CASE WHEN age IS NULL THEN NULL ELSE FALSE END", "age IS NULL AND NULL", true},
		{"(1 + 2) + age + 3", "age + 6", true},
		{"name", "breed_code", false},
		{"NULLIF(age, 3)", "CASE WHEN age = 3 THEN NULL ELSE age END", true},
		{"CAST(age IS NULL AS integer) > 1000", "FALSE", true},
	}
	ctx := context.Background()
	for _, c := range cases {
		a, err := planner.Plan(ctx, s, "SELECT "+c.a+" FROM dogs", planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.a, err)
		}
		b, err := planner.Plan(ctx, s, "SELECT "+c.b+" FROM dogs", planner.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.b, err)
		}
		r := proveBoth(t, ctx, a, b, prove.Options{TrustForeignKeys: true})
		if r.Proved != c.want {
			t.Errorf("SELECT %s vs SELECT %s: proved %v, want %v (%v)", c.a, c.b, r.Proved, c.want, r.Rules)
		}
	}
}

// TestHonoursContext: a cancelled context ends the search with its error.
func TestHonoursContext(t *testing.T) {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	q := "SELECT a.name FROM dogs a, dogs b, dogs c, dogs d, dogs e, dogs f WHERE a.age < b.age AND b.age < c.age AND c.age < d.age AND d.age < e.age AND e.age < f.age"
	a, err := planner.Plan(context.Background(), s, q, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := prove.Equivalent(ctx, a, a, prove.Options{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// proveBoth proves a against b and b against a: the unit tests' pairs
// must be proved alike either way round. It returns the first result.
func proveBoth(t *testing.T, ctx context.Context, a, b *plan.Plan, opts prove.Options) prove.Result {
	t.Helper()
	fwd, err := prove.Equivalent(ctx, a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	back, err := prove.Equivalent(ctx, b, a, opts)
	if err != nil {
		t.Fatal(err)
	}
	if fwd.Proved != back.Proved {
		t.Errorf("proved %v as given, %v swapped (rules %v / %v)", fwd.Proved, back.Proved, fwd.Rules, back.Rules)
	}
	return fwd
}

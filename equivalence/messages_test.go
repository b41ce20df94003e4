package equivalence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestDifferencesNameInstances: a difference is told in the queries' own
// aliases, so the two sides of a self-join stay apart, while the
// fingerprint ignores alias spelling.
func TestDifferencesNameInstances(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	ctx := context.Background()
	v, err := equivalence.Judge(ctx, s,
		"SELECT a.name, b.name FROM dogs a JOIN dogs b ON a.owner_id = b.owner_id WHERE a.age > b.age",
		"SELECT a.name, b.name FROM dogs b JOIN dogs a ON b.owner_id = a.owner_id WHERE b.age < a.age", equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Differences {
		for _, text := range []string{d.Reference, d.Candidate} {
			if strings.Contains(text, "dogs.age > dogs.age") || strings.Contains(text, "dogs.age < dogs.age") {
				t.Errorf("instances not told apart: %+v", d)
			}
		}
	}
	// Unaliased instances of one table are numbered.
	v, err = equivalence.Judge(ctx, s,
		"SELECT name FROM dogs WHERE name IN (SELECT name FROM dogs WHERE age > 3)",
		"SELECT name FROM dogs", equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range v.Differences {
		if strings.Contains(d.Reference, "dogs#1.name = dogs#2.name") {
			found = true
		}
	}
	if !found {
		t.Errorf("want dogs#1/dogs#2 in the differences, got %+v", v.Differences)
	}
	// Renaming every alias changes no fingerprint.
	a, err := equivalence.Judge(ctx, s,
		"SELECT a.name FROM dogs a JOIN dogs b ON a.owner_id = b.owner_id WHERE a.age > b.age",
		"SELECT x.name FROM dogs x JOIN dogs y ON x.owner_id = y.owner_id WHERE x.age > y.age", equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Label != equivalence.Equivalent {
		t.Errorf("alias renaming: got %s, want equivalent (%+v)", a.Label, a.Differences)
	}
}

package norm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/norm"
)

// TestSelfJoinConjunctsNotDeduplicated: the canonical sort key omits
// instance numbers, so a.age = 1 and b.age = 1 of a self-join look alike
// to it; dropping one as a duplicate changes the result.
func TestSelfJoinConjunctsNotDeduplicated(t *testing.T) {
	runFingerprintPairs(t, []fingerprintPair{
		{"and", "SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1 AND b.age = 1",
			"SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1", false},
		{"or", "SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1 OR b.age = 1",
			"SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1", false},
		{"real-duplicate", "SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1 AND a.age = 1",
			"SELECT a.name FROM dogs a JOIN dogs b ON a.dog_id < b.dog_id WHERE a.age = 1", true},
	})
}

// TestComputedColumnsKeptForGroupByAndSetOps: GROUP BY keys and set
// operation inputs name columns by ID, not by expression, so removing the
// projection that computes them loses their definition.
func TestComputedColumnsKeptForGroupByAndSetOps(t *testing.T) {
	runFingerprintPairs(t, []fingerprintPair{
		{"group-by-expression", "SELECT count(*) FROM dogs GROUP BY age + 1", "SELECT count(*) FROM dogs GROUP BY age + 2", false},
		{"union-expression", "SELECT age + 1 FROM dogs UNION SELECT owner_id FROM owners",
			"SELECT age + 2 FROM dogs UNION SELECT owner_id FROM owners", false},
		{"union-expression-right", "SELECT owner_id FROM owners EXCEPT SELECT age * 2 FROM dogs",
			"SELECT owner_id FROM owners EXCEPT SELECT age * 3 FROM dogs", false},
		{"group-by-same-expression", "SELECT count(*) FROM dogs GROUP BY age + 1", "SELECT count(*) AS n FROM dogs d GROUP BY d.age + 1", true},
	})
	s := testSchema(t)
	p := normalized(t, s, "SELECT count(*) FROM dogs GROUP BY age + 1")
	if c := p.Canonical(); !contains(c, "(t1.age + 1)") || contains(c, "col.") {
		t.Errorf("group key lost its definition:\n%s", c)
	}
}

// TestRowNullTestNotNegated: NOT (ROW(a, b) IS NULL) holds for a row with
// one NULL field, ROW(a, b) IS NOT NULL does not.
func TestRowNullTestNotNegated(t *testing.T) {
	runFingerprintPairs(t, []fingerprintPair{
		{"row", "SELECT name FROM dogs WHERE NOT ((age, name) IS NULL)", "SELECT name FROM dogs WHERE (age, name) IS NOT NULL", false},
		{"scalar", "SELECT name FROM dogs WHERE NOT (age IS NULL)", "SELECT name FROM dogs WHERE age IS NOT NULL", true},
	})
}

// TestCanonicalTellsProducersApart: computed columns print as their
// definitions, and set operation and VALUES columns by position, so the
// outputs of two aggregates (count(*)), two window nodes, two set
// operations or two VALUES lists read alike; swapping them in a condition
// gave one fingerprint for different queries.
func TestCanonicalTellsProducersApart(t *testing.T) {
	const agg = "(SELECT owner_id, count(*) c FROM dogs GROUP BY owner_id)"
	const win = "(SELECT owner_id, row_number() OVER () c FROM dogs)"
	const un = "(SELECT owner_id c FROM owners UNION SELECT dog_id FROM dogs)"
	const val = "(VALUES (1), (2)) AS"
	runFingerprintPairs(t, []fingerprintPair{
		{"aggregates", "SELECT x.c FROM " + agg + " x JOIN " + agg + " y ON x.c < y.c",
			"SELECT x.c FROM " + agg + " x JOIN " + agg + " y ON y.c < x.c", false},
		{"windows", "SELECT x.c FROM " + win + " x JOIN " + win + " y ON x.c < y.c",
			"SELECT x.c FROM " + win + " x JOIN " + win + " y ON y.c < x.c", false},
		{"set-operations", "SELECT x.c FROM " + un + " x JOIN " + un + " y ON x.c < y.c",
			"SELECT x.c FROM " + un + " x JOIN " + un + " y ON y.c < x.c", false},
		{"values", "SELECT x.c FROM " + val + " x(c) JOIN " + val + " y(c) ON x.c < y.c",
			"SELECT x.c FROM " + val + " x(c) JOIN " + val + " y(c) ON y.c < x.c", false},
		{"still-equal", "SELECT x.c FROM " + agg + " x JOIN " + agg + " y ON x.c < y.c",
			"SELECT p.c FROM " + agg + " p JOIN " + agg + " q ON p.c < q.c", true},
	})
}

// TestNormalizeContextStops: a done context stops normalization with its
// error rather than a half-normalized plan.
func TestNormalizeContextStops(t *testing.T) {
	s := testSchema(t)
	p, err := planner.Plan(context.Background(), s, "SELECT name FROM dogs WHERE age IN (1, 2, 3)", planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if q, err := norm.NormalizeContext(ctx, p); !errors.Is(err, context.Canceled) || q != nil {
		t.Errorf("got %v, %v; want nil, context.Canceled", q, err)
	}
}

package norm_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// schemaFile is the schema of the rule files (testdata/*/*.txt name it
// in a schema block) and of the tests here, after the example schema:
// tables with the constraints it lacks.
const schemaFile = "testdata/schema.sql"

func testSchema(t testing.TB) *catalog.Schema {
	t.Helper()
	ddl, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(catalog.ExampleDDL()+string(ddl), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// normalized builds sql without normalization, then runs norm.Normalize
// on it, so the test sees exactly what the normalizer did.
func normalized(t testing.TB, s *catalog.Schema, sql string) *plan.Plan {
	t.Helper()
	p, err := planner.Plan(context.Background(), s, sql, planner.Options{SkipNormalize: true})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if p, err = norm.Normalize(p); err != nil {
		t.Fatalf("%s: normalize: %v", sql, err)
	}
	return p
}

func fired(p *plan.Plan, rule string) bool { return slices.Contains(p.Rules, rule) }

// fingerprintPair is two queries whose normalized plans must (same) or
// must not (!same) share a fingerprint.
type fingerprintPair struct {
	name string
	a, b string
	same bool
}

func runFingerprintPairs(t *testing.T, pairs []fingerprintPair) {
	t.Helper()
	s := testSchema(t)
	for _, c := range pairs {
		t.Run(c.name, func(t *testing.T) {
			pa, pb := normalized(t, s, c.a), normalized(t, s, c.b)
			if got := pa.Fingerprint() == pb.Fingerprint(); got != c.same {
				t.Errorf("same fingerprint=%v, want %v\n--- %s\n%s\n--- %s\n%s", got, c.same, c.a, pa.Canonical(), c.b, pb.Canonical())
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

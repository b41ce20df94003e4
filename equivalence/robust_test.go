package equivalence_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func schemaFile(t testing.TB, name string, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	ddl, err := os.ReadFile(filepath.Join(sharedDir, "data/schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOrderLimitToMaxNoCycle: ORDER BY c LIMIT 1 over a computed column
// (VALUES, a set operation) once redefined c through MAX(c) and
// overflowed the stack of whatever rendered the plan, a fatal error no
// recover catches. Each pair must now be judged, quickly, with a sound
// label. (The rule application itself is checked for acyclicity by the
// hook in defs_internal_test.go.)
func TestOrderLimitToMaxNoCycle(t *testing.T) {
	pg := exampleSchema(t, catalog.Postgres)
	car := schemaFile(t, "car_1.sql", catalog.SQLite)
	const union = "(SELECT horsepower FROM cars_data WHERE cylinders = 4 UNION SELECT horsepower FROM cars_data WHERE weight > 3000) AS t"
	maxRef := "SELECT MAX(horsepower) FROM (SELECT horsepower, cylinders, weight FROM cars_data) AS t WHERE cylinders = 4 OR weight > 3000"
	cases := []struct {
		name      string
		s         *catalog.Schema
		ref, cand string
		fires     bool
		labels    []equivalence.Label // any of these
	}{
		{"values", pg, "SELECT 1", "SELECT x FROM (VALUES (1)) t(x) ORDER BY x LIMIT 1", true, []equivalence.Label{equivalence.Unknown}},
		{"values-max", pg, "SELECT MIN(x) FROM (VALUES (1), (2)) t(x)", "SELECT x FROM (VALUES (1), (2)) t(x) ORDER BY x LIMIT 1", true, []equivalence.Label{equivalence.EquivalentUnderAssumptions, equivalence.Equivalent}},
		// SQLite sorts NULLs first ascending, last descending: DESC LIMIT 1
		// is MAX there.
		{"union-desc-sqlite", car, maxRef, "SELECT horsepower FROM " + union + " ORDER BY horsepower DESC LIMIT 1", true, []equivalence.Label{equivalence.Unknown, equivalence.EquivalentUnderAssumptions}},
		{"union-desc-nulls-last", car, maxRef, "SELECT horsepower FROM " + union + " ORDER BY horsepower DESC NULLS LAST LIMIT 1", true, []equivalence.Label{equivalence.Unknown, equivalence.EquivalentUnderAssumptions}},
		{"union-asc-nulls-first", car, "SELECT MIN(horsepower) FROM cars_data", "SELECT horsepower FROM " + union + " ORDER BY horsepower ASC LIMIT 1", false, []equivalence.Label{equivalence.Unknown}},
		{"scalar-subquery", pg, "SELECT name FROM dogs WHERE age = (SELECT MAX(x) FROM (VALUES (1), (2)) v(x))",
			"SELECT name FROM dogs WHERE age = (SELECT x FROM (VALUES (1), (2)) v(x) ORDER BY x DESC NULLS LAST LIMIT 1)", true, []equivalence.Label{equivalence.Unknown, equivalence.EquivalentUnderAssumptions}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			v, err := equivalence.Judge(ctx, tc.s, tc.ref, tc.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v, want well under 1s", d)
			}
			if !slices.Contains(tc.labels, v.Label) {
				t.Errorf("label %s, want one of %v\n%s", v.Label, tc.labels, v.Summary())
			}
			if got := slices.Contains(v.Rules, equivalence.RuleOrderLimitToMax); got != tc.fires {
				t.Errorf("%s fired = %v, want %v (rules %v)", equivalence.RuleOrderLimitToMax, got, tc.fires, v.Rules)
			}
		})
	}
}

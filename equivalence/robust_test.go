package equivalence_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func schemaFile(t testing.TB, name string, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	ddl, err := os.ReadFile(shareddata.Path(t, "data/schemas/"+name))
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
		// One row: the normalizer inlines the VALUES and drops the LIMIT
		// of one row before order-limit-to-max could apply.
		{"values", pg, "SELECT 1", "SELECT x FROM (VALUES (1)) t(x) ORDER BY x LIMIT 1", false, []equivalence.Label{equivalence.Equivalent}},
		{"values-max", pg, "SELECT MIN(x) FROM (VALUES (1), (2)) t(x)", "SELECT x FROM (VALUES (1), (2)) t(x) ORDER BY x LIMIT 1", true, []equivalence.Label{equivalence.EquivalentUnderAssumptions, equivalence.Equivalent}},
		// SQLite sorts NULLs first ascending, last descending: DESC LIMIT 1
		// is MAX there.
		{"union-desc-sqlite", car, maxRef, "SELECT horsepower FROM " + union + " ORDER BY horsepower DESC LIMIT 1", true, []equivalence.Label{equivalence.Unknown, equivalence.EquivalentUnderAssumptions}},
		{"union-desc-nulls-last", car, maxRef, "SELECT horsepower FROM " + union + " ORDER BY horsepower DESC NULLS LAST LIMIT 1", true, []equivalence.Label{equivalence.Unknown, equivalence.EquivalentUnderAssumptions}},
		{"union-asc-nulls-first", car, "SELECT MIN(horsepower) FROM cars_data", "SELECT horsepower FROM " + union + " ORDER BY horsepower ASC LIMIT 1", false, []equivalence.Label{equivalence.Unknown}},
		// A scalar subquery's body needs no non-empty assumption (issue 35).
		{"scalar-subquery", pg, "SELECT name FROM dogs WHERE age = (SELECT MAX(x) FROM (VALUES (1), (2)) v(x))",
			"SELECT name FROM dogs WHERE age = (SELECT x FROM (VALUES (1), (2)) v(x) ORDER BY x DESC NULLS LAST LIMIT 1)", true, []equivalence.Label{equivalence.Unknown, equivalence.Equivalent}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			// Structure alone: what is tested is that the rewrite leaves
			// no definition cycle (the refuter refutes some of these).
			v, err := equivalence.Judge(ctx, tc.s, tc.ref, tc.cand, equivalence.Options{Refute: equivalence.RefuteOptions{Off: true}})
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

// TestMaxQueryBytes: a query over the size limit gets an unknown verdict
// naming it, never an error; a negative limit means none.
func TestMaxQueryBytes(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	small := "SELECT name FROM dogs"
	big := inList(200_000) // about 1.5 MB, over the default limit
	cases := []struct {
		name      string
		ref, cand string
		limit     int
		refMsg    string // substring of Difference.Reference; "" for none
		candMsg   string
		judged    bool
	}{
		{"default limit, candidate", small, big, 0, "", "candidate query is 1488927 bytes, over the limit of 1048576", false},
		{"default limit, reference", big, small, 0, "reference query is 1488927 bytes, over the limit of 1048576", "", false},
		{"both over a small limit", small, small + " WHERE age > 1", 10, "reference query is 21 bytes, over the limit of 10", "candidate query is 35 bytes, over the limit of 10", false},
		{"at the limit", small, small, len(small), "", "", true},
		{"unlimited", inList(2000), inList(2000), -1, "", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := equivalence.Judge(context.Background(), s, tc.ref, tc.cand, equivalence.Options{MaxQueryBytes: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if tc.judged {
				if v.Label != equivalence.Equivalent {
					t.Errorf("label %s, want equivalent: %s", v.Label, v.Summary())
				}
				return
			}
			if v.Label != equivalence.Unknown || len(v.Differences) != 1 || v.Differences[0].Component != equivalence.ComponentTooLarge {
				t.Fatalf("got %s", v.Summary())
			}
			d := v.Differences[0]
			if (tc.refMsg == "") != (d.Reference == "") || !strings.Contains(d.Reference, tc.refMsg) {
				t.Errorf("reference part %q, want %q", d.Reference, tc.refMsg)
			}
			if (tc.candMsg == "") != (d.Candidate == "") || !strings.Contains(d.Candidate, tc.candMsg) {
				t.Errorf("candidate part %q, want %q", d.Candidate, tc.candMsg)
			}
		})
	}
}

// TestJudgeStopsWithContext: an ended context stops the judgement with
// its error, wrapped, and promptly.
func TestJudgeStopsWithContext(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	cases := []struct {
		name      string
		ref, cand string
	}{
		{"small", "SELECT name FROM dogs", "SELECT name FROM dogs WHERE age > 1"},
		{"union chain", unionChain(500), unionChain(500) + " UNION SELECT name FROM dogs"},
		{"in-list", inList(5000), inList(5000, 5000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := equivalence.Judge(ctx, s, tc.ref, tc.cand, equivalence.Options{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			// A deadline that passes mid-judgement: the judge's own stages
			// poll the context; the total is the planner's share plus a
			// slack far under the uninterrupted time.
			ctx, cancel = context.WithTimeout(context.Background(), 5*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err = equivalence.Judge(ctx, s, tc.ref, tc.cand, equivalence.Options{})
			el := time.Since(start)
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want nil or context.DeadlineExceeded", err)
			}
			t.Logf("stopped after %v: %v", el, err)
			if el > 2*time.Second {
				t.Errorf("took %v past a 5 ms deadline", el)
			}
		})
	}
}

// TestGMNSkippedForLargePlans: the GMN is left out, with a note, for
// plans beyond its size bound, so a large pair stays fast.
func TestGMNSkippedForLargePlans(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	m, err := gmnmodel.Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		ref, cand string
		skipped   bool
	}{
		{"small", "SELECT name FROM dogs", "SELECT name FROM dogs WHERE age > 1", false},
		{"large", inList(3000), inList(3000, 3000), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			// Structure alone, so that both pairs stay unknown: the GMN
			// scores only what neither proof nor search settles.
			v, err := equivalence.Judge(context.Background(), s, tc.ref, tc.cand, equivalence.Options{GMN: m, Refute: equivalence.RefuteOptions{Off: true}})
			if err != nil {
				t.Fatal(err)
			}
			noted := slices.ContainsFunc(v.Notes, func(n string) bool { return strings.HasPrefix(n, "gmn skipped") })
			if noted != tc.skipped || (v.Scores.GMN == 0) != tc.skipped {
				t.Errorf("gmn score %v, notes %v; want skipped %v", v.Scores.GMN, v.Notes, tc.skipped)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

// TestVacuousOrderBy: a top-level ORDER BY orders nothing when the result
// has at most one row (a key equated with a constant, an always-false
// filter, a union of inputs with at most one row between them) or its
// keys are constants; such pairs were proved
// not_equivalent. Orders that do count still do.
func TestVacuousOrderBy(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	eq, ne := equivalence.Equivalent, equivalence.NotEquivalent
	cases := []struct {
		ref, cand string
		label     equivalence.Label
	}{
		{"SELECT name FROM dogs WHERE dog_id = 1 ORDER BY age", "SELECT name FROM dogs WHERE dog_id = 1", eq},
		{"SELECT name FROM dogs WHERE false ORDER BY age", "SELECT name FROM dogs WHERE false", eq},
		{"SELECT name FROM dogs ORDER BY 'a'", "SELECT name FROM dogs", eq},
		{"SELECT name FROM dogs ORDER BY 1 + 1", "SELECT name FROM dogs", eq},
		{"SELECT name FROM dogs ORDER BY 'a', age", "SELECT name FROM dogs ORDER BY age", eq},
		{"SELECT name FROM dogs WHERE dog_id = 1 ORDER BY age LIMIT 2", "SELECT name FROM dogs WHERE dog_id = 1 ORDER BY age DESC LIMIT 2", eq},
		{"SELECT name FROM dogs WHERE dog_id = 1 AND age > 2 ORDER BY name", "SELECT name FROM dogs WHERE age > 2 AND dog_id = 1", eq},
		// spark-053: a union of an empty input and one of at most one row.
		{"((SELECT * FROM dogs LIMIT 0) UNION ALL (SELECT * FROM dogs ORDER BY age LIMIT 1)) ORDER BY age", "(SELECT * FROM dogs LIMIT 0) UNION ALL (SELECT * FROM dogs ORDER BY age LIMIT 1)", eq},
		{"(SELECT * FROM dogs WHERE false) EXCEPT (SELECT * FROM dogs) ORDER BY age", "(SELECT * FROM dogs WHERE false) EXCEPT (SELECT * FROM dogs)", eq},
		// Not a key, or a real sort key: the order still counts. Where
		// no database can show it (the engine's LIMIT 1 may pick one row
		// twice), the pair is unknown: not_equivalent needs evidence.
		{"((SELECT * FROM dogs LIMIT 1) UNION ALL (SELECT * FROM dogs LIMIT 1)) ORDER BY age", "(SELECT * FROM dogs LIMIT 1) UNION ALL (SELECT * FROM dogs LIMIT 1)", equivalence.Unknown},
		{"SELECT name FROM dogs WHERE age = 1 ORDER BY name", "SELECT name FROM dogs WHERE age = 1", ne},
		{"SELECT name FROM dogs ORDER BY age", "SELECT name FROM dogs ORDER BY 'a'", ne},
		{"SELECT name FROM dogs WHERE dog_id > 1 ORDER BY age", "SELECT name FROM dogs WHERE dog_id > 1", ne},
	}
	for _, tc := range cases {
		t.Run(tc.ref+" vs "+tc.cand, func(t *testing.T) {
			v, err := equivalence.Judge(context.Background(), s, tc.ref, tc.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != tc.label {
				t.Errorf("label %s, want %s: %s", v.Label, tc.label, v.Summary())
			}
		})
	}
}

// TestAlikeBeforeRulesNeedsNoAssumption: a rule that assumes something
// (ORDER BY ... LIMIT 1 ⇒ MIN assumes a non-empty input) rewrites both of
// two identical queries alike, so their equivalence assumes nothing; a
// pair that needs the rewrite still names the assumption.
func TestAlikeBeforeRulesNeedsNoAssumption(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	for _, tc := range []struct {
		ref, cand string
		want      equivalence.Label
	}{
		{"SELECT age FROM dogs ORDER BY age LIMIT 1", "SELECT age FROM dogs ORDER BY age LIMIT 1", equivalence.Equivalent},
		{"SELECT a FROM (VALUES (NULL)) AS d(a) ORDER BY a LIMIT 1", "SELECT a FROM (VALUES (NULL)) AS d(a) ORDER BY a LIMIT 1", equivalence.Equivalent},
		{"SELECT age FROM dogs ORDER BY age LIMIT 1", "SELECT d.age FROM dogs AS d ORDER BY 1 LIMIT 1", equivalence.Equivalent},
		{"SELECT age FROM dogs ORDER BY age LIMIT 1", "SELECT MIN(age) FROM dogs", equivalence.EquivalentUnderAssumptions},
	} {
		v, err := equivalence.Judge(context.Background(), s, tc.ref, tc.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Label != tc.want || (tc.want == equivalence.Equivalent) != (len(v.Assumptions) == 0) {
			t.Errorf("%q vs %q: %s", tc.ref, tc.cand, v.Summary())
		}
	}
}

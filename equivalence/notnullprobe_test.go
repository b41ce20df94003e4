package equivalence_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// A pair that differs only when a nullable column holds NULL keeps its
// counterexample and says under which NOT NULL assumptions it is proved;
// the unusual_data policy makes it equivalent_under_assumptions, and
// accept_assumptions decides whether either form passes.
func TestNotNullProbe(t *testing.T) {
	ddl := `CREATE TABLE s (id int PRIMARY KEY, x int, note text);
CREATE TABLE u (id int PRIMARY KEY, y int, z int);`
	cases := []struct {
		name, dialect, ref, cand string
		want                     []string // ProvedUnder, as strings; nil: none
	}{
		{"not in vs not exists", "postgres",
			"SELECT id FROM s WHERE x NOT IN (SELECT y FROM u)",
			"SELECT id FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.y = s.x)",
			[]string{"s.x holds no NULL", "u.y holds no NULL"}},
		{"count column vs count star", "sqlite",
			"SELECT count(x) FROM s", "SELECT count(*) FROM s",
			[]string{"s.x holds no NULL"}},
		{"ordinary difference: no proof", "postgres",
			"SELECT id FROM s WHERE x > 1", "SELECT id FROM s WHERE x >= 1", nil},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := catalog.ParseDialect(c.dialect)
			s, err := catalog.LoadDDL(ddl, d)
			if err != nil {
				t.Fatal(err)
			}
			v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Label != equivalence.NotEquivalent || v.Counterexample == nil {
				t.Fatalf("verdict %s", v.Summary())
			}
			var got []string
			for _, a := range v.ProvedUnder {
				got = append(got, a.String())
			}
			if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
				t.Fatalf("proved under %q, want %q (%s)", got, c.want, v.Summary())
			}
			accept := equivalence.Options{AcceptAssumptions: []equivalence.AssumptionKind{equivalence.AssumeNotNull}}
			if c.want == nil {
				if accept.Passes(v) {
					t.Error("a plain counterexample passes")
				}
				return
			}
			if !strings.Contains(v.Summary(), "proved equivalent assuming "+c.want[0]) {
				t.Errorf("summary does not say it: %s", v.Summary())
			}
			if (equivalence.Options{}).Passes(v) || !accept.Passes(v) {
				t.Errorf("passes: %v with nothing accepted, %v with not_null accepted", (equivalence.Options{}).Passes(v), accept.Passes(v))
			}
			var away equivalence.Options
			if err := away.SetPolicy("unusual_data", equivalence.UnusualDataAssumedAway); err != nil {
				t.Fatal(err)
			}
			w, err := equivalence.Judge(ctx, s, c.ref, c.cand, away)
			if err != nil {
				t.Fatal(err)
			}
			if w.Label != equivalence.EquivalentUnderAssumptions || w.Counterexample == nil || len(w.Assumptions) != len(c.want) {
				t.Errorf("unusual_data=assumed_away: %s", w.Summary())
			}
		})
	}
}

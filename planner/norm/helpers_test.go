package norm_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// extraDDL adds tables whose constraints the example schema lacks: a
// composite primary key, a nullable UNIQUE column, a NOT NULL UNIQUE
// column and a unique index.
const extraDDL = `
CREATE TABLE visits (
  dog_id   integer NOT NULL REFERENCES dogs,
  visit_no integer NOT NULL,
  note     text,
  code     text NOT NULL UNIQUE,
  tag      text UNIQUE,
  PRIMARY KEY (dog_id, visit_no)
);
CREATE TABLE tags (label text NOT NULL, grp text);
CREATE UNIQUE INDEX tags_label ON tags (label);
CREATE TABLE readings (id integer PRIMARY KEY, f double precision, r real, d numeric(10,2));
`

func testSchema(t testing.TB) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL()+extraDDL, catalog.Postgres)
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

// ruleCase is one query with what a single rule must do to it.
type ruleCase struct {
	name string
	sql  string
	// fire says whether the rule under test must fire.
	fire bool
	// has and hasNot are substrings of the canonical plan text.
	has, hasNot []string
}

func runRuleCases(t *testing.T, rule string, cases []ruleCase) {
	t.Helper()
	s := testSchema(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := normalized(t, s, c.sql)
			text := p.Canonical()
			if got := fired(p, rule); got != c.fire {
				t.Errorf("rule %s fired=%v, want %v (rules %v)\n%s", rule, got, c.fire, p.Rules, text)
			}
			for _, h := range c.has {
				if !strings.Contains(text, h) {
					t.Errorf("plan lacks %q:\n%s", h, text)
				}
			}
			for _, h := range c.hasNot {
				if strings.Contains(text, h) {
					t.Errorf("plan has %q:\n%s", h, text)
				}
			}
		})
	}
}

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

package spidereval_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/spidereval"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

func TestRemoveDistinct(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT DISTINCT a FROM t", "SELECT          a FROM t"},
		{"select count(distinct a) from t", "select count(         a) from t"},
		{"SELECT 'DISTINCT' FROM t WHERE \"distinct\" = 1 -- distinct", "SELECT 'DISTINCT' FROM t WHERE \"distinct\" = 1 -- distinct"},
		{"SELECT distinctive, `distinct` FROM t /* DISTINCT */", "SELECT distinctive, `distinct` FROM t /* DISTINCT */"},
		{"SELECT 'it''s', DISTINCT_x FROM [distinct]", "SELECT 'it''s', DISTINCT_x FROM [distinct]"},
	} {
		if got := spidereval.RemoveDistinct(c.in); got != c.want {
			t.Errorf("RemoveDistinct(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPresetTestSuite: under the official metric's conventions a missing
// DISTINCT (even in COUNT) is no difference; under SQL semantics it is.
func TestPresetTestSuite(t *testing.T) {
	s, err := catalog.LoadDDL("CREATE TABLE singer (id INTEGER PRIMARY KEY, country TEXT, age INTEGER);", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	items := []spidereval.Item{
		{Index: 0, DB: "concert", Gold: "SELECT DISTINCT country FROM singer", Pred: "SELECT country FROM singer"},
		{Index: 1, DB: "concert", Gold: "SELECT count(DISTINCT country) FROM singer", Pred: "SELECT count(country) FROM singer"},
	}
	schemas := fixedSchema{s}
	for _, preset := range []string{"", spidereval.PresetTestSuite} {
		res, err := spidereval.Run(context.Background(), items, schemas, spidereval.Options{Preset: preset})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			proved := r.Verdict.Label == equivalence.Equivalent
			if proved != (preset != "") {
				t.Errorf("preset %q, item %d: %s", preset, r.Index, r.Verdict.Label)
			}
		}
	}
	if _, err := spidereval.Run(context.Background(), items, schemas, spidereval.Options{Preset: "exact"}); err == nil {
		t.Error("an unknown preset was accepted")
	}
}

type fixedSchema struct{ s *catalog.Schema }

func (f fixedSchema) Get(string, catalog.Dialect) (*catalog.Schema, error) { return f.s, nil }

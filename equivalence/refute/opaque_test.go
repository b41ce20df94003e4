package refute

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestOpaqueColumns: a column of a type the executor does not model
// (posts.tags_cache, a text[]) gets fillers only where no plan evaluates
// it (never read, or carried unchanged to the output); any other use
// keeps it NULL only, so that the executor never evaluates a value it
// does not model. A jsonb column (posts.metadata) is modelled: never
// opaque, it gets documents.
func TestOpaqueColumns(t *testing.T) {
	s, _ := appSchema(t)
	meta, tags := 8, 9 // posts.metadata, posts.tags_cache
	if c := s.Table("posts").Columns; c[meta].Name != "metadata" || c[tags].Name != "tags_cache" {
		t.Fatal("testdata/app_schema.sql: posts' columns moved")
	}
	if !executable(s.Dialect, &s.Table("posts").Columns[meta]) {
		t.Error("posts.metadata (jsonb) is not modelled")
	}
	cases := []struct {
		name    string
		queries []string
		tags    bool // posts.tags_cache gets fillers
	}{
		{"not read", []string{`SELECT id FROM posts WHERE views > 1`}, true},
		{"carried to the output", []string{`SELECT id, tags_cache FROM posts ORDER BY id`}, true},
		{"carried through a derived table", []string{`SELECT m FROM (SELECT tags_cache AS m, views FROM posts) d WHERE views > 1`}, true},
		{"carried by an outer join", []string{`SELECT u.id, p.tags_cache FROM users u LEFT JOIN posts p ON p.author_id = u.id`}, true},
		{"DISTINCT compares it", []string{`SELECT DISTINCT tags_cache FROM posts`}, false},
		{"UNION compares it", []string{`SELECT tags_cache FROM posts UNION ALL SELECT tags_cache FROM posts`}, false},
		{"grouped", []string{`SELECT tags_cache, count(*) FROM posts GROUP BY tags_cache`}, false},
		{"filtered", []string{`SELECT id FROM posts WHERE tags_cache IS NOT NULL`}, false},
		{"sorted", []string{`SELECT id FROM posts ORDER BY tags_cache`}, false},
		{"in an expression", []string{`SELECT coalesce(tags_cache, tags_cache) FROM posts`}, false},
		{"returned by a scalar subquery", []string{`SELECT (SELECT tags_cache FROM posts LIMIT 1)`}, false},
		{"one plan of two evaluates it", []string{`SELECT id FROM posts`, `SELECT id FROM posts WHERE tags_cache IS NULL`}, false},
	}
	for _, c := range cases {
		plans := make([]*plan.Plan, 0, len(c.queries))
		for _, q := range c.queries {
			plans = append(plans, mustPlan(t, s, q))
		}
		got := opaqueColumns(s, s.Tables, plans...)["posts"]
		if got == nil {
			got = make([]bool, len(s.Table("posts").Columns)) // none opaque
		}
		if got[meta] || got[tags] != c.tags {
			t.Errorf("%s: metadata %v, tags_cache %v; want false, %v", c.name, got[meta], got[tags], c.tags)
		}
	}
}

// TestOpaqueColumnsNotEvaluated: pairs that differ only in how they read
// a column of an unmodelled type are never refuted by a guess: the
// column stays NULL, and where it is NOT NULL the table stays empty and
// the search says so (Unpopulated).
func TestOpaqueColumnsNotEvaluated(t *testing.T) {
	s, _ := appSchema(t)
	pairs := [][2]string{
		{`SELECT DISTINCT tags_cache FROM posts`, `SELECT tags_cache FROM posts`},
		{`SELECT id FROM posts WHERE tags_cache IS NOT NULL`, `SELECT id FROM posts`},
	}
	for _, p := range pairs {
		res, err := Refute(context.Background(), s, mustPlan(t, s, p[0]), mustPlan(t, s, p[1]), appOpts())
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			t.Errorf("%s / %s: refuted on values the executor does not model:\n%s", p[0], p[1], describe(res))
		}
		if !res.CannotExecute && (len(res.Unpopulated) != 1 || res.Unpopulated[0] != "posts") {
			t.Errorf("%s / %s: unpopulated %v, want [posts]", p[0], p[1], res.Unpopulated)
		}
	}
}

// TestNeedsEmptyFillableTable: a table whose NOT NULL jsonb column gets
// fillers can hold rows, so a difference that shows only when it is
// empty needs an empty table (a weak counterexample), as for any table.
func TestNeedsEmptyFillableTable(t *testing.T) {
	s, _ := appSchema(t)
	res, err := Refute(context.Background(), s, mustPlan(t, s, `SELECT count(*) > 0 FROM posts`), mustPlan(t, s, `SELECT true`), appOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found {
		t.Fatalf("not refuted: %s", res.Reason)
	}
	if got := res.Counterexample.Needs; len(got) != 1 || got[0] != NeedsEmptyTable {
		t.Errorf("needs %v, want [%s]\n%s", got, NeedsEmptyTable, describe(res))
	}
}

package refute

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestOpaqueColumns: a column of a type the executor does not model
// gets fillers only where no plan evaluates it (never read, or carried
// unchanged to the output); any other use keeps it NULL only, so that
// the executor never evaluates a value it does not model.
func TestOpaqueColumns(t *testing.T) {
	s, _ := appSchema(t)
	meta, tags := 8, 9 // posts.metadata, posts.tags_cache
	if c := s.Table("posts").Columns; c[meta].Name != "metadata" || c[tags].Name != "tags_cache" {
		t.Fatal("testdata/app_schema.sql: posts' columns moved")
	}
	cases := []struct {
		name       string
		queries    []string
		meta, tags bool // posts.metadata, posts.tags_cache get fillers
	}{
		{"not read", []string{`SELECT id FROM posts WHERE views > 1`}, true, true},
		{"carried to the output", []string{`SELECT id, metadata FROM posts ORDER BY id`}, true, true},
		{"carried through a derived table", []string{`SELECT m FROM (SELECT metadata AS m, views FROM posts) d WHERE views > 1`}, true, true},
		{"carried by an outer join", []string{`SELECT u.id, p.metadata FROM users u LEFT JOIN posts p ON p.author_id = u.id`}, true, true},
		{"DISTINCT compares it", []string{`SELECT DISTINCT metadata FROM posts`}, false, true},
		{"UNION compares it", []string{`SELECT metadata FROM posts UNION ALL SELECT profile FROM users`}, false, true},
		{"grouped", []string{`SELECT tags_cache, count(*) FROM posts GROUP BY tags_cache`}, true, false},
		{"filtered", []string{`SELECT id FROM posts WHERE metadata IS NOT NULL`}, false, true},
		{"sorted", []string{`SELECT id FROM posts ORDER BY tags_cache`}, true, false},
		{"in an expression", []string{`SELECT coalesce(metadata, '{}') FROM posts`}, false, true},
		{"returned by a scalar subquery", []string{`SELECT (SELECT metadata FROM posts LIMIT 1)`}, false, true},
		{"compared by IN", []string{`SELECT id FROM users WHERE profile IN (SELECT metadata FROM posts)`}, false, true},
		{"one plan of two evaluates it", []string{`SELECT id FROM posts`, `SELECT id FROM posts WHERE metadata IS NULL`}, false, true},
	}
	for _, c := range cases {
		plans := make([]*plan.Plan, 0, len(c.queries))
		for _, q := range c.queries {
			plans = append(plans, mustPlan(t, s, q))
		}
		got := opaqueColumns(s, s.Tables, plans...)["posts"]
		if got == nil {
			t.Errorf("%s: no opaque column of posts", c.name)
			continue
		}
		if got[meta] != c.meta || got[tags] != c.tags {
			t.Errorf("%s: metadata %v, tags_cache %v; want %v, %v", c.name, got[meta], got[tags], c.meta, c.tags)
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
		{`SELECT DISTINCT metadata FROM posts`, `SELECT metadata FROM posts`},
		{`SELECT id FROM posts WHERE metadata IS NOT NULL`, `SELECT id FROM posts`},
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

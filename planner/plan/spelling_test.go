package plan_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// TestSpellingChoices: the operators that merge rows equal under a
// nondeterministic collation, read on the plan as built; nothing where
// the merged rows cannot differ in spelling (BINARY, a key within the
// merged columns, UNION ALL).
func TestSpellingChoices(t *testing.T) {
	const ddl = `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, plain TEXT, code TEXT COLLATE NOCASE NOT NULL UNIQUE, k INT);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sql      string
		subjects []string // one per operator that chooses
	}{
		{"SELECT DISTINCT name FROM t", []string{"t.name (nocase)"}},
		{"SELECT name FROM t GROUP BY name", []string{"t.name (nocase)"}},
		{"SELECT k, max(name) FROM t GROUP BY k", []string{"t.name (nocase)"}},
		{"SELECT name FROM t UNION SELECT name FROM t", []string{"name (nocase)"}},
		{"SELECT name FROM t EXCEPT SELECT name FROM t WHERE k = 1", []string{"name (nocase)"}},
		{"SELECT id FROM t WHERE k IN (SELECT count(*) FROM t GROUP BY name)", []string{"t.name (nocase)"}},
		{"SELECT id, min(name) OVER (PARTITION BY k) FROM t", []string{"t.name (nocase)"}},
		{"SELECT id, count(name) OVER (PARTITION BY k) FROM t", nil},
		{"SELECT DISTINCT plain FROM t", nil},
		{"SELECT DISTINCT id, name FROM t", nil},
		{"SELECT DISTINCT code FROM t", nil},
		{"SELECT name FROM t UNION ALL SELECT name FROM t", nil},
		// PostgreSQL's lower() keeps its argument's collation; the
		// model reads it so in SQLite too, where it is BINARY.
		{"SELECT DISTINCT lower(name) FROM t", []string{"lower"}},
		{"SELECT k, max(plain) FROM t GROUP BY k", nil},
	} {
		var got []plan.SpellingChoice
		if _, err := planner.Plan(context.Background(), s, c.sql, planner.Options{Built: func(p *plan.Plan) { got = plan.SpellingChoices(p.Meta, p.Root) }}); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var subjects []string
		for _, g := range got {
			subjects = append(subjects, g.Subject)
			if g.Key == "" {
				t.Errorf("%s: a choice without a key", c.sql)
			}
		}
		if strings.Join(subjects, "; ") != strings.Join(c.subjects, "; ") {
			t.Errorf("%s: choices on %q, want %q", c.sql, subjects, c.subjects)
		}
	}
}

// TestSameSpellingChoices: choices compare as multisets of keys.
func TestSameSpellingChoices(t *testing.T) {
	a := plan.SpellingChoice{Key: "distinct(scan t)"}
	b := plan.SpellingChoice{Key: "union(scan t, scan u)"}
	for _, c := range []struct {
		x, y []plan.SpellingChoice
		same bool
	}{
		{nil, nil, true},
		{[]plan.SpellingChoice{a, b}, []plan.SpellingChoice{b, a}, true},
		{[]plan.SpellingChoice{a}, nil, false},
		{[]plan.SpellingChoice{a, a}, []plan.SpellingChoice{a, b}, false},
	} {
		if got := plan.SameSpellingChoices(c.x, c.y); got != c.same {
			t.Errorf("%v / %v: %v, want %v", c.x, c.y, got, c.same)
		}
	}
}

// TestSpellingChoicesLargeUnionChain: a chain of UNIONs over a NOCASE
// column renders each UNION's subtree for its key; past a bound the keys
// are left unrendered (matching nothing), so the work stays linear in
// practice and the chain still lists every choice.
func TestSpellingChoicesLargeUnionChain(t *testing.T) {
	s, err := catalog.LoadDDL(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE);`, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	const n = 800
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("SELECT name FROM t WHERE id = %d", i)
	}
	var got []plan.SpellingChoice
	if _, err := planner.Plan(context.Background(), s, strings.Join(parts, " UNION "), planner.Options{MaxNodes: -1,
		Built: func(p *plan.Plan) { got = plan.SpellingChoices(p.Meta, p.Root) }}); err != nil {
		t.Fatal(err)
	}
	unrendered, bytes := 0, 0
	for _, c := range got {
		bytes += len(c.Key)
		if strings.HasPrefix(c.Key, "unrendered ") {
			unrendered++
		}
	}
	if len(got) != n-1 || unrendered == 0 || bytes > 2<<20 {
		t.Fatalf("%d choices (want %d), %d unrendered, %d bytes of keys", len(got), n-1, unrendered, bytes)
	}
}

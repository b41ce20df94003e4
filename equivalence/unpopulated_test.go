package equivalence_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestUnpopulatedSearchIsNoEvidence: a search whose databases never gave
// a table the queries read a row (here a NOT NULL tsvector column, a
// type the generator has no value for) says so in Search.Unpopulated,
// counts as no search evidence for the score, and writes the field in
// JSON; a search that populated every table read leaves it out and
// counts as evidence.
func TestUnpopulatedSearchIsNoEvidence(t *testing.T) {
	const ddl = `CREATE TABLE docs (id integer PRIMARY KEY, n integer NOT NULL, body tsvector NOT NULL);
CREATE TABLE notes (id integer PRIMARY KEY, n integer NOT NULL, body tsvector);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 5 * time.Second}}
	cases := []struct {
		ref, cand   string
		unpopulated []string
	}{
		// docs can hold no row: the difference cannot show.
		{"SELECT id FROM docs WHERE n > 1", "SELECT id FROM docs WHERE n >= 1", []string{"docs"}},
		{"SELECT d.id FROM docs d JOIN notes o ON d.id = o.id WHERE o.n > 1", "SELECT d.id FROM docs d JOIN notes o ON d.id = o.id WHERE o.n >= 1", []string{"docs"}},
		// With parameters: searched under several assignments, none of
		// which gave docs a row.
		{"SELECT id FROM docs WHERE n > $1", "SELECT id FROM docs WHERE n >= $1", []string{"docs"}},
		// notes' body may be NULL: its rows are generated, and a pair the
		// judge cannot prove is searched on them.
		{"SELECT id FROM notes WHERE abs(n) >= 0", "SELECT id FROM notes WHERE n * n >= 0", nil},
	}
	for _, c := range cases {
		v, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, opts)
		if err != nil {
			t.Fatal(err)
		}
		if v.Search == nil {
			t.Errorf("%s / %s: no search recorded: %s", c.ref, c.cand, v.Summary())
			continue
		}
		if !slices.Equal(v.Search.Unpopulated, c.unpopulated) {
			t.Errorf("%s / %s: unpopulated %v, want %v", c.ref, c.cand, v.Search.Unpopulated, c.unpopulated)
		}
		ev := equivalence.SearchEvidence(v.Search)
		if (ev == 0) != (len(c.unpopulated) > 0) {
			t.Errorf("%s / %s: search evidence %v with unpopulated %v", c.ref, c.cand, ev, v.Search.Unpopulated)
		}
		b, err := json.Marshal(v.Search)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"unpopulated"`) != (len(c.unpopulated) > 0) {
			t.Errorf("%s / %s: JSON %s", c.ref, c.cand, b)
		}
		if len(c.unpopulated) > 0 && !strings.Contains(v.Search.Strength(), "no evidence") {
			t.Errorf("%s / %s: strength %q does not say so", c.ref, c.cand, v.Search.Strength())
		}
		// Nor does structure alone make such a pair likely equivalent
		// (these pairs score high on structure: one character apart).
		if len(c.unpopulated) > 0 && (v.Likely == "likely equivalent" || v.Score >= 0.5) {
			t.Errorf("%s / %s: %s (score %.3f) without a populated database", c.ref, c.cand, v.Likely, v.Score)
		}
	}
}

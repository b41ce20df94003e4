package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

// TestReferenceUnsupportedIsUnknown is issue 35's jsonb ? bug: a
// reference the planner does not take, though PostgreSQL runs it, is an
// unknown verdict naming the reason (as a candidate's is), not an error
// that makes pgequiv check exit 2. A reference naming a relation the
// schema lacks, which PostgreSQL refuses too, stays an error.
func TestReferenceUnsupportedIsUnknown(t *testing.T) {
	const ddl = "CREATE TABLE doc (id integer PRIMARY KEY, data jsonb)"
	ctx := context.Background()
	conn, s := pgLoaded(t, ctx, ddl)
	cases := []struct {
		ref, cand string
		pgRuns    bool   // PostgreSQL runs the reference
		component string // "" : the judge returns an error
		reason    string // the difference's text, when not ""
	}{
		{"SELECT id FROM doc WHERE data ?& ARRAY['a']", "SELECT id FROM doc WHERE data ?& ARRAY['a'] AND true", true, equivalence.ComponentReferenceUnsupported, ""},
		{"SELECT id FROM doc WHERE data ?| ARRAY['a', 'b']", "SELECT id FROM doc", true, equivalence.ComponentReferenceUnsupported, ""},
		{"SELECT id FROM doc", "SELECT id FROM doc WHERE data ?& ARRAY['a']", true, equivalence.ComponentCandidateUnsupported, ""},
		{"SELECT id FROM nosuch", "SELECT 1", false, "", ""},
		// Functions and types PostgreSQL has but the planner does not
		// model are unknown with the reason; a misspelled one, which
		// PostgreSQL refuses too, stays an error.
		{"SELECT json_agg(id) FROM doc", "SELECT json_agg(id) FROM doc", true, equivalence.ComponentReferenceUnsupported,
			"plan: function json_agg is not supported at position 8"},
		{"SELECT id FROM doc WHERE '10.0.0.1'::inet IS NOT NULL", "SELECT id FROM doc", true, equivalence.ComponentReferenceUnsupported,
			`plan: type "inet" is not supported at position 36`},
		{"SELECT id FROM doc", "SELECT id FROM doc WHERE to_tsvector('a') IS NOT NULL", true, equivalence.ComponentCandidateUnsupported,
			"plan: function to_tsvector is not supported at position 26"},
		{"SELECT jsno_agg(id) FROM doc", "SELECT json_agg(id) FROM doc", false, "", ""},
		{"SELECT id FROM doc WHERE '10.0.0.1'::inett IS NOT NULL", "SELECT id FROM doc", false, "", ""},
	}
	for _, c := range cases {
		_, pgErr := conn.Exec(ctx, c.ref)
		if (pgErr == nil) != c.pgRuns {
			t.Fatalf("%s: PostgreSQL error %v, want runs=%v", c.ref, pgErr, c.pgRuns)
		}
		v, err := equivalence.Judge(ctx, s, c.ref, c.cand, equivalence.Options{})
		if c.component == "" {
			if err == nil {
				t.Errorf("%s: verdict %s, want an error", c.ref, v.Label)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s / %s: error %v, want an unknown verdict", c.ref, c.cand, err)
			continue
		}
		if v.Label != equivalence.Unknown || len(v.Differences) == 0 || v.Differences[0].Component != c.component {
			t.Errorf("%s / %s: %s %+v, want unknown with %q", c.ref, c.cand, v.Label, v.Differences, c.component)
			continue
		}
		if d := v.Differences[0]; c.reason != "" && d.Reference != c.reason && d.Candidate != c.reason {
			t.Errorf("%s / %s: difference %+v, want the reason %q", c.ref, c.cand, d, c.reason)
		}
	}
}

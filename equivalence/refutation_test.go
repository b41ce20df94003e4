package equivalence_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestRefutedNearMisses: the near misses a new user tries first come back
// not_equivalent with a counterexample of at most two rows (issue 13,
// acceptance 4), shown in the summary.
func TestRefutedNearMisses(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: time.Minute}}
	for _, c := range []struct{ ref, cand string }{
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE age > 5"},
		{"SELECT name FROM dogs WHERE dog_id = 1", "SELECT name FROM dogs WHERE dog_id = 7"},
	} {
		v, err := equivalence.Judge(context.Background(), s, c.ref, c.cand, opts)
		if err != nil {
			t.Fatal(err)
		}
		ce := v.Counterexample
		if v.Label != equivalence.NotEquivalent || ce == nil {
			t.Fatalf("%s vs %s: %s, want not_equivalent with a counterexample", c.ref, c.cand, v.Summary())
		}
		if ce.Rows > 2 || len(ce.Inserts) == 0 {
			t.Errorf("%s vs %s: counterexample of %d rows, want at most 2:\n%s", c.ref, c.cand, ce.Rows, ce.Detail())
		}
		if ce.Reference.Count == ce.Candidate.Count && strings.Join(ce.Reference.Rows[0], ",") == strings.Join(ce.Candidate.Rows[0], ",") {
			t.Errorf("results do not differ: %+v vs %+v", ce.Reference, ce.Candidate)
		}
		if !strings.Contains(v.Summary(), "differ on a ") {
			t.Errorf("summary does not show the counterexample: %s", v.Summary())
		}
	}
}

// TestRefuteOff: with the search off, a near miss is only what structure
// says, and no counterexample is claimed.
func TestRefuteOff(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	v, err := equivalence.Judge(context.Background(), s, "SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE age > 5",
		equivalence.Options{Refute: equivalence.RefuteOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Label != equivalence.Unknown || v.Counterexample != nil || v.Search != nil {
		t.Fatalf("refute off: %s", v.Summary())
	}
}

// TestSurvivedSearchIsEvidence: an equivalent pair structure cannot
// prove survives the search, which says how hard it looked.
func TestSurvivedSearchIsEvidence(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	// Equivalent for integer ages (overflow aside: an error, which the
	// search does not count as a difference), and no proof handles
	// arithmetic in predicates.
	ref := "SELECT name FROM dogs WHERE age * 2 > 10"
	cand := "SELECT name FROM dogs WHERE age > 5"
	v, err := equivalence.Judge(context.Background(), s, ref, cand, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Label.Proved() {
		t.Fatalf("proved (%s): the judge grew stronger; pick a pair it cannot prove", v.Summary())
	}
	if v.Label != equivalence.Unknown || v.Search == nil || v.Search.Instances < equivalence.DefaultRefuteInstances/2 {
		t.Fatalf("want unknown with a search of many databases, got %s (search %+v)", v.Summary(), v.Search)
	}
	if equivalence.SearchEvidence(v.Search) <= 0.5 {
		t.Errorf("evidence %v for %+v", equivalence.SearchEvidence(v.Search), v.Search)
	}
}

// TestCounterexampleRedacted: redaction hides the values of the database
// and of the results, not the shape of the statements.
func TestCounterexampleRedacted(t *testing.T) {
	ce := &equivalence.Counterexample{
		Inserts:   []string{"INSERT INTO dogs (dog_id, name) VALUES (1, 'Rex');"},
		Rows:      1,
		Reference: equivalence.ResultSample{Count: 1, Rows: [][]string{{"Rex", "NULL"}}},
		Candidate: equivalence.ResultSample{Count: 0},
	}
	hide := func(s string) string {
		return strings.NewReplacer("'Rex'", "?", "1", "?").Replace(s)
	}
	r := ce.Redacted(hide)
	if strings.Contains(r.Detail(), "Rex") || !strings.Contains(r.Detail(), "INSERT INTO dogs") || !strings.Contains(r.Detail(), "NULL") {
		t.Errorf("redacted detail:\n%s", r.Detail())
	}
	if !strings.Contains(ce.Detail(), "Rex") {
		t.Errorf("the original changed:\n%s", ce.Detail())
	}
}

// TestJudgerCachesRefutations: a Judger remembers each pair's search, so
// a warm proxy judging a statement again does not search again, and
// gives the same verdict.
func TestJudgerCachesRefutations(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := equivalence.Options{Refute: equivalence.RefuteOptions{Budget: time.Minute}}
	for _, c := range []struct{ ref, cand string }{
		{"SELECT name FROM dogs WHERE age * 2 > 10", "SELECT name FROM dogs WHERE age > 5"}, // survives
		{"SELECT COUNT(*) FROM dogs", "SELECT COUNT(*) FROM dogs WHERE age > 5"},            // refuted
	} {
		first, err := j.Judge(context.Background(), s, c.ref, c.cand, opts)
		if err != nil {
			t.Fatal(err)
		}
		second, err := j.Judge(context.Background(), s, c.ref, c.cand, opts)
		if err != nil {
			t.Fatal(err)
		}
		if first.Search == nil && first.Counterexample == nil {
			t.Fatalf("%s: no search: %s", c.cand, first.Summary())
		}
		if second.Label != first.Label || second.Summary() != first.Summary() ||
			(first.Search != nil && !reflect.DeepEqual(*second.Search, *first.Search)) || second.Counterexample != first.Counterexample {
			t.Errorf("%s: cached verdict differs:\n  %s\n  %s", c.cand, first.Summary(), second.Summary())
		}
		// The same counterexample object, not a second search's.
		if first.Counterexample != nil && second.Counterexample != first.Counterexample {
			t.Errorf("%s: searched again", c.cand)
		}
	}
}

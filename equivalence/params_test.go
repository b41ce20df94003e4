package equivalence_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// paramPairs are pairs with parameters and what the judge must say of
// them: a pair is equivalent only if it is for every value of every
// parameter (the same $n in both queries is one value).
var paramPairs = []struct {
	name, ref, cand string
	proved          bool // equivalent for every value
	refuted         bool // a counterexample with values exists (and must be found)
}{
	{"repeated conjunct", "SELECT name FROM dogs WHERE age > $1 AND age > $1", "SELECT name FROM dogs WHERE age > $1", true, false},
	{"commuted", "SELECT name FROM dogs WHERE age > $1 AND name = $2", "SELECT name FROM dogs WHERE $2 = name AND $1 < age", true, false},
	{"count star", "SELECT count(*) FROM dogs WHERE age = $1", "SELECT count(dog_id) FROM dogs WHERE age = $1", true, false},
	{"two parameters", "SELECT name FROM dogs WHERE age > $1", "SELECT name FROM dogs WHERE age > $2", false, true},
	{"strict and not", "SELECT name FROM dogs WHERE age > $1", "SELECT name FROM dogs WHERE age >= $1", false, true},
	{"parameter for a literal", "SELECT name FROM dogs WHERE age > 5", "SELECT name FROM dogs WHERE age > $1", false, true},
	{"issue 19", "SELECT count(*) FROM dogs WHERE age > $1 AND age < 10", "SELECT count(owner_id) FROM dogs WHERE age > $1", false, true},
	{"NULL bound", "SELECT count(*) FROM dogs WHERE age = $1 OR $1 IS NULL", "SELECT count(*) FROM dogs WHERE age = $1", false, true},
	{"text", "SELECT dog_id FROM dogs WHERE name = $1", "SELECT dog_id FROM dogs WHERE name LIKE $1", false, true},
	{"limit", "SELECT name FROM dogs ORDER BY dog_id LIMIT $1", "SELECT name FROM dogs ORDER BY dog_id LIMIT 1", false, true},
	{"self comparison", "SELECT name FROM dogs WHERE $1 = $1", "SELECT name FROM dogs", false, true},
}

func TestParamPairs(t *testing.T) {
	ctx := context.Background()
	for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
		s := exampleSchema(t, d)
		for _, tc := range paramPairs {
			// A budget the instance count ends before the clock does,
			// even on a loaded machine.
			v, err := equivalence.Judge(ctx, s, tc.ref, tc.cand, equivalence.Options{Refute: equivalence.RefuteOptions{Budget: 2 * time.Second}})
			if err != nil {
				t.Fatalf("%v %s: %v", d, tc.name, err)
			}
			if got := v.Label.Proved(); got != tc.proved {
				t.Errorf("%v %s: proved %v (%s), want %v", d, tc.name, got, v.Label, tc.proved)
			}
			ce := v.Counterexample
			if (ce != nil) != tc.refuted {
				t.Errorf("%v %s: counterexample %v, want one: %v (search %+v)", d, tc.name, ce, tc.refuted, v.Search)
				continue
			}
			if ce == nil {
				continue
			}
			if len(ce.Params) == 0 || ce.Params[0].Name != "$1" {
				t.Errorf("%v %s: counterexample binds no parameters: %+v", d, tc.name, ce)
			}
			if !strings.Contains(ce.String(), "for $1 = ") || !strings.Contains(ce.Detail(), "-- parameters: $1 = ") {
				t.Errorf("%v %s: the counterexample does not show its values:\n%s\n%s", d, tc.name, ce, ce.Detail())
			}
		}
	}
}

// TestParamSearchMessages: a search never shows internal kinds.
func TestParamSearchMessages(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	v, err := equivalence.Judge(context.Background(), s, "SELECT name FROM dogs WHERE age > $1", "SELECT name FROM dogs WHERE $1 < age", equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Search != nil && strings.Contains(v.Search.Strength(), "kind") {
		t.Errorf("search says %q", v.Search.Strength())
	}
	// A construct the executor does not model is named without the
	// package's prefixes.
	v, err = equivalence.Judge(context.Background(), s, "SELECT to_char(date_of_birth, 'YYYY') FROM dogs", "SELECT to_char(date_of_birth, 'YY') FROM dogs", equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Search == nil || v.Search.CannotExecute == "" || strings.Contains(v.Search.Strength(), "exec:") || strings.Contains(v.Search.Strength(), "cannot execute") {
		t.Errorf("search %+v", v.Search)
	}
}

func TestParamCounterexampleRedacted(t *testing.T) {
	ce := &equivalence.Counterexample{Params: []equivalence.Param{{Name: "$1", Type: "text", Value: "secret"}, {Name: "$2", Type: "int", Null: true}}}
	hide := func(s string) string { return strings.ReplaceAll(s, "'secret'", "?") }
	r := ce.Redacted(hide)
	if strings.Contains(r.String(), "secret") || strings.Contains(r.Detail(), "secret") || r.Params[0].Value == "secret" {
		t.Errorf("redacted counterexample shows the value: %s / %+v", r, r.Params)
	}
	if !strings.Contains(r.String(), "$2 = NULL") {
		t.Errorf("redaction hid a NULL: %s", r)
	}
	if ce.Params[0].Value != "secret" {
		t.Error("Redacted changed the original")
	}
}
